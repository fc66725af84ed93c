"""bench/ is a package (issue 41): every benchmark runs as ``python -m bench.<name>`` from the project's
root, with no edit of ``sys.path``; what benchmarks share lives in public library modules (a benchmark is a
module with a ``main``, and no module imports from one), never in ``_private`` names imported across files;
and importing a module does no work.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
MODULES = sorted(p.stem for p in BENCH.glob("*.py") if p.stem != "__init__")


def _tree(name: str) -> ast.Module:
    return ast.parse((BENCH / f"{name}.py").read_text("utf-8"), filename=f"bench/{name}.py")


def _bench_imports(name: str) -> list[ast.ImportFrom]:
    """Every ``from bench.x import …`` in the module, at the top or inside a function."""
    return [
        node
        for node in ast.walk(_tree(name))
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "bench"
    ]


def _benchmarks() -> set[str]:
    return {
        name
        for name in MODULES
        if any(isinstance(n, ast.FunctionDef) and n.name == "main" for n in _tree(name).body)
    }


def test_bench_holds_benchmarks_and_libraries() -> None:
    assert {"answers", "quality", "topic_shift"} <= _benchmarks()
    assert {"devkit", "workspace", "grounding", "machine"} <= set(MODULES) - _benchmarks()


def test_no_bench_module_edits_the_import_path() -> None:
    edits = [
        f"bench/{name}.py:{node.lineno}"
        for name in MODULES
        for node in ast.walk(_tree(name))
        if (isinstance(node, ast.Attribute) and node.attr == "path")
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    ]
    assert not edits, f"sys.path touched (run the benchmark as `python -m bench.<name>` instead): {edits}"


def test_no_private_name_is_imported_across_files() -> None:
    private = [
        f"bench/{name}.py:{node.lineno} imports {alias.name} from {node.module}"
        for name in MODULES
        for node in _bench_imports(name)
        for alias in node.names
        if alias.name.startswith("_")
    ]
    assert not private, private


def test_no_module_imports_from_a_benchmark() -> None:
    benchmarks = _benchmarks()
    borrowed = [
        f"bench/{name}.py:{node.lineno} imports from {node.module}"
        for name in MODULES
        for node in _bench_imports(name)
        if (node.module or "").removeprefix("bench.") in benchmarks
    ]
    assert not borrowed, f"a benchmark is not a library: move what is shared to a library module: {borrowed}"


def _does_no_work(node: ast.stmt) -> bool:
    """Top-level statements that only define: imports, definitions, assignments, the docstring, and
    the ``if __name__ == "__main__":`` guard."""
    if isinstance(node, ast.Expr):
        return isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    if isinstance(node, ast.If):
        return ast.unparse(node.test) == "__name__ == '__main__'"
    kinds = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign)
    return isinstance(node, kinds)


def test_module_level_code_only_defines() -> None:
    work = [
        f"bench/{name}.py:{node.lineno}"
        for name in MODULES
        for node in _tree(name).body
        if not _does_no_work(node)
    ]
    assert not work, work


@pytest.mark.skipif(sys.platform == "win32", reason="the benchmarks measure with /proc and `resource`")
def test_every_module_imports_without_running() -> None:
    code = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module('bench.' + name)\n"
    out = subprocess.run(
        [sys.executable, "-c", code, *MODULES], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout == ""  # nothing ran: no benchmark printed a report


def test_a_benchmark_runs_as_a_module() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bench.answers", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.startswith("usage: ") and "--split {all,tune,holdout}" in out.stdout
    assert "python -m bench.answers" in out.stdout  # the command its help shows is the one that works
