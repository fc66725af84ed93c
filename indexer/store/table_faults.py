"""What is wrong with a collection's LanceDB table, in words: missing, or there but unreadable.

A table's directory can be deleted or its files damaged while the app runs (a clean-up tool, a sync
client, a disk error) or before it starts. ``table_fault`` reads the table as a search would (its row
count, then one narrow column of every row) and says why it cannot; ``damaged`` turns that into the
``IndexDamagedError`` the store raises, with the sentence a person reads.
"""

from __future__ import annotations

import re
from typing import Any

from kimas_desktop.errors import IndexDamagedError

__all__ = ["MISSING", "damaged", "lance_words", "table_fault"]

MISSING = "missing"


def lance_words(err: BaseException) -> str:
    """The cause of a failed LanceDB call in words: its message without the Rust source location."""
    text = str(err).strip() or type(err).__name__
    match = re.search(r"LanceError\(\w+\): (.*?)(?:, /\S+\.rs:\d+:\d+)?$", text, re.S)
    words = (match.group(1) if match else text).strip()
    return re.sub(r",? ?/\S+\.rs:\d+:\d+", "", words)


def table_fault(table: Any, column: str) -> str | None:
    """Why ``table`` (None: not found) cannot be read, or None when it can: its row count and every row
    of ``column`` are read (the data files a search reads, without their vectors)."""
    if table is None:
        return MISSING
    try:
        table.count_rows()
        table.search().select([column]).limit(None).to_arrow()
    except Exception as err:  # a table that is there but unreadable: which error depends on the damage
        return f"cannot be read ({lance_words(err)[:200]})"
    return None


def damaged(collection: str, faults: dict[str, str]) -> IndexDamagedError:
    """The error for ``collection`` whose tables (by role: "chunks", "files") have these ``faults``."""
    if all(f == MISSING for f in faults.values()):
        what = f"its {' and '.join(faults)} table is missing"
    else:
        what = "; ".join(f"its {role} table {fault}" for role, fault in faults.items())
    return IndexDamagedError(
        f"the index of collection '{collection}' is damaged: {what}. Index it again (kimas index, or "
        "Re-index) to rebuild it from its files.",
        collection,
        what,
    )
