"""The core stays readable: the answer policy's entry point fits a screen and no function is a wall."""

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "kimas_desktop"


def functions() -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    out = []
    for f in sorted(CORE.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text("utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                out.append((f"{f.relative_to(CORE)}:{node.name}", node))
    return out


def length(node: ast.AST) -> int:
    return (node.end_lineno or node.lineno) - node.lineno + 1  # type: ignore[attr-defined]


def test_no_function_in_the_core_is_over_60_lines() -> None:
    long = [f"{name} ({length(n)} lines)" for name, n in functions() if length(n) > 60]
    assert not long, long


def test_pipeline_ask_is_at_most_40_lines() -> None:
    [ask] = [n for name, n in functions() if name == "pipeline.py:ask"]
    assert length(ask) <= 40
