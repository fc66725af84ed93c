"""Dependencies flow one way, with no exceptions:

    ipc, kimas_desktop  ←  indexer, local_models, web  ←  app (the application layer)  ←  ui  ←  cli  ←  launch.py

Inside ``kimas_desktop`` the stage folders follow the question (KIMAs §3):

    core (types, protocols, config, errors, trace, control, structured, optional)  ←  text
        ←  context  ←  routing  ←  retrieval  ←  answer  ←  events, cancel, pipeline

so a stage never reaches forward to a later one (the turn search in ``retrieval`` uses the context
manager and the router; the answer's steps use all three), and only the pipeline puts them together. No module
of the project imports one that imports it back, not even for types.

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
LAYERS = {"ipc", "kimas_desktop", "indexer", "local_models", "web", "app", "ui", "cli", "launch"}
RULES = {
    "ipc": LAYERS - {"ipc"},
    "kimas_desktop": {
        "ipc",
        "indexer",
        "local_models",
        "web",
        "app",
        "ui",
        "cli",
        "launch",
        *IO_OR_MODEL_LIBS,
    },
    "indexer": {"local_models", "web", "app", "ui", "cli", "launch"},
    "local_models": {"indexer", "web", "app", "ui", "cli", "launch"},
    "web": {"ipc", "indexer", "local_models", "app", "ui", "cli", "launch", "gradio", *BACKEND_LIBS},
    "app": {"ui", "cli", "launch", "gradio"},
    "ui": {"indexer", "local_models", "web", "cli", "launch", *BACKEND_LIBS},
    "cli": {"indexer", "local_models", "web", "launch", *BACKEND_LIBS},
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
    f.write_text("import lancedb\nfrom indexer.store.lance_store import LanceStore\n")
    assert imported_roots(f) & RULES["kimas_desktop"] == {"lancedb", "indexer"}


def test_every_layer_has_a_rule() -> None:
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests", "bench", "scripts"}
    assert packages | {"launch"} <= set(RULES), sorted(packages - set(RULES))


CORE = "kimas_desktop"
CORE_MODULES = {
    "types",
    "protocols",
    "config",
    "config_file",
    "errors",
    "limits",  # what one request may ask (``[limits]``), checked by every way in
    "trace",
    "clock",
    "control",
    "structured",
    "optional",
    "tables",  # the table contract (types and protocols, like ``types`` and ``protocols``)
}
ASSEMBLY = {"events", "cancel", "pipeline"}
STAGES = ("text", "context", "routing", "retrieval", "answer")
# What each part of the core may import of the core (beyond itself).
# A stage may import the stages a question passes before it, never one after it.
CORE_RULES: dict[str, set[str]] = {
    "core": CORE_MODULES,
    **{stage: CORE_MODULES | set(STAGES[:i]) for i, stage in enumerate(STAGES)},
    "answer": CORE_MODULES | set(STAGES[:-1]) | {"events"},  # the answer's steps emit the events
    "assembly": CORE_MODULES | ASSEMBLY | set(STAGES),
}


def part_of(module: str) -> str:
    """``kimas_desktop.answer.signals.quote`` → ``answer``; ``kimas_desktop.types`` → ``core``."""
    head = module.split(".")[1] if "." in module else ""
    if head in STAGES:
        return head
    return "assembly" if head in ASSEMBLY else "core"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, known: set[str]) -> set[str]:
    """Every project module ``path`` imports, wherever the import stands (type-only ones too)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names]
            names = [n if n in known else node.module for n in names]
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                out.add(name)
    return out


def test_each_stage_of_the_core_imports_only_earlier_ones() -> None:
    bad = []
    for f in files_of(CORE):
        here = module_name(f)
        if here == CORE:
            continue
        allowed = CORE_RULES[part_of(here)] | {part_of(here)}
        for m in imported_modules(f, {module_name(g) for g in files_of(CORE)}):
            if m == CORE or not m.startswith(CORE + "."):
                continue
            key = m.split(".")[1]
            if part_of(m) not in allowed and key not in allowed:
                bad.append(f"{here} imports {m}")
    assert not bad, sorted(bad)


def test_no_module_imports_one_that_imports_it_back() -> None:
    files = {module_name(f): f for layer in sorted(LAYERS) for f in files_of(layer)}
    graph = {m: imported_modules(f, set(files)) - {m} for m, f in files.items()}
    for m in graph:  # a package's __init__ may name its own modules; that is not a cycle back
        graph[m] = {d for d in graph[m] if not d.startswith(m + ".")}
    cycles = []
    for start in graph:
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in graph[node]:
                if nxt == start:
                    cycles.append(" → ".join([*path, start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*path, nxt]))
    assert not cycles, sorted(cycles)[:5]


def test_the_cycle_rule_sees_type_only_imports(tmp_path: Path) -> None:
    f = tmp_path / "x.py"
    f.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from kimas_desktop.cancel import X\n"
    )
    assert imported_modules(f, {"kimas_desktop.cancel"}) == {"kimas_desktop.cancel"}


def test_every_stage_folder_says_what_the_kimas_paper_calls_it() -> None:
    for stage in STAGES[1:]:
        doc = ast.get_docstring(ast.parse((ROOT / CORE / stage / "__init__.py").read_text("utf-8")))
        assert doc and "KIMAs §" in doc, stage
