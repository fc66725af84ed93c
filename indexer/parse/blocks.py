"""What a parser hands to the chunker: a document as a stream of structural blocks.

A *block* is the smallest unit a parser knows the structure of: a Markdown paragraph or list, an HTML
paragraph, a run of source-code lines between blank lines, or the text of one PDF page. The chunker packs
blocks into chunks and never lets a chunk cross a change of heading or page.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Block:
    text: str
    page: int | None = None  # 1-based PDF page
    line_start: int | None = None  # 1-based line of the block's first text line, when the format has lines
    heading: str = ""  # heading path "A > B > C"
    ocr: bool = False  # the text was recognized from an image of the page
    # A block that is one table: its cells row by row, the header row first (kept as a table too,
    # ``indexer.tables.documents``); the text above is its readable rows.
    table: tuple[tuple[str, ...], ...] = ()


@dataclass
class Document:
    """A parsed file. ``blocks`` may be lazy (PDF pages stream in); ``pages``, ``notes`` and ``ocr_pages``
    are complete once ``blocks`` is exhausted."""

    blocks: Iterator[Block]
    kind: str  # "pdf", "image", "docx", "pptx", "epub", "odt", "rtf", "email", "markdown", "html", ...
    pages: int = 0
    notes: list[str] = field(default_factory=list)  # e.g. pages that could not be read
    # Pages (1-based) whose text must be recognized from their image: read later, after the files
    # that need no OCR (``FileParser.recognize``). An image file has one entry per file, [1].
    ocr_pages: list[int] = field(default_factory=list)
    # The heading path of each page the PDF's bookmarks put under one (for the OCR pass, read later).
    page_headings: dict[int, str] = field(default_factory=dict)


class SkipFile(Exception):
    """Raised by a parser for a file it will not index (binary, encrypted, unsupported); ``str()`` is the
    reason shown to the user."""


def join_heading(path: list[str]) -> str:
    return " > ".join(p for p in path if p)
