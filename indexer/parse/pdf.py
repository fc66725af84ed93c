"""PDF text, page by page, extracted by pypdf in a guarded worker process.

pypdf is pure Python and robust, but a hostile or broken file can make it loop for minutes, recurse
without end or allocate gigabytes. So it runs in a separate process (``indexer.parse.worker``) that streams pages
back: a page that takes longer than ``page_timeout_s`` or a worker that dies fails only that file, and the
next file gets a fresh worker. Running in its own process also lets parsing use the second core while the
embedding model runs in ours.

The same worker parses every other format with a parser of its own (.docx, .pptx, .epub, .odt, .rtf, .eml:
``ParserWorker.blocks``), so no parser runs in the indexing process with unbounded memory. The worker's
memory is capped (``memory_mb``): by the OS on Linux, and on every OS by a watchdog thread here that kills
the worker once its resident memory passes the cap; the file is then skipped with that reason.
"""

from __future__ import annotations

import dataclasses
import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import psutil

from indexer.parse.blocks import Block, Document, SkipFile, join_heading
from indexer.parse.file_limits import WORKER_BASE_MB, FileTooCostly, memory_reason
from indexer.parse.zip_guard import ZipLimits
from ipc.frames import pump_frames

# Started by module name, with neither the working directory (-P) nor the user's site-packages (-s) on its
# path: a file path would put this folder first on it, where ``html.py`` is not the standard library's.
_WORKER = [sys.executable, "-s", "-P", "-m", "indexer.parse.worker"]
_WATCH_EVERY_S = 0.1


class PdfPage(NamedTuple):
    number: int  # 1-based
    of: int  # pages in the file
    text: str
    scan: bool = False  # (almost) no text layer, and an image: to be read by OCR


class Bookmark(NamedTuple):
    level: int  # 1 = top
    title: str
    page: int  # 1-based


class ParserWorkerError(Exception):
    """The PDF could not be read (malformed, timed out, or the worker died); ``str()`` says why."""


