"""Choosing a parser for a file by its extension, and the list of what we index.

Files with a known extension go to their parser; files without an extension (README, LICENSE,
Makefile) are read as plain text when they decode as text; everything else is skipped with a reason.
Scanned PDF pages and image files are read by OCR, later: ``parse`` lists what needs it in
``Document.ocr_pages`` and ``recognize`` reads it, so the indexer can queue OCR behind everything else.

PDFs, OCR and every format with a parser of its own run in the parser worker process, whose memory is
capped (indexer/parse/pdf.py); zip-based formats (``ZIP_PARSERS``) all go through ``read_blocks``, where
the zip guard (indexer/parse/zip_guard.py) refuses a zip bomb before anything is inflated: a format registered
there gets it for free. Plain text, Markdown and HTML are read here: streaming parsers, bounded by
``max_file_mb``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from indexer.parse.blocks import Block, Document, SkipFile
from indexer.parse.html import parse_html
from indexer.parse.markdown import parse_markdown
from indexer.parse.ocr import tesseract
from indexer.parse.office import parse_docx, parse_pptx
from indexer.parse.packaged import parse_eml, parse_epub, parse_odt, parse_rtf
from indexer.parse.pdf import ParserWorker, parse_pdf, recognize_pages
from indexer.parse.text import parse_plain
from indexer.parse.zip_guard import GuardedZip, ZipLimits
from indexer.tables import TABLE_SUFFIXES
from kimas_desktop.text.file_types import CODE_SUFFIXES, MARKDOWN_SUFFIXES

HTML = {".html", ".htm", ".xhtml"}
# Code and Markdown suffixes: kimas_desktop/text/file_types.py (the sentence splitter reads them too).
TEXT = {".txt", ".text", ".rst", ".adoc", ".asciidoc", ".org", ".tex", ".log", ".srt"}
# Spreadsheets and CSVs are read as tables by ``indexer.tables`` (the sync's reader sends them there).
TABLES = TABLE_SUFFIXES
IMAGES = {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".gif", ".webp"}


class ZipFormat(NamedTuple):
    kind: str
    what: str  # the format's name in reasons ("not a readable Word (.docx) file")
    parse: Callable[[GuardedZip], Iterable[Block]]


# Zip-based formats: a guarded archive → blocks (read_blocks checks it first).
ZIP_PARSERS: dict[str, ZipFormat] = {
    ".docx": ZipFormat("docx", "Word (.docx)", parse_docx),
    ".pptx": ZipFormat("pptx", "PowerPoint (.pptx)", parse_pptx),
    ".epub": ZipFormat("epub", "EPUB", parse_epub),
    ".odt": ZipFormat("odt", "OpenDocument", parse_odt),
}
# Other formats with a parser of their own: bytes → blocks.
PARSERS: dict[str, tuple[str, Callable[[bytes], Iterable[Block]]]] = {
    ".rtf": ("rtf", parse_rtf),
    ".eml": ("email", parse_eml),
}
PLAIN_NAMES = {"readme", "license", "copying", "authors", "changelog", "makefile", "dockerfile", "notice"}


def file_kind(path: Path) -> str | None:
    """``pdf``, ``image``, ``docx``, ``pptx``, ``epub``, ``odt``, ``rtf``, ``email``, ``markdown``, ``html``,
    ``text``, ``code``, ``table``, or None for a type we do not index."""
    suffix = path.suffix.lower()
    if suffix in TABLES:
        return "table"
    if suffix == ".pdf":
        return "pdf"
    if suffix in IMAGES:
        return "image"
    if suffix in ZIP_PARSERS:
        return ZIP_PARSERS[suffix].kind
    if suffix in PARSERS:
        return PARSERS[suffix][0]
    if suffix in MARKDOWN_SUFFIXES:
        return "markdown"
    if suffix in HTML:
        return "html"
    if suffix in TEXT:
        return "text"
    if suffix in CODE_SUFFIXES:
        return "code"
    if not suffix or path.name.lower() in PLAIN_NAMES:
        return "text"
    return None


def read_blocks(path: Path, data: bytes, limits: ZipLimits) -> Iterator[Block]:
    """The blocks of ``data``, a file in ``ZIP_PARSERS`` or ``PARSERS`` (run in the parser worker). A zip
    is checked against ``limits`` (declared sizes, then every member inflated once through a counting
    reader) before its parser sees it: ``ZipBomb``, a ``SkipFile``, says which limit it passed."""
    suffix = path.suffix.lower()
    if suffix in ZIP_PARSERS:
        zipped = ZIP_PARSERS[suffix]
        with GuardedZip(data, limits, zipped.what) as archive:
            archive.verify()
            yield from zipped.parse(archive)
        return
    yield from PARSERS[suffix][1](data)


class FileParser:
    """Parses one file into a ``Document``; raises ``SkipFile`` for what it will not index.

    Holds the parser worker process (PDF text, OCR, the formats with parsers of their own); call
    ``close()`` when done. Not thread-safe: use it from one thread. ``ocr``: read scanned pages and images
    (needs Tesseract; without it they are skipped with that reason). ``pdf_page_timeout_s`` limits each
    page, read or recognized (and the wait for each block of other formats). ``memory_mb``: what parsing
    one file may cost in the worker; ``zip_limits``: how far a zip-based file may inflate.
    """

    def __init__(
        self,
        *,
        pdf_page_timeout_s: float = 60.0,
        ocr: bool = True,
        memory_mb: float = 1024.0,
        zip_limits: ZipLimits | None = None,
    ) -> None:
        self._pdf = ParserWorker(
            page_timeout_s=pdf_page_timeout_s, memory_mb=memory_mb, zip_limits=zip_limits or ZipLimits()
        )
        self.ocr = ocr and tesseract() is not None

    def parse(self, path: Path, data: bytes) -> Document:
        kind = file_kind(path)
        if kind is None:
            raise SkipFile(f"unsupported file type '{path.suffix.lower()}'")
        if kind == "table":
            raise SkipFile("a spreadsheet or CSV: read as tables (indexer.tables.ingest.TableReader)")
        if kind == "pdf":
            return parse_pdf(path, self._pdf, ocr=self.ocr)
        if kind == "image":
            if not self.ocr:
                raise SkipFile(
                    "an image: reading its text needs OCR (install Tesseract, package tesseract-ocr)"
                )
            return Document(iter(()), kind, ocr_pages=[1])
        if path.suffix.lower() in ZIP_PARSERS or path.suffix.lower() in PARSERS:
            return Document(self._pdf.blocks(path), kind)
        if kind == "markdown":
            return Document(parse_markdown(data), kind)
        if kind == "html":
            return Document(parse_html(data), kind)
        return Document(parse_plain(data), kind)

    def recognize(self, path: Path, doc: Document) -> Iterator[Block]:
        """The blocks of ``doc.ocr_pages`` read by OCR (of every frame of an image file); failed pages
        are added to ``doc.notes``."""
        return recognize_pages(path, doc, self._pdf)

    def close(self) -> None:
        self._pdf.close()
