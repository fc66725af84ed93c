"""Where the tables of a sheet are: their header rows, their columns, their data rows.

A sheet is cut into blocks: runs of non-empty rows (a blank row ends one) and, inside each, runs of
non-empty columns (a blank column ends one: tables side by side). A block whose first rows hold a header
starts a table; the header is the first of its first ``HEADER_SCAN`` rows that fills at least half the
block's width with text that reads as neither a number nor a date, with a row below it (so a title above
the header, a note, a date of issue, is not taken for it and stays readable as text). A block without a
header continues the table above it in the same columns (a table with blank rows in it), or is a table of
its own with made-up column names ("Column 1", ...), or, a single row, a note. A CSV has one table:
its header is found the same way in its first rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from indexer.tables.values import Cell, cell_text, parse_date, parse_number

__all__ = ["RawTable", "SheetLayout", "find_header", "unique_names"]

HEADER_SCAN = 20
ROW = "_row"

Rows = Callable[[], Iterator[tuple[int, list[Cell]]]]  # (1-based row number, one cell per column), again


@dataclass(frozen=True)
class RawTable:
    """A table as found: its sheet, header row (0: none, its names made up), names and rows."""

    sheet: str
    header_row: int
    names: tuple[str, ...]
    rows: Rows
    first_column: int = 0  # 0-based, in the sheet


@dataclass
class SheetLayout:
    """The tables of one sheet, and the rows outside any table (titles, notes) as (row, text)."""

    name: str
    tables: list[RawTable] = field(default_factory=list)
    notes: list[tuple[int, str]] = field(default_factory=list)


def _empty(cell: Cell) -> bool:
    return cell is None or (isinstance(cell, str) and not cell.strip())


def _label(cell: Cell) -> bool:
    """A cell a header may hold: text that is neither a number nor a date."""
    if not isinstance(cell, str) or not cell.strip():
        return False
    return parse_number(cell) is None and parse_date(cell) is None


def unique_names(cells: Sequence[Cell]) -> tuple[str, ...]:
    """Header cells as column names: empty ones made up ("Column 3"), repeats numbered ("Amount (2)")."""
    names: list[str] = []
    taken = {ROW}
    last: dict[str, int] = {}  # the last number given to a repeated name: a header of one name repeated
    for i, cell in enumerate(cells):  # 30,000 times is numbered in linear time, not quadratic
        base = cell_text(cell) or f"Column {i + 1}"
        name, n = base, last.get(base, 1)
        while name in taken:
            n += 1
            name = f"{base} ({n})"
        taken.add(name)
        last[base] = n
        names.append(name)
    return tuple(names)


def _year_label(cell: Cell) -> bool:
    """A year written as a header ("1960" in a table with one column per year)."""
    text = cell_text(cell)
    return len(text) == 4 and text.isdigit() and 1000 <= int(text) <= 2100


def _header_cells(filled: Sequence[Cell]) -> bool:
    """Labels, or labels then years, each year once and rising ("Country Name, …, 1960, 1961, …")."""
    labels = [c for c in filled if _label(c)]
    years = [int(cell_text(c)) for c in filled if not _label(c)]
    if not labels or not all(_label(c) or _year_label(c) for c in filled):
        return False
    return years == sorted(set(years))


def find_header(rows: Sequence[list[Cell]]) -> int | None:
    """The index in ``rows`` (a block's first rows) of its header row, or None."""
    width = max((sum(not _empty(c) for c in r) for r in rows), default=0)
    for i, row in enumerate(rows[: HEADER_SCAN - 1]):
        filled = [c for c in row if not _empty(c)]
        if i + 1 < len(rows) and filled and 2 * len(filled) >= width and _header_cells(filled):
            return i
    return None


@dataclass
class _Block:
    start: int  # 0-based row of its first row
    lo: int  # its columns [lo, hi)
    hi: int
    rows: list[list[Cell]]


def _regions(grid: Sequence[list[Cell]]) -> Iterator[tuple[int, list[list[Cell]]]]:
    start, run = 0, list[list[Cell]]()
    for i, row in enumerate(grid):
        if all(_empty(c) for c in row):
            if run:
                yield start, run
            run = []
        else:
            if not run:
                start = i
            run.append(row)
    if run:
        yield start, run


def _column_runs(rows: list[list[Cell]]) -> list[tuple[int, int]]:
    width = max(len(r) for r in rows)
    used = [any(i < len(r) and not _empty(r[i]) for r in rows) for i in range(width)]
    runs, lo = [], None
    for i, on in enumerate([*used, False]):
        if on and lo is None:
            lo = i
        elif not on and lo is not None:
            runs.append((lo, i))
            lo = None
    return runs


def _blocks(grid: Sequence[list[Cell]]) -> list[_Block]:
    out: list[_Block] = []
    for start, rows in _regions(grid):
        for lo, hi in _column_runs(rows):
            cut = [[*r[lo:hi], *[""] * max(0, hi - max(len(r), lo))] for r in rows]
            # rows blank in these columns (their neighbours' rows) cut the block again
            out.extend(_Block(start + s, lo, hi, sub) for s, sub in _regions(cut))
    return sorted(out, key=lambda b: (b.start, b.lo))


def _rows_of(parts: list[tuple[int, list[list[Cell]]]]) -> Rows:
    def rows() -> Iterator[tuple[int, list[Cell]]]:
        for start, block in parts:
            for i, row in enumerate(block):
                if not all(_empty(c) for c in row):
                    yield start + i + 1, row

    return rows


def layout_sheet(sheet: str, grid: Sequence[list[Cell]]) -> SheetLayout:
    """The tables and notes of a sheet whose rows are ``grid`` (row i is the sheet's row i + 1)."""
    layout = SheetLayout(sheet)
    open_tables: dict[tuple[int, int], tuple[int, list[tuple[int, list[list[Cell]]]]]] = {}
    found: list[tuple[int, int, tuple[str, ...], list[tuple[int, list[list[Cell]]]]]] = []
    for block in _blocks(grid):
        head = find_header(block.rows)
        key = (block.lo, block.hi)
        if head is not None:
            for i in range(head):
                layout.notes.append((block.start + i + 1, _line(block.rows[i])))
            parts = [(block.start + head + 1, block.rows[head + 1 :])]
            found.append((block.start + head + 1, block.lo, unique_names(block.rows[head]), parts))
            open_tables[key] = (len(found) - 1, parts)
        elif key in open_tables:
            open_tables[key][1].append((block.start, block.rows))
        elif len(block.rows) > 1:
            parts = [(block.start, block.rows)]
            found.append((0, block.lo, unique_names([""] * (block.hi - block.lo)), parts))
            open_tables[key] = (len(found) - 1, parts)
        else:
            layout.notes.extend((block.start + i + 1, _line(r)) for i, r in enumerate(block.rows))
    for header_row, lo, names, parts in found:
        layout.tables.append(RawTable(sheet, header_row, names, _rows_of(parts), lo))
    return layout


def _line(row: Sequence[Cell]) -> str:
    return " | ".join(t for t in (cell_text(c) for c in row) if t)
