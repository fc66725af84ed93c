"""Tables read as tables: what the indexer keeps of a spreadsheet or CSV, and what a question asks of it.

The indexer stores each table of a file (a CSV, one sheet of a workbook, a table inside a document) with
its header, its column kinds and each row's place in the file, next to the collection's chunks, and keeps
its rows searchable as text too ("Header: value; ..."). A question whose evidence comes from such a file
can then be answered in code: a plan (``TableQuery``) names only columns and operations, a backend runs it
(``TableEngine``), and the answer is the computed value with the rows it used, never the model's prose.

Contract between the indexer side (which writes and lists tables) and the answer side (which plans and
runs queries); both sides implement the protocols outside this package (``kimas_desktop`` imports no IO
library).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = [
    "Aggregate",
    "ColumnKind",
    "FilterOp",
    "Grain",
    "Melt",
    "Operation",
    "TableColumn",
    "TableEngine",
    "TableFilter",
    "TableInfo",
    "TableQuery",
    "TableResult",
    "TableRow",
    "TableShelf",
]

ColumnKind = Literal["number", "date", "text"]
# What one value of a date column covers: a day (or a moment), a month ("2025-05", "May 2025"), a quarter
# ("Q2 2025"); a month or quarter is kept as its first day.
Grain = Literal["", "month", "quarter"]


@dataclass(frozen=True)
class TableColumn:
    name: str  # the header cell's text (made unique: "Amount", "Amount (2)")
    kind: ColumnKind
    samples: tuple[str, ...] = ()  # up to 50 distinct values as text (all of them when there are fewer)
    grain: Grain = ""  # a date column's: what one value covers


@dataclass(frozen=True)
class TableInfo:
    table_id: str  # stable within the collection for the same file, sheet and table
    collection: str
    source: str  # the file's absolute path, as ``Chunk.source``
    sheet: str  # the sheet's name; "" for a CSV/TSV or a table inside a document
    header_row: int  # 1-based row number of the header in the sheet (or line in the CSV)
    columns: tuple[TableColumn, ...]
    rows: int  # data rows, header excluded


class TableShelf(Protocol):
    """The tables the indexer keeps for a collection's files."""

    def tables(self, collection: str, source: str) -> Sequence[TableInfo]:
        """The tables of one file (empty when the file has none or is not indexed)."""
        ...


# What a plan may ask of a table: no free text, only these operations over named columns.
#   lookup      the target column's value in the rows the filters select
#   count       how many rows the filters select
#   sum, mean, min, max          of the target column over the selected rows
#   argmax, argmin               the row whose target is largest/smallest; its ``label`` column answers
#   group       ``agg`` of the target (or the row count) for each value of ``by``, largest first
#   top         the ``k`` rows with the largest target (``agg == "min"``: the smallest), by ``label``
#   difference  the target of the row ``pair[0]`` selects minus that of the row ``pair[1]`` selects
Operation = Literal[
    "lookup", "count", "sum", "mean", "min", "max", "argmax", "argmin", "group", "top", "difference"
]
FilterOp = Literal["=", "<", "<=", ">", ">="]
Aggregate = Literal["count", "sum", "mean", "min", "max"]


@dataclass(frozen=True)
class TableFilter:
    column: str
    op: FilterOp
    # a number, a text value, or a date as ISO text: a day, a month, a year ("1990-03-05", "1990-03", "1990"),
    # a quarter ("1990-Q2"), or a month or quarter of every year ("--03", "--Q2")
    value: str | float

    def words(self) -> str:
        v = f"{self.value:g}" if isinstance(self.value, float) else self.value
        return f"{self.column} {self.op} {v}"


@dataclass(frozen=True)
class Melt:
    """A wide table read long: each of ``columns`` (one per region, month, cause of death, … sharing one
    kind of number) is a row of its own, its header in a text column ``name`` ("region"), its value in a
    number column ``value`` ("sales"); the other columns repeat. A row keeps its number in the sheet."""

    columns: tuple[str, ...]
    name: str
    value: str

    def words(self) -> str:
        """ "sales (North, South, East, West)"."""
        return f"{self.value} ({', '.join(self.columns)})"


@dataclass(frozen=True)
class TableQuery:
    """A plan over one table: it names only columns and operations (a chat model may write one under a
    JSON schema of these fields; the planner in ``answer/tables`` writes one without a model)."""

    operation: Operation
    target: str = ""  # the column computed over or returned ("" for a count of rows)
    filters: tuple[TableFilter, ...] = ()  # all must hold
    label: str = ""  # the column that names a row (what argmax/argmin/top answer with)
    by: str = ""  # group: the column grouped by
    agg: Aggregate = "count"  # group: what is computed per group; top: "min" for the smallest
    k: int = 0  # top: how many
    least: bool = False  # group: the smallest group first ("which island has the fewest penguins")
    pair: tuple[TableFilter, TableFilter] | None = None  # difference: the two rows
    melt: Melt | None = None  # the table read long first; its ``name`` and ``value`` are then columns


@dataclass(frozen=True)
class TableRow:
    row: int  # the row's 1-based number in its sheet (the ``_row`` column)
    cells: tuple[tuple[str, str], ...]  # (column, value as text), in the table's column order


@dataclass(frozen=True)
class TableResult:
    """What a query computed: ``text`` is the value as the answer states it, ``description`` the query in
    plain words with its value ("rows where Origin = Japan: 79"), ``rows`` the first few rows used and
    ``used`` how many there were. ``used == 0``: the table holds no row the query asks for (declined; the
    description names the range a date or year column covers: "Month runs from 2024-01 to 2025-12")."""

    value: float | str | None
    text: str
    description: str
    rows: tuple[TableRow, ...]
    used: int
    # declined: the range each filtered date or year column covers, (column, first, last) as written
    covers: tuple[tuple[str, str, str], ...] = ()

    @property
    def empty(self) -> bool:
        return self.used == 0 or self.value is None


class TableEngine(Protocol):
    """Runs a plan over a table the shelf keeps."""

    def run(self, table: TableInfo, query: TableQuery) -> TableResult: ...
