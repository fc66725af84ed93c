"""The ingest pipeline of one sync: a reader thread that hashes, parses and chunks files, feeding the
calling thread, which embeds chunks in length-sorted windows and writes them in batches.

    reader thread:  stat → read + hash → (unchanged? moved? re-use stored vectors) → parse → chunk
                        │ Segment (a file's next chunks) … Done (its manifest record)
    caller thread:  embed the texts that have no vector yet (window sorted by length) → BatchWriter

``BatchWriter`` keeps the write order that makes a sync crash-safe: for each file, first delete its old
chunks, then add the new ones, and only then write its manifest record, in that order within each batch.
Before each batch it checks that the sync still holds the collection's writer lease. Both threads consult
an ``IndexControl`` (pause, cancel) between files and batches.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from indexer.chunking import ChunkDraft, Chunker, chunk_id
from indexer.collection_tables import CollectionTables
from indexer.documents import Block, Document, SkipFile
from indexer.manifest import FileRecord, FileStat
from indexer.parsers import FileParser
from indexer.schema import StoredChunk
from indexer.synopsis import count_terms
from kimas_desktop.errors import Cancelled
from kimas_desktop.index_control import IndexControl
from kimas_desktop.protocols import Embedder, Vector
from kimas_desktop.types import Chunk, IndexProgress

SEGMENT_CHUNKS = 32  # chunks per segment handed from the reader to the embedder


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass(frozen=True)
class Job:
    """One file to read this sync."""

    stat: FileStat
    previous: FileRecord | None  # its manifest record, if any
    stale: bool = False  # chunks without a record, left by a writer that was killed, may be stored

    @property
    def path(self) -> str:
        return self.stat.path

    @property
    def replaces(self) -> bool:
        """Whether chunks of an earlier version (or an unfinished sync) of this file may be stored; their
        vectors are re-used for unchanged texts."""
        return self.stale or (self.previous is not None and self.previous.chunks > 0)


@dataclass(eq=False)
class Segment:
    """The next chunks of a file; ``vectors[i]`` is None until embedded (or re-used from the store)."""

    job: Job
    drafts: list[ChunkDraft]
    vectors: list[Vector | None]
    file_hash: str
    progress: float  # share of the file read so far, for the ETA
    ocr_waiting: int = 0  # pages queued for OCR in this sync when the segment was read


@dataclass(frozen=True)
class Done:
    """A file is finished: its manifest record. ``touched``: same bytes as before, only the stat moved."""

    job: Job
    record: FileRecord
    touched: bool = False
    copied: bool = False


@dataclass(frozen=True)
class _Later:
    """A file with pages to read by OCR after all other files: what its first pass left."""

    job: Job
    path: Path
    doc: Document
    digest: str
    known: Mapping[str, Vector]
    count: int  # chunks from its text layer


@dataclass(frozen=True)
class Failure:
    error: BaseException


Item = Segment | Done | Failure


def _lower_priority() -> None:
    """Let the calling thread yield the CPU to the embedding model: on a laptop's few cores, reading runs
    in the gaps the model leaves instead of slowing it down (Linux sets priority per thread)."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)


