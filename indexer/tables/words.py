"""``table_words``: the words of a spreadsheet or CSV, for telling its language (issue 57).

A table's language is in its headers and its text cells ("物品", "位置", "车库"), not in its numbers and dates,
which read the same in every language. Each table of the file is read by the indexer's own readers
(``indexer.tables.workbook``, ``indexer.tables.delimited``): the names of its header, then the distinct
text cells of its first rows, until ``chars`` characters. Nothing is written anywhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from indexer.parse.zip_guard import ZipLimits
from indexer.tables.delimited import read_delimited
from indexer.tables.layout import RawTable
from indexer.tables.values import parse_date, parse_number
from indexer.tables.workbook import WORKBOOKS, read_workbook

__all__ = ["TableWords", "table_words"]

_ROWS = 200  # the rows of one table read at most


@dataclass(frozen=True)
class TableWords:
    """A table file's words: its headers' names, and those with its text cells (each once: a column of
    "MSFT" says no more than one "MSFT"), joined by spaces."""

    header: str
    text: str


def table_words(path: Path, data: bytes, chars: int) -> TableWords:
    """The words of the tables in ``data`` (the file at ``path``), at most ``chars`` characters;
    ``SkipFile`` when it holds no readable table."""
    header: dict[str, None] = {}
    parts: dict[str, None] = {}
    size = 0
    for table in _tables(path, data):
        header.update((n, None) for n in _names(table))
        for word in _words(table):
            if size >= chars:
                break
            if word not in parts:
                parts[word] = None
                size += len(word) + 1
    return TableWords(" ".join(header)[:chars], " ".join(parts)[:chars])


def _tables(path: Path, data: bytes) -> Iterator[RawTable]:
    suffix = path.suffix.lower()
    if suffix in WORKBOOKS:
        for sheet in read_workbook(suffix, data, ZipLimits()).sheets:
            yield from sheet.tables
    else:
        yield read_delimited(data, tab=suffix == ".tsv").table


def _wordy(text: str) -> bool:
    return bool(text) and parse_number(text) is None and parse_date(text) is None


def _names(table: RawTable) -> Iterator[str]:
    """The names of its header, when one was found (not made up: "Column 1"), but years ("1960")."""
    if table.header_row:
        yield from (n.strip() for n in table.names if _wordy(n.strip()))


def _words(table: RawTable) -> Iterator[str]:
    """Its header's names, then its cells that are text and neither a number nor a date."""
    yield from _names(table)
    for _, cells in islice(table.rows(), _ROWS):
        for cell in cells:
            if isinstance(cell, str) and _wordy(cell.strip()):
                yield cell.strip()
