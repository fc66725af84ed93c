"""The writer of a sync (``indexer.sync.ingest`` draws the whole flow): ``BatchWriter`` buffers chunks and
manifest records and writes them in batches, in the order that makes a sync crash-safe (a file's old
chunks deleted, its new ones added, and only then its manifest record); ``WriteStats`` says what it wrote.

A spreadsheet's or CSV's tables (``indexer.tables``) follow its chunks: the tables of deleted files are
forgotten with their chunks, and a read file's tables (none, when it was skipped) replace its old ones just
before its manifest record is written."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from indexer.chunking import chunk_id
from indexer.store.collection_tables import CollectionTables
from indexer.store.schema import StoredChunk
from indexer.sync.ingest_items import Done, Job, Segment
from indexer.sync.manifest import FileRecord
from indexer.tables import keeps_tables
from indexer.tables.shelf import LanceTableShelf, StoredTable
from indexer.upkeep.synopsis import count_terms
from kimas_desktop.protocols import Vector
from kimas_desktop.types import Chunk


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
        shelf: LanceTableShelf | None = None,
    ) -> None:
        self._tables = tables
        self._shelf = shelf
        self._shelved: dict[str, tuple[StoredTable, ...]] = {}  # table files read: their new tables
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
        self.touched: set[str] = set()  # sources whose chunks this sync deleted or wrote
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
        if not done.touched and keeps_tables(done.job.path):
            self._shelved[done.job.path] = done.tables if done.record.status == "indexed" else ()
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
        self._write_chunks()
        if self._shelf is not None:
            for path, stored in self._shelved.items():
                self._shelf.register(self._collection, path, stored)
        self._shelved.clear()
        if self._records:
            self._tables.put_files(self._records)
            self._records = []
        self._limit_tracking()

    def _write_chunks(self) -> None:
        if self._deletes:
            if self._shelf is not None:
                self._shelf.remove_sources(self._collection, sorted(filter(keeps_tables, self._deletes)))
            if self.stats.track_vectors:
                removed, texts = self._tables.vectors_and_texts(sorted(self._deletes))
                self.stats.removed_vectors.append(removed)
                self.stats.term_delta.subtract(count_terms(texts))
            self._tables.delete_sources(sorted(self._deletes))
            self.touched.update(self._deletes)
            self._deletes.clear()
        if self._forget:
            self._tables.delete_files(sorted(self._forget))
            self._forget.clear()
        if self._rows:
            self._tables.add_chunks(self._rows)
            self._written.update(r.chunk.source for r in self._rows)
            self.touched.update(r.chunk.source for r in self._rows)
            self.stats.rows += len(self._rows)
            if self.stats.track_vectors:
                self.stats.added_vectors.append(np.stack([np.asarray(r.vector) for r in self._rows]))
                self.stats.term_delta.update(count_terms(r.chunk.text for r in self._rows))
            self._rows = []

    def _limit_tracking(self) -> None:
        tracked = sum(len(v) for v in self.stats.added_vectors) + sum(
            len(v) for v in self.stats.removed_vectors
        )
        if tracked > self._track_limit:
            self.stats.track_vectors = False
            self.stats.added_vectors.clear()
            self.stats.removed_vectors.clear()
            self.stats.term_delta.clear()
