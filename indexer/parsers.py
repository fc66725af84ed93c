"""Choosing a parser for a file by its extension, and the list of what we index.

Files with a known extension go to their parser; files without an extension (README, LICENSE,
Makefile) are read as plain text when they decode as text; everything else is skipped with a reason.
Scanned PDF pages and image files are read by OCR, later: ``parse`` lists what needs it in
``Document.ocr_pages`` and ``recognize`` reads it, so the indexer can queue OCR behind everything else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from indexer.documents import Block, Document, SkipFile
from indexer.ocr import tesseract
from indexer.parse_html import parse_html
from indexer.parse_markdown import parse_markdown
from indexer.parse_office import parse_docx, parse_pptx
from indexer.parse_packaged import parse_eml, parse_epub, parse_odt, parse_rtf
from indexer.parse_pdf import PdfExtractor, parse_pdf, recognize_pages
from indexer.parse_text import parse_plain
from kimas_desktop.text.file_types import CODE_SUFFIXES, MARKDOWN_SUFFIXES

HTML = {".html", ".htm", ".xhtml"}
# Code and Markdown suffixes: kimas_desktop/text/file_types.py (the sentence splitter reads them too).
TEXT = {".txt", ".text", ".rst", ".adoc", ".asciidoc", ".org", ".tex", ".csv", ".tsv", ".log", ".srt"}
IMAGES = {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".gif", ".webp"}
# Formats with a parser of their own: bytes → blocks.
PARSERS: dict[str, tuple[str, Callable[[bytes], Iterable[Block]]]] = {
    ".docx": ("docx", parse_docx),
    ".pptx": ("pptx", parse_pptx),
    ".epub": ("epub", parse_epub),
    ".odt": ("odt", parse_odt),
    ".rtf": ("rtf", parse_rtf),
    ".eml": ("email", parse_eml),
}
PLAIN_NAMES = {"readme", "license", "copying", "authors", "changelog", "makefile", "dockerfile", "notice"}


def file_kind(path: Path) -> str | None:
    """``pdf``, ``image``, ``docx``, ``pptx``, ``epub``, ``odt``, ``rtf``, ``email``, ``markdown``, ``html``,
    ``text``, ``code``, or None for a type we do not index."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return "pdf"
    if suffix in IMAGES:
        return "image"
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


class FileParser:
    """Parses one file into a ``Document``; raises ``SkipFile`` for what it will not index.

    Holds the parser worker process (PDF text, OCR); call ``close()`` when done. Not thread-safe: use it
    from one thread. ``ocr``: read scanned pages and images (needs Tesseract; without it they are skipped
    with that reason). ``pdf_page_timeout_s`` limits each page, read or recognized.
    """

    def __init__(self, *, pdf_page_timeout_s: float = 60.0, ocr: bool = True) -> None:
        self._pdf = PdfExtractor(page_timeout_s=pdf_page_timeout_s)
        self.ocr = ocr and tesseract() is not None

    def parse(self, path: Path, data: bytes) -> Document:
        kind = file_kind(path)
        if kind is None:
            raise SkipFile(f"unsupported file type '{path.suffix.lower()}'")
        if kind == "pdf":
            return parse_pdf(path, self._pdf, ocr=self.ocr)
        if kind == "image":
            if not self.ocr:
                raise SkipFile(
                    "an image: reading its text needs OCR (install Tesseract, package tesseract-ocr)"
                )
            return Document(iter(()), kind, ocr_pages=[1])
        if path.suffix.lower() in PARSERS:
            return Document(iter(PARSERS[path.suffix.lower()][1](data)), kind)
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
