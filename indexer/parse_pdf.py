"""PDF text, page by page, extracted by pypdf in a guarded worker process.

pypdf is pure Python and robust, but a hostile or broken file can make it loop for minutes, recurse
without end or allocate gigabytes. So it runs in a separate process (``pdf_worker.py``) that streams pages
back: a page that takes longer than ``page_timeout_s`` or a worker that dies fails only that file, and the
next file gets a fresh worker. Running in its own process also lets parsing use the second core while the
embedding model runs in ours.
"""

from __future__ import annotations

import json
import os
import select
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from indexer.documents import Block, Document, SkipFile

_WORKER = Path(__file__).with_name("pdf_worker.py")


class PdfParseError(Exception):
    """The PDF could not be read (malformed, timed out, or the worker died); ``str()`` says why."""


class PdfExtractor:
    """Streams ``(page number, text)`` from a long-lived worker process. Not thread-safe: one per thread."""

    def __init__(self, *, page_timeout_s: float = 60.0) -> None:
        self._page_timeout_s = page_timeout_s
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [sys.executable, "-s", str(_WORKER)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                close_fds=True,
            )
            self._buffer = b""
        return self._proc

    def close(self) -> None:
        """Stop the worker (a new one starts on the next request)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()

    def _read(self, proc: subprocess.Popen[bytes], n: int, deadline: float) -> bytes:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while len(self._buffer) < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                raise TimeoutError
            piece = os.read(fd, max(65536, n - len(self._buffer)))
            if not piece:
                raise EOFError
            self._buffer += piece
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def _message(self, proc: subprocess.Popen[bytes], what: str) -> dict[str, Any]:
        deadline = time.monotonic() + self._page_timeout_s
        try:
            (size,) = struct.unpack(">I", self._read(proc, 4, deadline))
            message: dict[str, Any] = json.loads(self._read(proc, size, deadline))
            return message
        except TimeoutError:
            self.close()
            raise PdfParseError(f"the PDF reader timed out after {self._page_timeout_s:g} s {what}") from None
        except EOFError:
            code = proc.wait()
            self.close()
            raise PdfParseError(f"the PDF reader crashed {what} (exit code {code})") from None

    def pages(self, path: Path, notes: list[str]) -> Iterator[tuple[int, int, str]]:
        """``(page, page count, text)`` for each readable page. Unreadable pages are noted and skipped;
        ``SkipFile`` for encrypted files, ``PdfParseError`` when the file cannot be read at all."""
        proc = self._start()
        assert proc.stdin is not None
        try:
            proc.stdin.write(json.dumps({"path": str(path)}).encode() + b"\n")
            proc.stdin.flush()
        except OSError:
            self.close()
            raise PdfParseError("the PDF reader could not be started") from None
        count = 0
        where = "while opening the file"
        clean = False  # the worker finished this request and is ready for the next one
        try:
            while True:
                message = self._message(proc, where)
                kind = message["t"]
                if kind == "pages":
                    count = int(message["n"])
                elif kind == "page":
                    where = f"after page {message['i']}"
                    yield int(message["i"]), count, str(message["text"])
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


def parse_pdf(path: Path, extractor: PdfExtractor) -> Document:
    """A ``Document`` whose blocks are the PDF's pages, one block per page, streamed as they are read."""
    doc = Document(blocks=iter(()), kind="pdf")

    def blocks() -> Iterator[Block]:
        for page, count, text in extractor.pages(path, doc.notes):
            doc.pages = count
            if text.strip():
                yield Block(text, page=page)

    doc.blocks = blocks()
    return doc
