#!/usr/bin/env bash
# Install KIMAs Desktop into ./.venv. Idempotent: a second run with unchanged dependencies is instant.
#   bash scripts/install.sh          # the app
#   bash scripts/install.sh test     # the app + test tools
# The installer itself is scripts/install.py (standard library only), which scripts/install.ps1 runs on
# Windows too: it builds llama.cpp for this CPU without AMX and keeps the wheel in our own cache.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "KIMAs Desktop needs Python 3.11 or newer ($PY is $("$PY" -V 2>&1))." >&2; exit 1
fi
exec "$PY" scripts/install.py "$@"
