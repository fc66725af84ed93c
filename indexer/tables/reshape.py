"""A wide table read long, and what a table covers, for the engine (``indexer.tables.engine``).

``melted``: a table with one column per region (per month, per cause …) as one row per (row, column): the
column's header in a text column, its value in a number column, every other column repeated; each row keeps
its number in the sheet, so the rows cited are the sheet's. ``covers``: the first and last value of each date
or year column a plan filtered on, for a decline that says what the table does cover ("Month runs from
2024-01 to 2025-12").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import pyarrow as pa
import pyarrow.compute as pc

from kimas_desktop.tables import Melt, TableColumn, TableFilter, TableInfo

__all__ = ["covers", "melted"]


def melted(data: pa.Table, info: TableInfo, melt: Melt) -> tuple[pa.Table, TableInfo]:
    """``data`` long by ``melt`` (each of its columns a row of its own), and the table's description with
    the two new columns (the header: text, its samples the headers; the value: a number)."""
    parts = []
    for column in melt.columns:
        part = data.append_column(melt.name, pa.array([column] * data.num_rows, pa.string()))
        parts.append(part.append_column(melt.value, pc.cast(data[column], pa.float64())))
    long = pa.concat_tables(parts).sort_by([("_row", "ascending")])
    columns = (
        *info.columns,
        TableColumn(melt.name, "text", melt.columns),
        TableColumn(melt.value, "number"),
    )
    return long, replace(info, columns=columns, rows=info.rows * len(melt.columns))


def covers(
    data: pa.Table, info: TableInfo, filters: Sequence[TableFilter], shown: Callable[[object, str], str]
) -> tuple[tuple[str, str, str], ...]:
    """(column, first, last) of each date column and each number column named like a year ("Year",
    "YEAR") that ``filters`` name, its values written by ``shown`` (a value, the column's name)."""
    out = []
    for name in dict.fromkeys(f.column for f in filters):
        column = next((c for c in info.columns if c.name == name), None)
        if column is None or not _timed(column) or name not in data.column_names:
            continue
        lo, hi = pc.min_max(data[name]).values()
        if lo.is_valid:
            out.append((name, shown(lo.as_py(), name), shown(hi.as_py(), name)))
    return tuple(out)


def _timed(column: TableColumn) -> bool:
    words = column.name.lower().replace("_", " ").split()
    return column.kind == "date" or (
        column.kind == "number" and bool({"year", "yr", "年", "年份"} & set(words))
    )
