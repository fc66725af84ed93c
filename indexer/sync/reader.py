"""The reader thread of a sync (``indexer.sync.ingest`` draws the whole flow): it stats, reads, hashes, parses
and chunks files into a queue of ``Segment``/``Done`` items, re-using stored vectors where it can, and
reads scanned pages by OCR after every file that needs none."""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from indexer.chunking import ChunkDraft, Chunker
from indexer.parse.blocks import Block, Document, SkipFile
from indexer.parse.file_limits import FileBudget
from indexer.parse.registry import FileParser
from indexer.parse.zip_guard import ZipLimits
from indexer.store.collection_tables import CollectionTables
from indexer.sync.ingest_items import Done, Failure, Item, Job, Segment, content_hash
from indexer.sync.manifest import FileRecord, lacks_card
from indexer.tables import is_table_file, keeps_tables
from indexer.tables.documents import DocumentTables
from indexer.tables.ingest import TableReader, card_with_tables
from indexer.tables.shelf import StoredTable
from indexer.upkeep.cards import CardBuilder, card_json
from kimas_desktop.control import IndexControl
from kimas_desktop.errors import Cancelled
from kimas_desktop.protocols import Vector

Shelve = Callable[[], tuple[StoredTable, ...]]  # stores a file's tables; what it stored, to register
SEGMENT_CHUNKS = 32  # chunks per segment handed from the reader to the embedder


