#!/usr/bin/env bash
# Install (if needed) and start the app on http://127.0.0.1:7860 . Extra arguments go to launch.py.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
exec .venv/bin/python launch.py "$@"
