"""The indexer's public surface: what ``__all__`` promises exists, and importing it is cheap."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import indexer

ROOT = Path(__file__).resolve().parents[2]


def test_all_names_resolve() -> None:
    assert indexer.__all__ == ["FolderWatcher", "Indexer", "LanceStore"]
    for name in indexer.__all__:
        assert getattr(indexer, name).__name__ == name


def test_importing_the_package_loads_no_database_or_watcher() -> None:
    code = (
        "import sys, indexer; print(sorted(m for m in ('lancedb', 'watchdog', 'pypdf') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
