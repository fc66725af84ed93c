"""``SourceViewer``: a cited file opened at the passage (issue 46), as typed values the UI turns into a page.

What a citation points at is a ``Spot``: a PDF's page, a text file's lines, and the cited words. The
viewer reads the file the way its kind needs (``viewer_pdf.py``, ``viewer_text.py``); the file was
already checked by ``SourceRegistry`` (shown by this run, inside a collection). Only the kinds below are
viewed; any other file (images, tables, HTML) opens as itself, sandboxed (``/kimas/source``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.chat.viewer_pdf import PdfPageReader, PdfPageView, UndrawnPage
from app.chat.viewer_text import LinesReader, LinesView, Problem, ProseReader, ProseView, Section
from indexer.parse.registry import file_kind

__all__ = ["SourceViewer", "Spot", "View", "viewable"]

LINE_KINDS = frozenset({"text", "markdown", "code"})
PROSE_KINDS = frozenset({"docx", "pptx", "odt", "epub", "rtf", "email"})

View = PdfPageView | LinesView | ProseView


@dataclass(frozen=True)
class Spot:
    """Where a citation points: the page (PDF, slide), the lines (text files), the cited words."""

    page: int | None = None
    lines: tuple[int, int] | None = None
    passage: str = ""


def viewable(path: str) -> bool:
    """Whether ``path`` opens in the viewer (else as itself)."""
    kind = file_kind(Path(path))
    return kind == "pdf" or kind in LINE_KINDS or kind in PROSE_KINDS


class SourceViewer:
    def __init__(self) -> None:
        self._pdf = PdfPageReader()
        self._lines = LinesReader()
        self._prose = ProseReader()

    def close(self) -> None:
        """Stop the PDF reader's worker process (a new one starts at the next page)."""
        self._pdf.close()

    def view(self, path: Path, spot: Spot) -> View | None:
        """``path`` at ``spot``; None for a kind the viewer does not show."""
        kind = file_kind(path)
        if kind == "pdf":
            try:
                return self._pdf.read(path, spot.page or 1, spot.passage)
            except UndrawnPage as err:  # the app lives on; the original file is a link away
                said = f"This page could not be drawn: {err}. The original file opens with the link above."
                return ProseView(
                    path.name, (Section("", spot.page, said),), None, Problem("undrawn page", str(err))
                )
        if kind in LINE_KINDS:
            return self._lines.read(path, spot.lines, spot.passage)
        if kind in PROSE_KINDS:
            return self._prose.read(path, spot.passage, spot.page)
        return None