@dataclass(frozen=True)
class _Later:
    """A file with pages to read by OCR after all other files: what its first pass left."""

    job: Job
    path: Path
    doc: Document
    digest: str
    known: Mapping[str, Vector]
    count: int  # chunks from its text layer
    card: CardBuilder


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
        budget: FileBudget,
        by_hash: Mapping[str, Sequence[FileRecord]],
        pdf_page_timeout_s: float,
        on_file: Callable[[str], None],
        control: IndexControl | None = None,
        zip_limits: ZipLimits | None = None,
        table_reader: TableReader | None = None,
    ) -> None:
        self._tables = tables
        self._table_reader = table_reader  # spreadsheets and CSVs, read as tables (None: not read)
        self._control = control
        self._chunker = chunker
        self._max_mb = max_file_mb
        self._budget = budget
        self._by_hash = by_hash
        self._pdf_timeout = pdf_page_timeout_s
        self._zip_limits = zip_limits
        self._on_file = on_file
        self.queue: queue.Queue[Item | None] = queue.Queue(maxsize=64)
        self.stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._later: list[_Later] = []  # OCR queues behind every file that needs none
        # Files skipped or failed after some of their chunks were queued: the embedder drops those chunks
        # instead of embedding them (a file over max_file_chunks costs no embedding).
        self.given_up: set[str] = set()
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
        parser = FileParser(
            pdf_page_timeout_s=self._pdf_timeout,
            memory_mb=self._budget.max_memory / 1024**2,
            zip_limits=self._zip_limits,
        )
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
        self,
        job: Job,
        status: str,
        reason: str,
        file_hash: str = "",
        chunks: int = 0,
        pages: int = 0,
        card: str | None = None,
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
            card=card,
        )

    def _read(self, job: Job, parser: FileParser) -> Iterator[Item]:
        self._budget.start()
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
        if (
            previous is not None
            and previous.hash == digest
            and previous.status != "failed"
            and not lacks_card(previous)
        ):
            yield Done(job, replace(previous, size=job.stat.size, mtime_ns=job.stat.mtime_ns), touched=True)
            return
        copied = None if keeps_tables(job.path) else self._copy(job, digest)  # a table is stored again
        if copied is not None:
            yield from copied
            return
        yield from self._parse(job, path, data, digest, parser)

    def _copy(self, job: Job, digest: str) -> list[Item] | None:
        """Items re-using the stored chunks of a file with the same bytes (a move or a copy)."""
        for source in self._by_hash.get(digest, ()):
            if lacks_card(source):
                continue
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
            record = self._record(
                job, "indexed", source.reason, digest, len(drafts), source.pages, source.card
            )
            items.append(Done(job, record, copied=True))
            return items
        return None

    def _known(self, job: Job, digest: str) -> dict[str, Vector]:
        """Stored vectors by chunk text, to re-use: the file's own, or those of a table file with the same
        bytes (a moved or copied table file is read again, for its tables, but not embedded again)."""
        sources = [job.path] if job.replaces else []
        if not sources and keeps_tables(job.path):
            sources = [r.path for r in self._by_hash.get(digest, ())][:1]
        if not sources:
            return {}
        return {s.chunk.text: s.vector for s in self._tables.stored_chunks(sources) if s.vector is not None}

    def _open(self, path: Path, data: bytes, parser: FileParser) -> tuple[Document, Shelve]:
        """The file parsed; a table file is read as tables (their rows stored, to be registered), and the
        tables inside a document are stored once its blocks are read (``shelve``)."""
        reader = self._table_reader
        if reader is None or not is_table_file(path):
            doc = parser.parse(path, data)
            if reader is None or not keeps_tables(path):
                return doc, lambda: ()
            inside = DocumentTables()
            doc.blocks = inside.watch(doc.blocks)
            return doc, lambda: reader.read_document(path, inside.found, self._check_stop)
        found = reader.read(path, data, self._check_stop)
        return Document(found.blocks, "table", notes=list(found.notes)), lambda: found.stored

    def _parse(self, job: Job, path: Path, data: bytes, digest: str, parser: FileParser) -> Iterator[Item]:
        known = self._known(job, digest)
        count = 0
        card = CardBuilder(job.path)
        try:
            doc, shelve = self._open(path, data, parser)
            for segment in self._segments(job, doc, doc.blocks, known, digest, 0, card):
                count += len(segment.drafts)
                yield segment
            stored = shelve()
        except Cancelled:
            raise
        except SkipFile as skip:
            self.given_up.add(job.path)
            yield Done(job, self._record(job, "skipped", str(skip), digest))
            return
        except Exception as err:  # a file that breaks its parser fails alone
            self.given_up.add(job.path)
            reason = str(err) or type(err).__name__
            yield Done(job, self._record(job, "failed", reason, digest))
            return
        if doc.ocr_pages:
            self._later.append(_Later(job, path, doc, digest, known, count, card))
            self.ocr_waiting += len(doc.ocr_pages)
            yield Segment(job, [], [], digest, 1.0, self.ocr_waiting)  # only reports the OCR backlog
            return
        done = self._done(job, doc, digest, count, card, ocr=parser.ocr)
        if keeps_tables(job.path) and done.record.card is not None:
            record = replace(done.record, card=card_with_tables(done.record.card, stored))
            done = replace(done, record=record, tables=stored)
        yield done

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

        self._budget.start()
        try:
            blocks = counted(parser.recognize(later.path, doc))
            for segment in self._segments(
                later.job, doc, blocks, later.known, later.digest, count, later.card
            ):
                count += len(segment.drafts)
                yield segment
        except Cancelled:
            raise
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
        yield self._done(later.job, doc, later.digest, count, later.card, ocr=True)

    def _segments(
        self,
        job: Job,
        doc: Document,
        blocks: Iterator[Block],
        known: Mapping[str, Vector],
        digest: str,
        first: int,
        card: CardBuilder,
    ) -> Iterator[Segment]:
        batch: list[ChunkDraft] = []
        for draft in self._chunker.chunks(blocks, first_ordinal=first):
            self._check_stop()
            self._budget.check(draft.ordinal + 1)
            batch.append(draft)
            card.add(draft)
            if len(batch) >= SEGMENT_CHUNKS:
                self._budget.pause()
                yield self._segment(job, batch, known, digest, doc.pages, draft.page, self.ocr_waiting)
                self._budget.resume()
                batch = []
        if batch:
            yield self._segment(job, batch, known, digest, doc.pages, None, self.ocr_waiting)

    def _check_stop(self) -> None:
        """Inside a file too: Cancel and Remove must not wait for a long file to end."""
        if self.stop.is_set() or (self._control is not None and self._control.cancelled):
            raise Cancelled("indexing was cancelled")

    def _done(
        self, job: Job, doc: Document, digest: str, count: int, card: CardBuilder, *, ocr: bool
    ) -> Done:
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
        if doc.kind == "table":
            note = "; ".join(doc.notes)
        elif doc.notes:
            note = f"indexed without {len(doc.notes)} unreadable page(s): " + "; ".join(doc.notes[:3])
        record = self._record(job, "indexed", note, digest, count, doc.pages, card_json(card.card()))
        return Done(job, record)

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
