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

__all__ = ["ColumnKind", "TableColumn", "TableInfo", "TableShelf"]

ColumnKind = Literal["number", "date", "text"]


@dataclass(frozen=True)
class TableColumn:
    name: str  # the header cell's text (made unique: "Amount", "Amount (2)")
    kind: ColumnKind
    samples: tuple[str, ...] = ()  # up to 50 distinct values as text (all of them when there are fewer)


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
