# Install (if needed) everything, then lint, type-check and run the test suite (the browser tests skip
# without Chromium at the path tests/ui/test_browser.py names).
$ErrorActionPreference = "Stop"
Set-Location (Join-Path $PSScriptRoot "..")
& (Join-Path $PSScriptRoot "install.ps1") test
if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
$env:GRADIO_ANALYTICS_ENABLED = "False"
& .\.venv\Scripts\ruff.exe check .
if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
& .\.venv\Scripts\mypy.exe
if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
# As scripts/test.sh: one worker per logical CPU (at most 4) or $env:KIMAS_TEST_WORKERS, a file to a worker.
$workers = if ($env:KIMAS_TEST_WORKERS) { $env:KIMAS_TEST_WORKERS } else { "logical" }
& .\.venv\Scripts\python.exe -m pytest -n $workers --maxprocesses 4 --dist loadfile @args
exit $LASTEXITCODE
