"""``PdfPageReader``: one page of a PDF as the viewer shows it (issue 46): its image, drawn by pdfium
(the PDF engine of Chromium, already here for OCR), its text layer, and the boxes of the cited passage.

Nothing of the PDF runs: pdfium draws the page to pixels on the server, so the viewer page needs no script
at all (a PDF.js viewer would run the PDF's fonts and forms through JavaScript on the app's origin).
pdfium is not thread-safe: one reader draws one page at a time.
"""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass
from pathlib import Path

from app.chat.viewer_find import find_passage

__all__ = ["Box", "PdfPageReader", "PdfPageView"]

WIDTH_PX = 1100  # the drawn page's width; the page scales it to the window


@dataclass(frozen=True)
class Box:
    """A rectangle on the page, as fractions of its width and height from its top left corner."""

    left: float
    top: float
    width: float
    height: float


@dataclass(frozen=True)
class PdfPageView:
    name: str
    page: int  # 1-based, the page shown
    pages: int
    png: bytes  # the page drawn
    size: tuple[int, int]  # its width and height in pixels
    text: str  # the page's text layer
    hit: tuple[int, int] | None  # the cited passage in ``text``
    boxes: tuple[Box, ...]  # where the cited passage is on the page


class PdfPageReader:
    def __init__(self) -> None:
        self._lock = threading.Lock()

    def read(self, path: Path, page: int, passage: str) -> PdfPageView:
        """Page ``page`` of ``path`` (the last one if there are fewer), with ``passage`` found on it."""
        import pypdfium2 as pdfium

        with self._lock:
            pdf = pdfium.PdfDocument(str(path))
            try:
                number = min(max(page, 1), len(pdf))
                return _view(path.name, pdf[number - 1], number, len(pdf), passage)
            finally:
                pdf.close()


def _view(name: str, page: object, number: int, pages: int, passage: str) -> PdfPageView:
    import pypdfium2 as pdfium

    assert isinstance(page, pdfium.PdfPage)
    left, bottom, right, top = page.get_bbox()
    width, height = right - left, top - bottom
    image = page.render(scale=min(max(WIDTH_PX / width, 0.5), 3.0)).to_pil()
    png = io.BytesIO()
    image.save(png, format="PNG", optimize=False)
    textpage = page.get_textpage()
    text = textpage.get_text_range()
    hit = find_passage(text, passage) if passage else None
    boxes: list[Box] = []
    if hit is not None:
        for i in range(textpage.count_rects(hit[0], hit[1] - hit[0])):
            x0, y0, x1, y1 = textpage.get_rect(i)
            boxes.append(Box((x0 - left) / width, (top - y1) / height, (x1 - x0) / width, (y1 - y0) / height))
    return PdfPageView(name, number, pages, png.getvalue(), image.size, text, hit, tuple(boxes))
