"""``TableReader``: a spreadsheet or CSV read as tables, for the sync's reader thread.

For each table of the file (``indexer.tables.workbook``, ``indexer.tables.delimited``) it makes three
passes over the rows, none holding them all: it tells each column's kind (``indexer.tables.values``),
writes the rows typed into a new LanceDB table of the shelf in batches (``LanceTableShelf.write_rows``),
and gives the rows as text blocks ("Header: value; ...", as ``indexer.parse.tables``), one line per row, each
block's first line numbered with its row, so a chunk's lines are its rows' numbers in the sheet or CSV
and a citation names them. The text of a large table stops after ``text_chars`` characters of the file
(every table's header line stays): its rows are all in the shelf, a few thousand are enough for the search
to find the table. The tables are registered by the writer, with the file's manifest record
(``indexer.sync.batch_writer``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from indexer.parse.blocks import Block, SkipFile
from indexer.parse.tables import row_line
from indexer.parse.zip_guard import ZipLimits
from indexer.tables import TABLE_SUFFIXES, is_table_file
from indexer.tables.delimited import read_delimited
from indexer.tables.documents import DocumentTable
from indexer.tables.layout import ROW, RawTable
from indexer.tables.shelf import LanceTableShelf, StoredTable, table_id
from indexer.tables.values import ColumnTally, cell_text
from indexer.tables.workbook import WORKBOOKS, read_workbook
from kimas_desktop.tables import TableInfo

__all__ = ["TABLE_SUFFIXES", "TableFile", "TableReader", "card_with_tables", "is_table_file"]

BATCH_ROWS = 16_384  # rows per Arrow batch written
BLOCK_ROWS = 64  # rows per text block


@dataclass(frozen=True)
class TableFile:
    """A table file read: its text (lazy), its stored tables, and what was left out."""

    blocks: Iterator[Block]
    stored: tuple[StoredTable, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class _Found:
    table: RawTable
    decimal_comma: bool


@dataclass(frozen=True)
class _Sheet:
    name: str
    notes: list[tuple[int, str]]
    tables: list[RawTable]


class TableReader:
    """Reads the tables of ``collection``'s files into ``shelf`` (unregistered until the writer does)."""

    def __init__(
        self, shelf: LanceTableShelf, collection: str, *, zip_limits: ZipLimits, text_chars: int
    ) -> None:
        self._shelf = shelf
        self._collection = collection
        self._zip_limits = zip_limits
        self._text_chars = text_chars

    def read(self, path: Path, data: bytes, check: Callable[[], None] = lambda: None) -> TableFile:
        """``SkipFile`` for a file that holds no table or cannot be read (its reason). ``check`` runs every
        ``BATCH_ROWS`` rows (it raises ``Cancelled`` to stop a long file)."""
        suffix = path.suffix.lower()
        notes: list[str] = []
        sheets: list[tuple[str, list[tuple[int, str]], list[_Found]]] = []
        if suffix in WORKBOOKS:
            book = read_workbook(suffix, data, self._zip_limits)
            notes = book.notes
            sheets = [(s.name, s.notes, [_Found(t, False) for t in s.tables]) for s in book.sheets]
        else:
            csv = read_delimited(data, tab=suffix == ".tsv")
            sheets = [("", csv.notes, [_Found(csv.table, csv.decimal_comma)])]
        stored: list[StoredTable] = []
        kept: list[_Sheet] = []
        position = 0
        for name, sheet_notes, found in sheets:
            tables = []
            for f in found:
                tables.append(f.table)
                kept_table = self._store(str(path), f, position, check)
                position += 1
                if kept_table is not None:
                    stored.append(kept_table)
            kept.append(_Sheet(name, sheet_notes, tables))
        if not stored and not any(s.notes for s in kept):
            raise SkipFile("no table found (no rows under a header)")
        return TableFile(self._blocks(kept), tuple(stored), tuple(notes))

    def read_document(
        self, path: Path, tables: Sequence[DocumentTable], check: Callable[[], None] = lambda: None
    ) -> tuple[StoredTable, ...]:
        """The tables found inside a document (``indexer.tables.documents``), written to the shelf (their
        text is the document's own blocks)."""
        stored = (self._store(str(path), _Found(t.raw(), False), i, check) for i, t in enumerate(tables))
        return tuple(s for s in stored if s is not None)

    def _store(
        self, source: str, found: _Found, position: int, check: Callable[[], None]
    ) -> StoredTable | None:
        table = found.table
        tallies = [ColumnTally(decimal_comma=found.decimal_comma) for _ in table.names]
        count = 0
        for _, cells in table.rows():
            count += 1
            if count % BATCH_ROWS == 0:
                check()
            for tally, cell in zip(tallies, cells, strict=False):
                tally.add(cell)
        if count == 0:
            return None
        schema = pa.schema(
            [pa.field(ROW, pa.int64()), *(pa.field(f"c{i}", t.arrow_type()) for i, t in enumerate(tallies))]
        )
        data = self._shelf.write_rows(self._collection, schema, _batches(table, tallies, schema, check))
        info = TableInfo(
            table_id=table_id(self._collection, source, table.sheet, position),
            collection=self._collection,
            source=source,
            sheet=table.sheet,
            header_row=table.header_row,
            columns=tuple(t.column(n) for t, n in zip(tallies, table.names, strict=True)),
            rows=count,
        )
        return StoredTable(info, position, data)

    def _blocks(self, sheets: Sequence[_Sheet]) -> Iterator[Block]:
        budget = self._text_chars
        for sheet in sheets:
            for line, text in sheet.notes:
                yield Block(text, line_start=line, heading=sheet.name)
            for table in sheet.tables:
                if table.header_row:
                    yield Block(" | ".join(table.names), line_start=table.header_row, heading=table.sheet)
                for block in _row_blocks(table, budget):
                    budget -= len(block.text) + 1
                    yield block


