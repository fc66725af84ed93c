"""The core declares its surface (httpx's ``test_exported_members``): every module of ``kimas_desktop``
that defines public classes or functions lists them in ``__all__``, and ``__all__`` names only what the
module has."""

import ast
import importlib
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "kimas_desktop"


def modules() -> list[tuple[str, ast.Module]]:
    out = []
    for f in sorted(CORE.rglob("*.py")):
        parts = f.relative_to(CORE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out.append((name, ast.parse(f.read_text("utf-8"))))
    return out


def defined_public(tree: ast.Module) -> set[str]:
    kinds = ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
    return {n.name for n in tree.body if isinstance(n, kinds) and not n.name.startswith("_")}


def test_every_core_module_with_public_names_declares_them() -> None:
    missing = []
    for name, tree in modules():
        public = defined_public(tree)
        if not public:
            continue
        exported = set(getattr(importlib.import_module(name), "__all__", ()))
        if public - exported:
            missing.append(f"{name}: {sorted(public - exported)}")
    assert not missing, missing


def test_all_names_only_what_the_module_has() -> None:
    bad = []
    for name, _ in modules():
        module = importlib.import_module(name)
        bad += [f"{name}.{n}" for n in getattr(module, "__all__", ()) if not hasattr(module, n)]
    assert not bad, bad