class Reader:
    """Reads, hashes, parses and chunks ``jobs`` into a queue of ``Segment``/``Done`` items, on a thread.

    A file whose bytes match a stored file (moved or copied) gets that file's stored chunks and vectors,
    re-keyed to its new path, without parsing or embedding. A changed file re-uses the stored vectors of
    chunks whose text did not change.
    """

    def __init__(
        self,
        *,
        tables: CollectionTables,
        chunker: Chunker,
        max_file_mb: float,
        by_hash: Mapping[str, Sequence[FileRecord]],
        pdf_page_timeout_s: float,
        on_file: Callable[[str], None],
        control: IndexControl | None = None,
    ) -> None:
        self._tables = tables
        self._control = control
        self._chunker = chunker
        self._max_mb = max_file_mb
        self._by_hash = by_hash
        self._pdf_timeout = pdf_page_timeout_s
        self._on_file = on_file
        self.queue: queue.Queue[Item | None] = queue.Queue(maxsize=64)
        self.stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._later: list[_Later] = []  # OCR queues behind every file that needs none
        self.ocr_waiting = 0

    def start(self, jobs: Sequence[Job]) -> None:
        self._thread = threading.Thread(
            target=self._run, args=(list(jobs),), name="kimas-reader", daemon=True
        )
        self._thread.start()

    def join(self) -> None:
        self.stop.set()
        if self._thread is not None:
            while self._thread.is_alive():
                try:  # unblock a reader waiting on a full queue
                    while True:
                        self.queue.get_nowait()
                except queue.Empty:
                    pass
                self._thread.join(timeout=0.1)

    def _put(self, item: Item | None) -> None:
        while not self.stop.is_set():
            try:
                self.queue.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def _run(self, jobs: list[Job]) -> None:
        _lower_priority()
        parser = FileParser(pdf_page_timeout_s=self._pdf_timeout)
        try:
            for job in jobs:
                while self._control is not None and not self._control.wait(0.1):  # paused
                    if self.stop.is_set():
                        return
                if self.stop.is_set():
                    return
                if self._control is not None and self._control.cancelled:
                    raise Cancelled("indexing was cancelled")
                self._on_file(job.path)
                for item in self._read(job, parser):
                    self._put(item)
            for later in self._later:
                while self._control is not None and not self._control.wait(0.1):  # paused
                    if self.stop.is_set():
                        return
                if self.stop.is_set():
                    return
                if self._control is not None and self._control.cancelled:
                    raise Cancelled("indexing was cancelled")
                self._on_file(later.job.path)
                for item in self._recognize(later, parser):
                    self._put(item)
        except BaseException as err:  # anything unexpected ends the sync, reported on the caller's thread
            self._put(Failure(err))
        finally:
            parser.close()
            self._put(None)

    def _record(
        self, job: Job, status: str, reason: str, file_hash: str = "", chunks: int = 0, pages: int = 0
    ) -> FileRecord:
        return FileRecord(
            path=job.path,
            size=job.stat.size,
            mtime_ns=job.stat.mtime_ns,
            hash=file_hash,
            chunks=chunks,
            status=status,  # type: ignore[arg-type]
            reason=reason,
            pages=pages,
            indexed_at=time.time(),
        )

    def _read(self, job: Job, parser: FileParser) -> Iterator[Item]:
        path = Path(job.path)
        if job.stat.size > self._max_mb * 1024**2:
            reason = f"larger than the {self._max_mb:g} MB limit (max_file_mb)"
            yield Done(job, self._record(job, "skipped", reason))
            return
        try:
            data = path.read_bytes()
        except OSError as err:
            yield Done(job, self._record(job, "failed", f"cannot read the file: {err.strerror or err}"))
            return
        digest = content_hash(data)
        previous = job.previous
        if previous is not None and previous.hash == digest and previous.status != "failed":
            yield Done(job, replace(previous, size=job.stat.size, mtime_ns=job.stat.mtime_ns), touched=True)
            return
        copied = self._copy(job, digest)
        if copied is not None:
            yield from copied
            return
        yield from self._parse(job, path, data, digest, parser)

    def _copy(self, job: Job, digest: str) -> list[Item] | None:
        """Items re-using the stored chunks of a file with the same bytes (a move or a copy)."""
        for source in self._by_hash.get(digest, ()):
            stored = self._tables.stored_chunks([source.path])
            if len(stored) != source.chunks or not stored:
                continue
            drafts = [
                ChunkDraft(
                    ordinal=s.ordinal,
                    text=s.chunk.text,
                    tokens=0,
                    page=s.chunk.page,
                    line_start=s.chunk.line_start,
                    line_end=s.chunk.line_end,
                    heading=s.chunk.heading,
                    ocr=s.chunk.ocr,
                )
                for s in stored
            ]
            items: list[Item] = [
                Segment(
                    job,
                    drafts[i : i + SEGMENT_CHUNKS],
                    [s.vector for s in stored[i : i + SEGMENT_CHUNKS]],
                    digest,
                    1.0,
                )
                for i in range(0, len(drafts), SEGMENT_CHUNKS)
            ]
            record = self._record(job, "indexed", source.reason, digest, len(drafts), source.pages)
            items.append(Done(job, record, copied=True))
            return items
        return None

    def _parse(self, job: Job, path: Path, data: bytes, digest: str, parser: FileParser) -> Iterator[Item]:
        known: dict[str, Vector] = {}
        if job.replaces:
            known = {
                s.chunk.text: s.vector for s in self._tables.stored_chunks([job.path]) if s.vector is not None
            }
        count = 0
        try:
            doc = parser.parse(path, data)
            for segment in self._segments(job, doc, doc.blocks, known, digest, 0):
                count += len(segment.drafts)
                yield segment
        except SkipFile as skip:
            yield Done(job, self._record(job, "skipped", str(skip), digest))
            return
        except Exception as err:  # a file that breaks its parser fails alone
            reason = str(err) or type(err).__name__
            yield Done(job, self._record(job, "failed", reason, digest))
            return
        if doc.ocr_pages:
            self._later.append(_Later(job, path, doc, digest, known, count))
            self.ocr_waiting += len(doc.ocr_pages)
            yield Segment(job, [], [], digest, 1.0, self.ocr_waiting)  # only reports the OCR backlog
            return
        yield self._done(job, doc, digest, count, ocr=parser.ocr)

    def _recognize(self, later: _Later, parser: FileParser) -> Iterator[Item]:
        """The OCR pass of a file: chunks of its recognized pages, numbered after its text-layer chunks."""
        doc, count, left = later.doc, later.count, len(later.doc.ocr_pages)

        def counted(blocks: Iterator[Block]) -> Iterator[Block]:
            nonlocal left
            for block in blocks:
                if left > 0:
                    left -= 1
                    self.ocr_waiting -= 1
                yield block

        try:
            blocks = counted(parser.recognize(later.path, doc))
            for segment in self._segments(later.job, doc, blocks, later.known, later.digest, count):
                count += len(segment.drafts)
                yield segment
        except Exception as err:  # the text layer's chunks stay; the failure is noted
            self.ocr_waiting -= left
            if count == 0:  # nothing was readable: the file failed, like a broken PDF
                yield Done(
                    later.job, self._record(later.job, "failed", str(err) or type(err).__name__, later.digest)
                )
                return
            doc.notes.append(f"OCR: {err or type(err).__name__}")
            left = 0
        self.ocr_waiting -= left
        yield self._done(later.job, doc, later.digest, count, ocr=True)

    def _segments(
        self,
        job: Job,
        doc: Document,
        blocks: Iterator[Block],
        known: Mapping[str, Vector],
        digest: str,
        first: int,
    ) -> Iterator[Segment]:
        batch: list[ChunkDraft] = []
        for draft in self._chunker.chunks(blocks, first_ordinal=first):
            batch.append(draft)
            if len(batch) >= SEGMENT_CHUNKS:
                yield self._segment(job, batch, known, digest, doc.pages, draft.page, self.ocr_waiting)
                batch = []
        if batch:
            yield self._segment(job, batch, known, digest, doc.pages, None, self.ocr_waiting)

    def _done(self, job: Job, doc: Document, digest: str, count: int, *, ocr: bool) -> Done:
        if count == 0:
            reason = "no text to index"
            if doc.kind in ("pdf", "image") and doc.ocr_pages:
                reason = "no text found, not even by OCR" + (f" ({doc.notes[0]})" if doc.notes else "")
            elif doc.kind == "pdf":
                reason = "no extractable text (scanned or image-only?)"
                if not ocr:
                    reason += " Reading scanned pages needs Tesseract (package tesseract-ocr)."
            return Done(job, self._record(job, "skipped", reason, digest, pages=doc.pages))
        note = ""
        if doc.notes:
            note = f"indexed without {len(doc.notes)} unreadable page(s): " + "; ".join(doc.notes[:3])
        return Done(job, self._record(job, "indexed", note, digest, count, doc.pages))

    @staticmethod
    def _segment(
        job: Job,
        drafts: list[ChunkDraft],
        known: Mapping[str, Vector],
        digest: str,
        pages: int,
        page: int | None,
        ocr_waiting: int = 0,
    ) -> Segment:
        progress = (page / pages) if page and pages else 1.0
        return Segment(job, drafts, [known.get(d.text) for d in drafts], digest, progress, ocr_waiting)


