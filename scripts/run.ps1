# Install (if needed) and start the app on http://127.0.0.1:7860 . Extra arguments go to launch.py.
$ErrorActionPreference = "Stop"
Set-Location (Join-Path $PSScriptRoot "..")
& (Join-Path $PSScriptRoot "install.ps1")
if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
& .\.venv\Scripts\python.exe launch.py @args
exit $LASTEXITCODE
