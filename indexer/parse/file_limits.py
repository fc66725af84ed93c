"""``FileBudget``: what one file may cost while it is parsed and chunked, so no file ties up indexing.

Three limits, from ``[indexer]`` in config.toml, checked by the reader thread as each chunk of a file is
made: its number of chunks (``max_file_chunks``), the time spent parsing and chunking it, not counting
waits for the embedder (``max_file_seconds``), and how far the process's memory grew since the file began
(``max_file_memory_mb``). A file over one of them is skipped with the reason (``SkipFile``), its chunks
are not kept, and its manifest record (size, time, hash) keeps it from being tried again until it changes.

The parser worker process (indexer/parse/worker.py) is held to the same memory limit while it parses (an
address-space cap on Linux, an RSS watchdog on every OS: ``memory_reason`` is what a file over it is
skipped with), and zip-based files to the ``max_zip_*`` limits before they are inflated
(indexer/parse/zip_guard.py).
"""

from __future__ import annotations

import time

import psutil

from indexer.parse.blocks import SkipFile

__all__ = ["WORKER_BASE_MB", "FileBudget", "FileTooCostly", "memory_reason"]

_MEMORY_EVERY = 32  # chunks between two looks at the process's memory (a look costs ~50 µs)
# What the parser worker needs itself (Python and its parsing libraries), on top of what a file may cost.
WORKER_BASE_MB = 256


class FileTooCostly(SkipFile):
    """A file over one of the per-file limits; ``str()`` says which."""


def memory_reason(megabytes: float) -> str:
    return f"reading it needed more than {megabytes:g} MB of memory (the limit is indexer.max_file_memory_mb)"


class FileBudget:
    def __init__(self, *, max_chunks: int, max_seconds: float, max_memory_mb: float) -> None:
        self.max_chunks = max_chunks
        self.max_seconds = max_seconds
        self.max_memory = int(max_memory_mb * 1024**2)
        self._process = psutil.Process()
        self._spent = 0.0
        self._since = 0.0
        self._rss0 = 0

    def _rss(self) -> int:
        try:
            return int(self._process.memory_info().rss)
        except psutil.Error:
            return self._rss0

    def start(self) -> None:
        """A new file begins (its clock runs from now)."""
        self._spent = 0.0
        self._since = time.monotonic()
        self._rss0 = self._rss()

    def pause(self) -> None:
        """The file's chunks go to the embedder: waiting for it does not count."""
        self._spent += time.monotonic() - self._since

    def resume(self) -> None:
        self._since = time.monotonic()

    def check(self, chunks: int) -> None:
        """Raise ``FileTooCostly`` once the file, at ``chunks`` chunks so far, is over a limit."""
        if chunks > self.max_chunks:
            raise FileTooCostly(f"more than {self.max_chunks} chunks (the limit is indexer.max_file_chunks)")
        spent = self._spent + time.monotonic() - self._since
        if spent > self.max_seconds:
            raise FileTooCostly(
                f"reading it took more than {self.max_seconds:g} s (the limit is indexer.max_file_seconds)"
            )
        if chunks % _MEMORY_EVERY == 0 and self._rss() - self._rss0 > self.max_memory:
            raise FileTooCostly(memory_reason(self.max_memory // 1024**2))
