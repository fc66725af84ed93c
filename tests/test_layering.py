"""Dependencies flow one way: kimas_desktop ← {indexer, local_models, ui} ← cli / launch.py."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IO_OR_MODEL_LIBS = {
    "lancedb",
    "fastembed",
    "llama_cpp",
    "gradio",
    "watchdog",
    "pypdf",
    "markdown_it",
    "httpx",
    "onnxruntime",
    "requests",
    "socket",
    "urllib",
    "sqlite3",
    "pyarrow",
}
RULES = {
    "kimas_desktop": {"indexer", "local_models", "ui", "cli", "launch", *IO_OR_MODEL_LIBS},
    "indexer": {"local_models", "ui", "cli", "launch"},
    "local_models": {"indexer", "ui", "cli", "launch"},
    "ui": {"indexer", "local_models", "cli", "launch"},
}


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            roots |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("package", sorted(RULES))
def test_package_imports_only_what_it_may(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"{package} has no modules"
    bad = {f"{f.relative_to(ROOT)} imports {m}" for f in files for m in imported_roots(f) & RULES[package]}
    assert not bad, sorted(bad)


def test_the_rule_catches_a_violation(tmp_path: Path) -> None:
    f = tmp_path / "x.py"
    f.write_text("import lancedb\nfrom indexer.store import LanceStore\n")
    assert imported_roots(f) & RULES["kimas_desktop"] == {"lancedb", "indexer"}
