"""``DocumentTables``: the tables inside a document (.docx, .pptx, HTML, Markdown), kept as tables too.

The parsers give each table as one block whose text is its readable rows and whose ``table`` holds its
cells, header row first (``indexer.parse``). While the sync's reader streams a document's blocks to the
chunker, this records those cells; once the blocks are read, ``TableReader.read_document`` writes each
table to the shelf as it writes a CSV's, so a question about it is answered by computing over its rows.

A table's name in its file ("sheet" in ``TableInfo``) is its place: "table 2" (the second table of the
document), "slide 3, table 1" for a slide. Its rows are numbered inside the table, the header being row 1
(a document has no row numbers of its own).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from indexer.parse.blocks import Block
from indexer.tables.layout import RawTable, unique_names
from indexer.tables.values import Cell

__all__ = ["DocumentTable", "DocumentTables"]


@dataclass(frozen=True)
class DocumentTable:
    """One table of a document: its place ("table 2", "slide 3, table 1") and its cells, header first."""

    place: str
    cells: tuple[tuple[str, ...], ...]

    def raw(self) -> RawTable:
        """The table as the shelf's writer reads one: header on row 1, data rows numbered from 2."""
        body = self.cells[1:]

        def rows() -> Iterator[tuple[int, list[Cell]]]:
            for i, row in enumerate(body, start=2):
                if any(row):
                    cells: list[Cell] = [c or None for c in row]
                    yield i, cells

        return RawTable(self.place, 1, unique_names(list(self.cells[0])), rows)


class DocumentTables:
    """Records the tables of the blocks it lets through (``watch``), in document order."""

    def __init__(self) -> None:
        self.found: list[DocumentTable] = []

    def watch(self, blocks: Iterator[Block]) -> Iterator[Block]:
        for block in blocks:
            if len(block.table) >= 2:
                self.found.append(DocumentTable(self._place(block), block.table))
            yield block

    def _place(self, block: Block) -> str:
        n = 1 + sum(1 for t in self.found if block.page is None or t.place.startswith(f"slide {block.page},"))
        return f"slide {block.page}, table {n}" if block.page is not None else f"table {n}"
