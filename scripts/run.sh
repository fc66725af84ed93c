#!/usr/bin/env bash
# Install (if needed) and start the app on http://127.0.0.1:7860 . Extra arguments go to launch.py.
# llama.cpp compiles in the background on the first run; the app answers with quotes until it is ready.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --llama-in-background
exec .venv/bin/python launch.py "$@"
