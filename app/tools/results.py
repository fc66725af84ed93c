"""The typed results of the knowledge tools (``KnowledgeTools``): what an assistant reads back.

Frozen dataclasses, so the MCP SDK derives each tool's output schema from them; the passage id
(``collection/chunk_id``) is what ``read_passage`` takes back. File and folder names are shown as
``visible_name`` writes them (a bidi control or an invisible character escaped, ``\\u202e``; NFC and NFD
spellings told apart), so a client that shows them shows the truth; ``read_passage`` takes that form back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kimas_desktop.answer.tables.answer import TableAnswer
from kimas_desktop.text.visible import visible_name
from kimas_desktop.types import Chunk

__all__ = [
    "AskResult",
    "CitedPassage",
    "CollectionSummary",
    "DocumentSummary",
    "Passage",
    "PassageLookup",
    "SearchResult",
    "TableComputation",
    "TableRowUsed",
]

_FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")


def inert_cell(text: str) -> str:
    """A table cell safe to paste into a spreadsheet (OWASP's CSV injection advice): a cell that starts
    with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'``, so a sheet shows it
    as text rather than running it as a formula; a plain number (``-3.5``, ``+1``) is left as it is."""
    if not text.startswith(_FORMULA_LEADS):
        return text
    try:
        float(text)
    except ValueError:
        return "'" + text
    return text


Decision = Literal["answered", "declined", "nothing found", "stopped", "quote only", "model alone"]


def passage_id(chunk: Chunk) -> str:
    """The id ``read_passage`` takes: the collection and the chunk's stable, content-derived id."""
    return f"{chunk.collection}/{chunk.chunk_id}"


@dataclass(frozen=True)
class Passage:
    """One passage of an indexed file (or a web page an enabled online source returned)."""

    id: str
    collection: str
    file: str
    page: int | None
    lines: list[int] | None
    heading: str
    text: str
    score: float | None = None

    @classmethod
    def of(cls, chunk: Chunk, score: float | None = None) -> Passage:
        lines = list(chunk.lines) if chunk.lines else None
        rounded = None if score is None else round(score, 5)
        return cls(
            passage_id(chunk), chunk.collection, visible_name(chunk.source), chunk.page, lines, chunk.heading,
            chunk.text, rounded,
        )  # fmt: skip


@dataclass(frozen=True)
class SearchResult:
    """The ranked passages for a question, best first, and the collections that were searched."""

    question: str
    searched: list[str]
    passages: list[Passage]
    still_indexing: list[str]  # searched collections a sync is writing to: results cover what is indexed


@dataclass(frozen=True)
class CitedPassage:
    """A numbered source of an answer or its quote: ``[n]`` in the text; ``sentence`` the cited words."""

    n: int
    sentence: str
    passage: Passage


@dataclass(frozen=True)
class TableRowUsed:
    """A row a table answer used: its 1-based row number in the sheet, CSV or document table, and its
    cells (column name to value as text; a cell a spreadsheet would run as a formula starts with ``'``,
    see ``inert_cell``)."""

    row: int
    cells: dict[str, str]


@dataclass(frozen=True)
class TableComputation:
    """A question answered by computing over a table (the language-neutral part of a table answer): the
    operation (``lookup``, ``count``, ``sum``, ``mean``, ``min``, ``max``, ``argmax``, ``argmin``, ``group``,
    ``top``, ``difference``; "" when the table lacks the row asked for), its target column, the value
    (None: declined), how many rows it used, the first of them, and the table's address: the file, the
    sheet (a document's table: "table 2", "slide 3, table 1"; "" for a CSV) and the header's row. The
    target, the sheet, the value and the rows' names and cells are ``inert_cell``'s; the description is
    prose and left as written."""

    operation: str
    target: str
    value: float | str | None
    rows_used: int
    rows: list[TableRowUsed]
    file: str
    sheet: str
    header_row: int
    description: str  # the query in plain words, in English ("rows where Origin = Japan: 2")

    @classmethod
    def of(cls, t: TableAnswer) -> TableComputation:
        q, r = t.query, t.result
        rows = [TableRowUsed(row.row, {inert_cell(k): inert_cell(v) for k, v in row.cells}) for row in r.rows]
        value = inert_cell(r.value) if isinstance(r.value, str) else r.value
        return cls(
            q.operation if q is not None else "", inert_cell(q.target) if q is not None else "",
            None if r.empty else value, r.used, rows, visible_name(t.table.source), inert_cell(t.table.sheet),
            t.table.header_row,
            r.description,
        )  # fmt: skip


@dataclass(frozen=True)
class AskResult:
    """A grounded answer: the decision, the answer text, the verbatim quote and the cited passages."""

    question: str
    decision: Decision
    answer: str
    quote: str
    citations: list[CitedPassage]
    answerable: bool | None
    still_indexing: list[str]
    table: TableComputation | None = None  # the answer was computed over a table's rows


@dataclass(frozen=True)
class CollectionSummary:
    """A collection: its size, when it last changed (epoch seconds and ISO time) and its state."""

    name: str
    files: int
    chunks: int
    updated_at: float | None
    updated: str
    indexing: bool  # a sync is writing to it now (or one did not finish: indexing again resumes it)
    needs_reembedding: bool
    folders: list[str]


@dataclass(frozen=True)
class DocumentSummary:
    """A document's card: its title, its central sentences and its main chapters."""

    collection: str
    file: str
    title: str
    summary: str
    chapters: list[str]


@dataclass(frozen=True)
class PassageLookup:
    """What ``read_passage`` found: a passage, a document's card, or neither (``found`` False)."""

    found: bool
    passage: Passage | None = None
    document: DocumentSummary | None = None
    note: str = ""
