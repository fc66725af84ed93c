"""The ingest pipeline of one sync: a reader thread that hashes, parses and chunks files, feeding the
calling thread, which embeds chunks in length-sorted windows and writes them in batches.

    reader thread:  stat → read + hash → (unchanged? moved? re-use stored vectors) → parse → chunk
                        │ Segment (a file's next chunks) … Done (its manifest record)
    caller thread:  embed the texts that have no vector yet (window sorted by length) → BatchWriter

``BatchWriter`` keeps the write order that makes a sync crash-safe: for each file, first delete its old
chunks, then add the new ones, and only then write its manifest record, in that order within each batch.
Before each batch it checks that the sync still holds the collection's writer lease. Both threads consult
an ``IndexControl`` (pause, cancel) between files and batches.

By role: ``ingest_items`` (the values passed along), ``reader`` (the reader thread), ``batch_writer``
(the writes); here the caller's side: ``embed_and_write``, ``embed_window`` and the ``ProgressMeter``.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Container, Sequence

from indexer.sync.batch_writer import BatchWriter, WriteStats
from indexer.sync.ingest_items import Done, Failure, Item, Job, Segment, content_hash
from indexer.sync.reader import Reader
from kimas_desktop.control import IndexControl
from kimas_desktop.errors import Cancelled, IndexingError
from kimas_desktop.protocols import Embedder
from kimas_desktop.types import IndexProgress

__all__ = [
    "BatchWriter",
    "Done",
    "Failure",
    "Item",
    "Job",
    "ProgressMeter",
    "Reader",
    "Segment",
    "WriteStats",
    "content_hash",
    "embed_and_write",
    "embed_window",
]

_IDLE_S = 0.05  # how long the embedder waits for more texts before embedding a partial window


class ProgressMeter:
    """Turns pipeline events into ``IndexProgress`` reports, at most a few per second."""

    def __init__(
        self,
        collection: str,
        jobs: Sequence[Job],
        callback: Callable[[IndexProgress], None] | None,
        interval_s: float = 0.25,
    ) -> None:
        self._collection = collection
        self._callback = callback
        self._interval = interval_s
        self._total = len(jobs)
        self._bytes_total = sum(max(j.stat.size, 1) for j in jobs)
        self._start = time.monotonic()
        self._last = 0.0
        self.files_done = 0
        self.chunks_done = 0
        self._bytes_done = 0.0
        self._partial = 0.0
        self.current = ""
        self.ocr_waiting = 0  # pages queued for OCR, as of the last segment embedded

    def file_done(self, job: Job) -> None:
        self.files_done += 1
        self._bytes_done += max(job.stat.size, 1)
        self._partial = 0.0

    def embedded(self, segment: Segment) -> None:
        self.chunks_done += len(segment.drafts)
        self.ocr_waiting = segment.ocr_waiting
        self._partial = max(segment.job.stat.size, 1) * min(segment.progress, 1.0)

    def report(self, *, force: bool = False, finished: bool = False) -> None:
        if self._callback is None:
            return
        now = time.monotonic()
        if not force and now - self._last < self._interval:
            return
        self._last = now
        elapsed = max(now - self._start, 1e-6)
        done = self._bytes_done + self._partial
        eta = None if done <= 0 else max(0.0, elapsed * (self._bytes_total - done) / done)
        self._callback(
            IndexProgress(
                collection=self._collection,
                files_done=self.files_done,
                files_total=self._total,
                current_file=self.current,
                chunks_done=self.chunks_done,
                chunks_per_s=self.chunks_done / elapsed,
                eta_s=0.0 if finished else eta,
                finished=finished,
                ocr_pages_waiting=0 if finished else self.ocr_waiting,
            )
        )


EMBED_SLICE = 16  # texts per embedding call (the default batch): Cancel is honoured between two calls


def embed_window(
    embedder: Embedder,
    segments: Sequence[Segment],
    control: IndexControl | None = None,
    given_up: Container[str] = (),
) -> None:
    """Fill the missing vectors of ``segments``, texts sorted by length so each of the embedder's batches
    pads to similar lengths, in slices of ``EMBED_SLICE`` with ``control.checkpoint()`` between them.
    Texts of files in ``given_up`` (skipped meanwhile by the reader) are left without vectors."""
    todo = [(s, i) for s in segments for i, v in enumerate(s.vectors) if v is None]
    if not todo:
        return
    todo.sort(key=lambda si: (si[0].drafts[si[1]].tokens, len(si[0].drafts[si[1]].text)))
    for start in range(0, len(todo), EMBED_SLICE):
        if control is not None and start:
            control.checkpoint()
        part = [(s, i) for s, i in todo[start : start + EMBED_SLICE] if s.job.path not in given_up]
        if not part:
            continue
        vectors = embedder.embed_passages([s.drafts[i].text for s, i in part])
        for (segment, i), vector in zip(part, vectors, strict=True):
            segment.vectors[i] = vector


def embed_and_write(
    embedder: Embedder,
    window: int,
    reader: Reader,
    writer: BatchWriter,
    meter: ProgressMeter,
    results: list[Done],
    control: IndexControl | None,
) -> None:
    """Embed (``window`` texts at most per call of ``embed_window``) and write what the reader produces,
    until it is done (``Cancelled`` through ``control``); each file's ``Done`` is appended to ``results``."""
    inbox: list[Segment | Done] = []
    pending = 0  # texts in ``inbox`` still without a vector
    finished = False

    def drain() -> None:
        nonlocal pending
        if control is not None:
            control.checkpoint()
        segments = [i for i in inbox if isinstance(i, Segment)]
        embed_window(embedder, segments, control, reader.given_up)
        now = time.time()
        for item in inbox:
            if isinstance(item, Segment):
                if item.job.path in reader.given_up:
                    continue  # skipped while its chunks waited: nothing of it is embedded or written
                writer.add_segment(item, now)
                meter.embedded(item)
            else:
                writer.add_done(item)
                results.append(item)
                meter.file_done(item.job)
        inbox.clear()
        pending = 0
        meter.report()

    while not finished:
        try:
            item = reader.queue.get(timeout=_IDLE_S) if pending else reader.queue.get()
        except queue.Empty:
            drain()  # the reader is slower than the embedder: embed what we have
            continue
        if item is None:
            finished = True
        elif isinstance(item, Failure):
            if isinstance(item.error, Cancelled):
                raise item.error
            raise IndexingError(f"indexing stopped: {item.error}") from item.error
        else:
            inbox.append(item)
            if isinstance(item, Segment):
                pending += sum(1 for v in item.vectors if v is None)
        if finished or pending >= window or (pending == 0 and inbox):
            drain()
