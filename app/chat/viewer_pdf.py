"""``PdfPageReader``: one page of a PDF as the viewer shows it (issue 46): its image, drawn by pdfium
(the PDF engine of Chromium, already here for OCR), its text layer, and the boxes of the cited passage.

Nothing of the PDF runs: pdfium draws the page to pixels on the server, so the viewer page needs no script
at all (a PDF.js viewer would run the PDF's fonts and forms through JavaScript on the app's origin).
pdfium draws in the parser worker process (``indexer.parse.page_draw``), with its memory cap and a time
limit per page: a PDF that crashes pdfium, eats memory or takes too long shows "this page could not be
drawn" with the reason, and the next page gets a fresh worker. One reader draws one page at a time (the
worker serves one request at a time); the last pages drawn are kept, so paging back costs nothing.
The boxes follow the page's ``/Rotate``.
"""

from __future__ import annotations

import base64
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.chat.viewer_find import find_passage
from indexer.parse.pdf import ParserWorker

__all__ = ["Box", "PdfPageReader", "PdfPageView", "UndrawnPage"]

WIDTH_PX = 1100  # the drawn page's width; the page scales it to the window
PAGE_TIMEOUT_S = 30.0  # drawing one page, in the worker
MEMORY_MB = 1024.0  # what drawing one page may cost in the worker
KEPT_PAGES = 8  # pages drawn lately, kept with their text (a few MB)


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


class UndrawnPage(Exception):
    """The page could not be drawn (the PDF crashed the worker, passed its memory cap or time limit, or
    is unreadable); ``str()`` says why."""


@dataclass(frozen=True)
class _Drawn:
    number: int
    pages: int
    png: bytes
    size: tuple[int, int]
    text: str


class PdfPageReader:
    def __init__(self, *, timeout_s: float | None = None, memory_mb: float = MEMORY_MB) -> None:
        self._timeout_s = timeout_s or PAGE_TIMEOUT_S
        self._worker = ParserWorker(page_timeout_s=self._timeout_s, memory_mb=memory_mb)
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple[str, float, int, int], _Drawn] = OrderedDict()

    def close(self) -> None:
        with self._lock:
            self._worker.close()

    def read(self, path: Path, page: int, passage: str) -> PdfPageView:
        """Page ``page`` of ``path`` (the last one if there are fewer), with ``passage`` found on it;
        ``UndrawnPage`` with the reason when it cannot be drawn."""
        with self._lock:
            drawn = self._drawn(path, page)
            hit = find_passage(drawn.text, passage) if passage else None
            boxes: tuple[Box, ...] = ()
            if hit is not None:
                request = {"path": str(path), "draw": drawn.number, "span": list(hit), "width": 0}
                reply = self._ask(request, f"finding the passage on page {drawn.number}")
                boxes = tuple(Box(*(float(v) for v in b)) for b in reply["boxes"])
        return PdfPageView(
            path.name, drawn.number, drawn.pages, drawn.png, drawn.size, drawn.text, hit, boxes
        )

    def _drawn(self, path: Path, page: int) -> _Drawn:
        stat = path.stat()
        key = (str(path), stat.st_mtime, stat.st_size, page)
        if key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        reply = self._ask({"path": str(path), "draw": page, "width": WIDTH_PX}, f"drawing page {page}")
        width, height = reply["size"]
        drawn = _Drawn(
            int(reply["page"]),
            int(reply["n"]),
            base64.b64decode(reply["png"]),
            (width, height),
            reply["text"],
        )
        self._kept[key] = drawn
        while len(self._kept) > KEPT_PAGES:
            self._kept.popitem(last=False)
        return drawn

    def _ask(self, request: dict[str, Any], what: str) -> dict[str, Any]:
        """The worker's reply; ``UndrawnPage`` saying what timed out or failed ("… while drawing page 3")."""
        try:
            return self._worker.draw(request, self._timeout_s, what)
        except Exception as err:  # crashed, over its memory cap, timed out, unreadable: said, never raised on
            raise UndrawnPage(str(err) or type(err).__name__) from err