class _WorkerProcess:
    """One worker process, a thread that reads its frames into a queue as fast as it writes them, so the
    worker never waits for the pipeline (pages are small; whole manuals fit in memory), and a thread that
    watches its resident memory."""

    def __init__(self, memory_mb: float) -> None:
        self.memory_mb = memory_mb
        self.over_memory = False  # the watchdog killed it
        self.proc = subprocess.Popen(
            [*_WORKER, "--memory-mb", f"{memory_mb:g}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )
        self._gone = threading.Event()
        self.frames: queue.Queue[dict[str, Any] | None] = queue.Queue()  # None: the worker is gone
        threading.Thread(target=self._pump, name="kimas-parse-pump", daemon=True).start()
        threading.Thread(target=self._watch, name="kimas-parse-watch", daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        pump_frames(self.proc.stdout, self.frames)
        self.proc.stdout.close()
        self._gone.set()

    def _watch(self) -> None:
        """Kill the worker once its resident memory passes the cap: the only cap where the OS enforces
        none (macOS, Windows), and on Linux often the first to notice."""
        limit = (self.memory_mb + WORKER_BASE_MB) * 1024**2
        try:
            process = psutil.Process(self.proc.pid)
            while not self._gone.wait(_WATCH_EVERY_S):
                if process.memory_info().rss > limit:
                    self.over_memory = True
                    process.kill()
                    return
        except psutil.Error:  # it exited meanwhile
            return

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._gone.set()
        if self.proc.stdin is not None:
            self.proc.stdin.close()


class ParserWorker:
    """Streams ``(page number, text)`` from a long-lived worker process, and the blocks of the other
    formats it parses (``blocks``). Not thread-safe: one per thread. ``memory_mb``: what parsing one file
    may cost in the worker; ``zip_limits``: how far a zip-based file may inflate."""

    def __init__(
        self,
        *,
        page_timeout_s: float = 60.0,
        memory_mb: float = 1024.0,
        zip_limits: ZipLimits | None = None,
    ) -> None:
        self._page_timeout_s = page_timeout_s
        self._memory_mb = memory_mb
        self._zip_limits = zip_limits or ZipLimits()
        self._worker: _WorkerProcess | None = None

    def close(self) -> None:
        """Stop the worker (a new one starts on the next request)."""
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.stop()

    def _message(self, worker: _WorkerProcess, what: str, timeout_s: float) -> dict[str, Any]:
        try:
            message = worker.frames.get(timeout=timeout_s)
        except queue.Empty:
            self.close()
            raise ParserWorkerError(f"the parser timed out after {timeout_s:g} s {what}") from None
        if message is None:
            code = worker.proc.wait()
            self.close()
            if worker.over_memory:
                raise FileTooCostly(memory_reason(self._memory_mb))
            raise ParserWorkerError(f"the parser crashed {what} (exit code {code})")
        return message

    def pages(self, path: Path, notes: list[str], outline: list[Bookmark] | None = None) -> Iterator[PdfPage]:
        """The text layer of each readable page (``PdfPage``). Unreadable pages are noted and skipped;
        ``SkipFile`` for encrypted files, ``ParserWorkerError`` when the file cannot be read at all. The PDF's
        bookmarks go into ``outline`` before its first page."""
        return self._pages({"path": str(path)}, notes, self._page_timeout_s, outline)

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
        return self._pages(request, notes, self._page_timeout_s + 30.0)

    def blocks(self, path: Path) -> Iterator[Block]:
        """The blocks of a file whose format has a parser of its own (``indexer.parse.registry.read_blocks``),
        parsed in the worker; ``SkipFile`` with the reason for a zip bomb or a file over the memory cap.
        Each block must come within the page time limit."""
        request = {"path": str(path), "parse": True, "zip": dataclasses.asdict(self._zip_limits)}
        for message in self._stream(request, [], self._page_timeout_s):
            if message["t"] == "block":
                yield Block(
                    str(message["text"]),
                    page=message.get("page"),
                    line_start=message.get("line"),
                    heading=str(message.get("heading", "")),
                    table=tuple(tuple(str(c) for c in row) for row in message.get("table") or ()),
                )

    def draw(self, request: dict[str, Any], timeout_s: float, what: str = "drawing a page") -> dict[str, Any]:
        """The reply to a viewer's draw request (``indexer.parse.page_draw``), within ``timeout_s``; ``what``:
        the request in words, for its error ("the parser timed out after 10 s while drawing page 3")."""
        replies = [m for m in self._stream(request, [], timeout_s, where=f"while {what}") if m["t"] != "done"]
        return replies[0]

    def _pages(
        self,
        request: dict[str, Any],
        notes: list[str],
        timeout_s: float,
        outline: list[Bookmark] | None = None,
    ) -> Iterator[PdfPage]:
        count = 0
        for message in self._stream(request, notes, timeout_s, outline):
            if message["t"] == "pages":
                count = int(message["n"])
            elif message["t"] == "page":
                yield PdfPage(int(message["i"]), count, str(message["text"]), bool(message.get("scan")))
            elif count == 0:  # done
                raise SkipFile("the PDF has no pages")

    def _stream(
        self,
        request: dict[str, Any],
        notes: list[str],
        timeout_s: float,
        outline: list[Bookmark] | None = None,
        where: str = "while opening the file",
    ) -> Iterator[dict[str, Any]]:
        """The worker's "pages", "page", "block" and finally "done" messages for one request."""
        if self._worker is None or not self._worker.alive():
            self.close()
            self._worker = _WorkerProcess(self._memory_mb)
        worker = self._worker
        assert worker.proc.stdin is not None
        try:
            worker.proc.stdin.write(json.dumps(request).encode() + b"\n")
            worker.proc.stdin.flush()
        except OSError:
            self.close()
            raise ParserWorkerError("the parser worker could not be started") from None
        clean = False  # the worker finished this request and is ready for the next one
        try:
            while True:
                message = self._message(worker, where, timeout_s)
                kind = message["t"]
                if kind in ("pages", "page", "block", "drawn", "boxes"):
                    if kind == "page":
                        where = f"after page {message['i']}"
                    yield message
                elif kind == "outline":
                    if outline is not None:
                        outline.extend(Bookmark(int(lv), str(t), int(p)) for lv, t, p in message["items"])
                elif kind == "page_error":
                    notes.append(f"page {message['i']}: {message['error']}")
                elif kind == "done":
                    clean = True
                    yield message
                    return
                elif kind == "skip":
                    clean = True
                    raise SkipFile(str(message["reason"]))
                else:
                    clean = True
                    raise ParserWorkerError(str(message.get("error", "unreadable PDF")))
        finally:
            if not clean:  # abandoned mid-file: the worker would still be sending this file's pages
                self.close()


def parse_pdf(path: Path, extractor: ParserWorker, *, ocr: bool) -> Document:
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


def recognize_pages(path: Path, doc: Document, extractor: ParserWorker) -> Iterator[Block]:
    """The recognized text of ``doc.ocr_pages`` (all frames of an image file), one block per page."""
    pages = None if doc.kind == "image" else doc.ocr_pages
    for page in extractor.recognize(path, doc.notes, pages):
        doc.pages = page.of
        if page.text.strip():
            yield Block(page.text, page=page.number, heading=doc.page_headings.get(page.number, ""), ocr=True)
