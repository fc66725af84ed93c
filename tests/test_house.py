"""Every room is small (issue 41): the limits a change must keep, over every product package.

No product file over 400 lines, no product function over 60 lines (UI builders included), no product
folder with more than 15 modules directly in it, and ``Pipeline`` (the conductor) at most 250 lines: a new
capability gets a step class in its stage's folder, not more methods here."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("kimas_desktop", "local_models", "indexer", "web", "app", "ui", "cli", "ipc")


def product_files() -> list[Path]:
    return sorted(f for p in PACKAGES for f in (ROOT / p).rglob("*.py"))


def lines(f: Path) -> int:
    return len(f.read_text("utf-8").splitlines())


def test_no_product_file_is_over_400_lines() -> None:
    long = [f"{f.relative_to(ROOT)} ({lines(f)})" for f in product_files() if lines(f) > 400]
    assert not long, long


def test_no_product_function_is_over_60_lines() -> None:
    long = []
    for f in product_files():
        for node in ast.walk(ast.parse(f.read_text("utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                if n > 60:
                    long.append(f"{f.relative_to(ROOT)}:{node.name} ({n})")
    assert not long, long


def test_no_product_folder_holds_more_than_15_modules() -> None:
    crowded = []
    for p in PACKAGES:
        for folder in [ROOT / p, *(d for d in (ROOT / p).rglob("*") if d.is_dir())]:
            modules = [m for m in folder.glob("*.py") if m.name != "__init__.py"]
            if len(modules) > 15:
                crowded.append(f"{folder.relative_to(ROOT)} ({len(modules)})")
    assert not crowded, crowded


def test_the_pipeline_is_at_most_250_lines() -> None:
    assert lines(ROOT / "kimas_desktop" / "pipeline.py") <= 250


def test_types_are_checked_strictly() -> None:
    """``scripts/test.sh`` runs mypy with the project's config; that config is strict."""
    import tomllib

    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["mypy"]
    assert mypy["strict"] is True
    assert set(mypy["packages"]) == set(PACKAGES)
