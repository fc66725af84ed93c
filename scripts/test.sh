#!/usr/bin/env bash
# Install (if needed) everything, then lint, type-check and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh test
if ! command -v chromium >/dev/null 2>&1; then
  echo "Installing Debian's Chromium for the browser test..." >&2
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null
  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null; fi
fi
if ! command -v strace >/dev/null 2>&1; then
  echo "Installing Debian's strace for the network guard (tests/test_no_network.py)..." >&2
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq strace >/dev/null
  else sudo apt-get update -qq && sudo apt-get install -y -qq strace >/dev/null; fi
fi
export GRADIO_ANALYTICS_ENABLED=False
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