@dataclass
class WriteStats:
    """What a sync wrote. While ``track_vectors`` holds (the changes are small enough for an incremental
    synopsis update), the vectors added and removed, and the word counts of the chunks added minus those
    of the chunks removed."""

    rows: int = 0
    added_vectors: list[Vector] = field(default_factory=list)
    removed_vectors: list[Vector] = field(default_factory=list)
    term_delta: Counter[str] = field(default_factory=Counter)
    track_vectors: bool = True  # keep vectors for an incremental synopsis update while it pays off


class BatchWriter:
    """Buffers chunks and manifest records and writes them in crash-safe order, in batches. ``check``
    runs before each batch's writes (it raises when the sync lost its writer lease)."""

    def __init__(
        self,
        tables: CollectionTables,
        *,
        batch_rows: int,
        track_limit: int,
        check: Callable[[], None] = lambda: None,
    ) -> None:
        self._tables = tables
        self._collection = tables.collection
        self._check = check
        self._batch_rows = batch_rows
        self._track_limit = track_limit
        self._rows: list[StoredChunk] = []
        self._records: list[FileRecord] = []
        self._deletes: set[str] = set()
        self._cleared: set[str] = set()  # sources whose old chunks are (being) deleted this sync
        self._written: set[str] = set()  # sources with chunks added this sync
        self._done: set[str] = set()  # files whose manifest record is (being) written
        self._forget: set[str] = set()  # manifest records to delete (files abandoned on a cancel)
        self.stats = WriteStats()

    def _clear(self, job: Job) -> None:
        if job.path not in self._cleared:
            self._cleared.add(job.path)
            if job.replaces:
                self._deletes.add(job.path)

    def add_segment(self, segment: Segment, now: float) -> None:
        self._clear(segment.job)
        for draft, vector in zip(segment.drafts, segment.vectors, strict=True):
            chunk = Chunk(
                chunk_id=chunk_id(self._collection, segment.job.path, draft.ordinal, draft.text),
                collection=self._collection,
                source=segment.job.path,
                text=draft.text,
                page=draft.page,
                line_start=draft.line_start,
                line_end=draft.line_end,
                heading=draft.heading,
                ocr=draft.ocr,
                file_hash=segment.file_hash,
                indexed_at=now,
            )
            self._rows.append(StoredChunk(chunk, draft.ordinal, vector))
        if len(self._rows) >= self._batch_rows:
            self.flush()

    def add_done(self, done: Done) -> None:
        if not done.touched:
            self._clear(done.job)
        self._done.add(done.job.path)
        if done.record.status != "indexed":
            path = done.job.path
            self._rows = [r for r in self._rows if r.chunk.source != path]
            if path in self._written:  # chunks written earlier in this sync, before the file failed
                self._deletes.add(path)
        self._records.append(done.record)

    def delete(self, sources: Sequence[str]) -> None:
        """Remove the chunks of files that are gone (written with the next flush, before its records)."""
        self._deletes.update(sources)

    def abandon(self) -> list[str]:
        """Forget the files this sync started but did not finish (a cancel): none of their chunks and no
        manifest record stay, so a later sync indexes them as new. Their paths; call ``flush`` next."""
        unfinished = sorted((self._cleared | self._written) - self._done)
        self._rows = [r for r in self._rows if r.chunk.source not in unfinished]
        self._deletes.update(unfinished)
        self._forget.update(unfinished)
        return unfinished

    def flush(self) -> None:
        if not (self._deletes or self._rows or self._records or self._forget):
            return
        self._check()
        if self._deletes:
            if self.stats.track_vectors:
                removed, texts = self._tables.vectors_and_texts(sorted(self._deletes))
                self.stats.removed_vectors.append(removed)
                self.stats.term_delta.subtract(count_terms(texts))
            self._tables.delete_sources(sorted(self._deletes))
            self._deletes.clear()
        if self._forget:
            self._tables.delete_files(sorted(self._forget))
            self._forget.clear()
        if self._rows:
            self._tables.add_chunks(self._rows)
            self._written.update(r.chunk.source for r in self._rows)
            self.stats.rows += len(self._rows)
            if self.stats.track_vectors:
                self.stats.added_vectors.append(np.stack([np.asarray(r.vector) for r in self._rows]))
                self.stats.term_delta.update(count_terms(r.chunk.text for r in self._rows))
            self._rows = []
        if self._records:
            self._tables.put_files(self._records)
            self._records = []
        tracked = sum(len(v) for v in self.stats.added_vectors) + sum(
            len(v) for v in self.stats.removed_vectors
        )
        if tracked > self._track_limit:
            self.stats.track_vectors = False
            self.stats.added_vectors.clear()
            self.stats.removed_vectors.clear()
            self.stats.term_delta.clear()


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


def embed_window(embedder: Embedder, segments: Sequence[Segment]) -> None:
    """Fill the missing vectors of ``segments`` in one call, texts sorted by length so each of the
    embedder's batches pads to similar lengths."""
    todo = [(s, i) for s in segments for i, v in enumerate(s.vectors) if v is None]
    if not todo:
        return
    todo.sort(key=lambda si: (si[0].drafts[si[1]].tokens, len(si[0].drafts[si[1]].text)))
    vectors = embedder.embed_passages([s.drafts[i].text for s, i in todo])
    for (segment, i), vector in zip(todo, vectors, strict=True):
        segment.vectors[i] = vector
