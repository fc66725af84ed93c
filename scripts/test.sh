#!/usr/bin/env bash
# Install (if needed) everything, then lint, type-check and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh test
# Debian packages the tests read: Chromium (the browser tests), strace (the network guard,
# tests/test_no_network.py), the Debian Reference in English and German (real DocBook HTML), the kernel's
# documentation (thousands of real files: tests/indexer/store/test_vector_index.py).
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v strace >/dev/null 2>&1 || need+=(strace)
[ -f /usr/share/debian-reference/ch01.en.html ] || need+=(debian-reference-en)
[ -f /usr/share/debian-reference/ch01.de.html ] || need+=(debian-reference-de)
[ -d /usr/share/doc/linux-doc-6.1/Documentation ] || need+=(linux-doc-6.1)
if [ ${#need[@]} -gt 0 ]; then
  echo "Installing Debian's ${need[*]} for the tests..." >&2
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq && $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
export GRADIO_ANALYTICS_ENABLED=False
.venv/bin/ruff check .
.venv/bin/mypy
# One worker per logical CPU, at most 4 (each loads the embedded models: about 2 GB), or KIMAS_TEST_WORKERS;
# a test file's tests stay on one worker, so its module-scoped set-ups are made once.
.venv/bin/python -m pytest -n "${KIMAS_TEST_WORKERS:-logical}" --maxprocesses 4 --dist loadfile "$@"
