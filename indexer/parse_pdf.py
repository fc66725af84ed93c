"""PDF text, page by page, extracted by pypdf in a guarded worker process.

pypdf is pure Python and robust, but a hostile or broken file can make it loop for minutes, recurse
without end or allocate gigabytes. So it runs in a separate process (``pdf_worker.py``) that streams pages
back: a page that takes longer than ``page_timeout_s`` or a worker that dies fails only that file, and the
next file gets a fresh worker. Running in its own process also lets parsing use the second core while the
embedding model runs in ours.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from indexer.documents import Block, Document, SkipFile, join_heading
from ipc.frames import pump_frames

_WORKER = Path(__file__).with_name("pdf_worker.py")


class PdfPage(NamedTuple):
    number: int  # 1-based
    of: int  # pages in the file
    text: str
    scan: bool = False  # (almost) no text layer, and an image: to be read by OCR


class Bookmark(NamedTuple):
    level: int  # 1 = top
    title: str
    page: int  # 1-based


class PdfParseError(Exception):
    """The PDF could not be read (malformed, timed out, or the worker died); ``str()`` says why."""


class _Worker:
    """One worker process, and a thread that reads its frames into a queue as fast as it writes them,
    so the worker never waits for the pipeline (pages are small; whole manuals fit in memory)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-s", str(_WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )
        self.frames: queue.Queue[dict[str, Any] | None] = queue.Queue()  # None: the worker is gone
        threading.Thread(target=self._pump, name="kimas-pdf-pump", daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        pump_frames(self.proc.stdout, self.frames)
        self.proc.stdout.close()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if self.proc.stdin is not None:
            self.proc.stdin.close()


class PdfExtractor:
    """Streams ``(page number, text)`` from a long-lived worker process. Not thread-safe: one per thread."""

    def __init__(self, *, page_timeout_s: float = 60.0) -> None:
        self._page_timeout_s = page_timeout_s
        self._worker: _Worker | None = None

    def close(self) -> None:
        """Stop the worker (a new one starts on the next request)."""
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.stop()

    def _message(self, worker: _Worker, what: str, timeout_s: float) -> dict[str, Any]:
        try:
            message = worker.frames.get(timeout=timeout_s)
        except queue.Empty:
            self.close()
            raise PdfParseError(f"the PDF reader timed out after {timeout_s:g} s {what}") from None
        if message is None:
            code = worker.proc.wait()
            self.close()
            raise PdfParseError(f"the PDF reader crashed {what} (exit code {code})")
        return message

    def pages(self, path: Path, notes: list[str], outline: list[Bookmark] | None = None) -> Iterator[PdfPage]:
        """The text layer of each readable page (``PdfPage``). Unreadable pages are noted and skipped;
        ``SkipFile`` for encrypted files, ``PdfParseError`` when the file cannot be read at all. The PDF's
        bookmarks go into ``outline`` before its first page."""
        return self._stream({"path": str(path)}, notes, self._page_timeout_s, outline)

    def recognize(self, path: Path, notes: list[str], pages: list[int] | None) -> Iterator[PdfPage]:
        """Like ``pages``, but the text is recognized (OCR) from the rendered ``pages`` of a PDF, or from
        every frame of an image file when ``pages`` is None. A page that fails or exceeds the time limit is
        noted and skipped."""
        request: dict[str, Any] = {"path": str(path), "timeout": self._page_timeout_s}
        if pages is None:
            request["image"] = True
        else:
            request["ocr"] = pages
        # The worker enforces the per-page OCR limit itself; rendering gets a little slack on top.
        return self._stream(request, notes, self._page_timeout_s + 30.0)

    def _stream(
        self,
        request: dict[str, Any],
        notes: list[str],
        timeout_s: float,
        outline: list[Bookmark] | None = None,
    ) -> Iterator[PdfPage]:
        if self._worker is None or not self._worker.alive():
            self.close()
            self._worker = _Worker()
        worker = self._worker
        assert worker.proc.stdin is not None
        try:
            worker.proc.stdin.write(json.dumps(request).encode() + b"\n")
            worker.proc.stdin.flush()
        except OSError:
            self.close()
            raise PdfParseError("the PDF reader could not be started") from None
        count = 0
        where = "while opening the file"
        clean = False  # the worker finished this request and is ready for the next one
        try:
            while True:
                message = self._message(worker, where, timeout_s)
                kind = message["t"]
                if kind == "pages":
                    count = int(message["n"])
                elif kind == "page":
                    where = f"after page {message['i']}"
                    yield PdfPage(int(message["i"]), count, str(message["text"]), bool(message.get("scan")))
                elif kind == "outline":
                    if outline is not None:
                        outline.extend(Bookmark(int(lv), str(t), int(p)) for lv, t, p in message["items"])
                elif kind == "page_error":
                    notes.append(f"page {message['i']}: {message['error']}")
                elif kind == "done":
                    clean = True
                    if count == 0:
                        raise SkipFile("the PDF has no pages")
                    return
                elif kind == "skip":
                    clean = True
                    raise SkipFile(str(message["reason"]))
                else:
                    clean = True
                    raise PdfParseError(str(message.get("error", "unreadable PDF")))
        finally:
            if not clean:  # abandoned mid-file: the worker would still be sending this file's pages
                self.close()


def parse_pdf(path: Path, extractor: PdfExtractor, *, ocr: bool) -> Document:
    """A ``Document`` whose blocks are the PDF's pages, one block per page, streamed as they are read.
    With ``ocr``, scanned pages (an image, and (almost) no text layer) are listed in ``ocr_pages`` for
    ``recognize_pages``."""
    doc = Document(blocks=iter(()), kind="pdf")

    def blocks() -> Iterator[Block]:
        marks: list[Bookmark] = []
        for page in extractor.pages(path, doc.notes, marks):
            doc.pages = page.of
            heading = heading_at(marks, page.number)
            if ocr and page.scan:
                doc.ocr_pages.append(page.number)
                if heading:
                    doc.page_headings[page.number] = heading
            if page.text.strip():  # a scan's few words of text layer (a stamp, a caption) are kept too
                yield Block(page.text, page=page.number, heading=heading)

    doc.blocks = blocks()
    return doc


def heading_at(marks: list[Bookmark], page: int) -> str:
    """The heading path a page is under: the bookmarks at or before it, by level ("Part I > Chapter 2")."""
    path: list[str] = []
    for mark in sorted(marks, key=lambda m: m.page):  # stable: the outline's order within a page
        if mark.page > page:
            continue
        path = [*path[: mark.level - 1], mark.title]
    return join_heading(path)


def recognize_pages(path: Path, doc: Document, extractor: PdfExtractor) -> Iterator[Block]:
    """The recognized text of ``doc.ocr_pages`` (all frames of an image file), one block per page."""
    pages = None if doc.kind == "image" else doc.ocr_pages
    for page in extractor.recognize(path, doc.notes, pages):
        doc.pages = page.of
        if page.text.strip():
            yield Block(page.text, page=page.number, heading=doc.page_headings.get(page.number, ""), ocr=True)
