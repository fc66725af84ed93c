"""Dependencies flow one way, with no exceptions:

    kimas_desktop  ←  indexer, local_models  ←  app (the application layer)  ←  ui  ←  cli  ←  launch.py

``kimas_desktop`` imports no IO or model library; the backends know nothing of the layers above them;
``app`` is the one place that builds backends (``app.runtime``); ``ui`` and ``cli`` reach them only
through ``app``; ``launch.py`` only starts the CLI (so nothing imports it back: no circle).
"""

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
# What only the backends talk to (ui and cli reach models, parsers and the database through app).
BACKEND_LIBS = {
    "lancedb",
    "fastembed",
    "llama_cpp",
    "watchdog",
    "pypdf",
    "markdown_it",
    "onnxruntime",
    "pyarrow",
}
LAYERS = {"kimas_desktop", "indexer", "local_models", "app", "ui", "cli", "launch"}
RULES = {
    "kimas_desktop": {"indexer", "local_models", "app", "ui", "cli", "launch", *IO_OR_MODEL_LIBS},
    "indexer": {"local_models", "app", "ui", "cli", "launch"},
    "local_models": {"indexer", "app", "ui", "cli", "launch"},
    "app": {"ui", "cli", "launch", "gradio"},
    "ui": {"indexer", "local_models", "cli", "launch", *BACKEND_LIBS},
    "cli": {"indexer", "local_models", "launch", *BACKEND_LIBS},
    "launch": LAYERS - {"cli", "launch"},
}


def files_of(layer: str) -> list[Path]:
    single = ROOT / f"{layer}.py"
    return [single] if single.is_file() else sorted((ROOT / layer).rglob("*.py"))


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
    files = files_of(package)
    assert files, f"{package} has no modules"
    bad = {f"{f.relative_to(ROOT)} imports {m}" for f in files for m in imported_roots(f) & RULES[package]}
    assert not bad, sorted(bad)


def test_the_rule_catches_a_violation(tmp_path: Path) -> None:
    f = tmp_path / "x.py"
    f.write_text("import lancedb\nfrom indexer.store import LanceStore\n")
    assert imported_roots(f) & RULES["kimas_desktop"] == {"lancedb", "indexer"}


def test_every_layer_has_a_rule() -> None:
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests", "bench", "scripts"}
    assert packages | {"launch"} <= set(RULES), sorted(packages - set(RULES))
