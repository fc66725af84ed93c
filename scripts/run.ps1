# Install (if needed) and start the app on http://127.0.0.1:7860 . Extra arguments go to launch.py.
# llama.cpp compiles in the background on the first run; the app answers with quotes until it is ready.
$ErrorActionPreference = "Stop"
Set-Location (Join-Path $PSScriptRoot "..")
& (Join-Path $PSScriptRoot "install.ps1") --llama-in-background
if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
& .\.venv\Scripts\python.exe launch.py @args
exit $LASTEXITCODE
