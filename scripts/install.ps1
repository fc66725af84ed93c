# Install KIMAs Desktop into .\.venv on Windows (PowerShell). Same as scripts/install.sh: see scripts/install.py.
#   powershell -ExecutionPolicy Bypass -File scripts\install.ps1          # the app
#   powershell -ExecutionPolicy Bypass -File scripts\install.ps1 test     # the app + test tools
$ErrorActionPreference = "Stop"
Set-Location (Join-Path $PSScriptRoot "..")
$py = if ($env:PYTHON) { $env:PYTHON } elseif (Get-Command py -ErrorAction SilentlyContinue) { "py" } else { "python" }
$pyArgs = if ($py -eq "py") { @("-3") } else { @() }
& $py @pyArgs scripts/install.py @args
exit $LASTEXITCODE
