"""Tables as readable rows: "Header: value; Header: value", one line per row.

Flattened cell by cell, a table turns into word soup that no longer says which value belongs to which
column. Written this way, each row is a line that stands on its own: the chunker keeps lines whole, and a
question about one cell finds the row that names both the column and the value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_SPACE = re.compile(r"\s+")


def _cell(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def table_lines(rows: list[list[str]]) -> list[str]:
    """The first row is the header; every later row becomes "Header: value; ..." (empty cells left out).
    A table with one row, or without any header text, keeps its cells joined by " | "."""
    cells = [[_cell(c) for c in row] for row in rows]
    cells = [row for row in cells if any(row)]
    if not cells:
        return []
    header, body = cells[0], cells[1:]
    if not body or not any(header):
        return [" | ".join(c for c in row if c) for row in cells]
    return [" | ".join(c for c in header if c), *(row_line(header, row) for row in body)]


def table_cells(rows: list[list[str]]) -> tuple[tuple[str, ...], ...]:
    """A table's cells as ``Block.table`` keeps them: spaces tidied, empty rows left out, every row as wide
    as the widest (missing cells empty). Empty when it has no row under its first, or when it is text laid
    out with a table: no row fills two cells and the filled ones are not one column (a manual's "Note"
    box: its label in one cell, its text in another row's other cell), so no value belongs to a column;
    its lines stay in the text. A one-column list stays a table."""
    cells = [[_cell(c) for c in row] for row in rows]
    cells = [row for row in cells if any(row)]
    if len(cells) < 2 or _laid_out(cells):
        return ()
    width = max(len(row) for row in cells)
    return tuple(tuple(row + [""] * (width - len(row))) for row in cells)


def _laid_out(cells: list[list[str]]) -> bool:
    filled = [[i for i, c in enumerate(row) if c] for row in cells]
    return all(len(f) == 1 for f in filled) and len({f[0] for f in filled}) > 1


def row_line(header: Sequence[str] | None, row: Sequence[str]) -> str:
    """One row as "Header: value; ..." (empty cells left out); without a header, its cells joined by " | "."""
    if header is None:
        return " | ".join(c for c in row if c)
    parts = []
    for i, value in enumerate(row):
        if not value:
            continue
        name = header[i] if i < len(header) else ""
        parts.append(f"{name}: {value}" if name and name != value else value)
    return "; ".join(parts)