def card_with_tables(card: str, stored: Sequence[StoredTable]) -> str:
    """A file card's JSON (``indexer.upkeep.cards``) with its tables: sheet, header row, rows, and each
    column's name and kind (what the Knowledge tab shows of a spreadsheet)."""
    data = json.loads(card)
    data["tables"] = [
        {
            "sheet": s.info.sheet,
            "header_row": s.info.header_row,
            "rows": s.info.rows,
            "columns": [[c.name, c.kind] for c in s.info.columns],
        }
        for s in stored
    ]
    return json.dumps(data, ensure_ascii=False)


def _batches(
    table: RawTable, tallies: Sequence[ColumnTally], schema: pa.Schema, check: Callable[[], None]
) -> Iterator[pa.RecordBatch]:
    convert = [t.converter() for t in tallies]
    numbers: list[int] = []
    columns: list[list[Any]] = [[] for _ in tallies]
    for number, cells in table.rows():
        numbers.append(number)
        for i, (to, column) in enumerate(zip(convert, columns, strict=True)):
            column.append(to(cells[i]) if i < len(cells) else None)
        if len(numbers) >= BATCH_ROWS:
            check()
            yield _batch(numbers, columns, schema)
            numbers, columns = [], [[] for _ in tallies]
    if numbers:
        yield _batch(numbers, columns, schema)


def _batch(numbers: list[int], columns: list[list[Any]], schema: pa.Schema) -> pa.RecordBatch:
    arrays = [pa.array(numbers, pa.int64())]
    arrays += [pa.array(c, schema.field(i + 1).type) for i, c in enumerate(columns)]
    return pa.record_batch(arrays, schema=schema)


def _row_blocks(table: RawTable, budget: int) -> Iterator[Block]:
    """The rows as text, in blocks of consecutive rows, until ``budget`` characters are spent."""
    names = table.names if table.header_row else None
    lines: list[str] = []
    first = last = 0
    for number, cells in table.rows():
        if budget <= 0:
            break
        text = row_line(names, [cell_text(c) for c in cells])
        if not text:
            continue
        if lines and (number != last + 1 or len(lines) >= BLOCK_ROWS):
            yield Block("\n".join(lines), line_start=first, heading=table.sheet)
            lines = []
        if not lines:
            first = number
        lines.append(text)
        last = number
        budget -= len(text) + 1
    if lines:
        yield Block("\n".join(lines), line_start=first, heading=table.sheet)
