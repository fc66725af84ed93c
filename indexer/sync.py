"""``Indexer``: keeps a collection in sync with its folders, incrementally and crash-safely.

One sync: compare the folders with the manifest (size and mtime; content hash for what changed), run the
pipeline over new and changed files (moved and copied files re-use their stored chunks and vectors), delete
what is gone, then refresh indexes and the routing synopsis (centroids and word counts). Its cost follows
what changed, not the size of the collection.

Crash safety: LanceDB commits are atomic; a file's old chunks are deleted before its new chunks are added,
and its manifest record is written only after them; a file's chunks are deleted before its record. A
"syncing" flag marks a sync under way: after a crash the next sync deletes chunks whose source has no
manifest record (orphans) and refits the synopsis, and every file whose record does not match the disk is
redone. So a sync after a kill -9 at any moment ends in the same state as an uninterrupted one. The word
counts follow the centroids: updated by the changes of a sync while its vectors are tracked, counted from
every chunk text whenever the centroids are refitted (so also after a crash), and counted once for a
collection indexed by a version without them, on its next sync.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from indexer.chunking import Chunker
from indexer.manifest import FileRecord, plan_sync, scan_folders
from indexer.pipeline import BatchWriter, Done, Failure, Job, ProgressMeter, Reader, Segment, embed_window
from indexer.store import LanceStore
from indexer.synopsis import SynopsisState, count_terms, fit, update, update_terms
from kimas_desktop.config import IndexerConfig
from kimas_desktop.errors import IndexingError
from kimas_desktop.protocols import Embedder
from kimas_desktop.types import FileProblem, IndexProgress, IndexReport

log = logging.getLogger(__name__)

_IDLE_S = 0.05  # how long the embedder waits for more texts before embedding a partial window


def _problems(records: Sequence[FileRecord]) -> list[FileProblem]:
    out = []
    for r in sorted(records, key=lambda r: r.path):
        if r.status != "indexed":
            out.append(FileProblem(r.path, r.reason, "failed" if r.status == "failed" else "skipped"))
        elif r.reason:
            out.append(FileProblem(r.path, r.reason, "skipped"))
    return out


def _stored_by_hash(manifest: Mapping[str, FileRecord], vanished: set[str]) -> dict[str, list[FileRecord]]:
    """Indexed files by content hash, files that are gone first: a new file with one of these hashes is a
    move or a copy, and takes the stored chunks instead of being parsed and embedded again."""
    by_hash: dict[str, list[FileRecord]] = defaultdict(list)
    for record in sorted(manifest.values(), key=lambda r: (r.path not in vanished, r.path)):
        if record.status == "indexed" and record.chunks > 0 and record.hash:
            by_hash[record.hash].append(record)
    return by_hash


class Indexer:
    """Indexes folders into collections of a ``LanceStore`` with one embedder.

    ``write_batch_rows``: chunks per LanceDB write. ``embed_window``: texts per embedding call (sorted by
    length inside the window). ``resync_share``: the routing synopsis is refitted from scratch once the
    chunks added or removed since the last fit exceed this share of the collection; below it the
    centroids are updated incrementally.
    """

    def __init__(
        self,
        store: LanceStore,
        embedder: Embedder,
        config: IndexerConfig,
        *,
        write_batch_rows: int = 2048,
        embed_window: int = 256,
        resync_share: float = 0.2,
        pdf_page_timeout_s: float = 60.0,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._config = config
        self._batch_rows = write_batch_rows
        self._window = embed_window
        self._resync_share = resync_share
        self._pdf_timeout = pdf_page_timeout_s
        self._locks: dict[str, threading.Lock] = defaultdict(threading.Lock)
        self._locks_guard = threading.Lock()

    def _lock(self, collection: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks[collection]

    def remove(self, collection: str) -> None:
        """Delete the collection from the store (its files are untouched)."""
        with self._lock(collection):
            self._store.remove_collection(collection)

    def index(
        self,
        collection: str,
        folders: Sequence[Path],
        on_progress: Callable[[IndexProgress], None] | None = None,
    ) -> IndexReport:
        """Bring ``collection`` in line with ``folders``.

        Report counts: ``indexed`` files (re)indexed this sync (moved and copied files included),
        ``unchanged`` indexed files left alone, ``deleted`` files gone from the folders; ``skipped`` and
        ``failed`` count the files in the folders that are not in the index now, and ``problems`` says why
        (plus indexed files with unreadable pages). indexed + unchanged + skipped + failed = files found.
        """
        with self._lock(collection):
            return self._index(collection, folders, on_progress)

    def _index(
        self, collection: str, folders: Sequence[Path], on_progress: Callable[[IndexProgress], None] | None
    ) -> IndexReport:
        start = time.monotonic()
        roots = list(dict.fromkeys(Path(f).expanduser().resolve() for f in folders))
        store = self._store
        store.open_collection(
            collection,
            embedding_model=self._embedder.model_id,
            dim=self._embedder.dim,
            folders=[str(r) for r in roots],
        )
        interrupted = store.was_interrupted(collection)
        manifest = store.manifest(collection)
        files, missing = scan_folders(roots)
        plan = plan_sync(manifest, files, roots, missing)
        jobs = [Job(stat, manifest.get(stat.path)) for stat in sorted(plan.changed, key=lambda s: s.path)]
        meter = ProgressMeter(collection, jobs, on_progress)
        folder_problems = [
            FileProblem(
                str(m), "folder not found; its files stay in the collection until it is back", "failed"
            )
            for m in missing
        ]
        if not jobs and not plan.vanished and not interrupted:
            self._repair_synopsis(collection)
            records = plan.unchanged + plan.kept
            meter.report(force=True, finished=True)
            return self._report(collection, records, start, folder_problems, indexed=0, deleted=0, chunks=0)

        store.begin_sync(collection)
        if interrupted:
            self._sweep_orphans(collection, manifest)

        state = None if interrupted else store.synopsis_state(collection)
        total_before = sum(r.chunks for r in manifest.values())
        track_limit = int(self._resync_share * total_before) - (state.changes if state else 0)
        writer = BatchWriter(store, collection, batch_rows=self._batch_rows, track_limit=max(track_limit, 0))
        writer.stats.track_vectors = state is not None and track_limit > 0

        vanished_paths = {r.path for r in plan.vanished}

        def on_file(path: str) -> None:
            meter.current = path

        reader = Reader(
            collection=collection,
            store=store,
            chunker=Chunker(
                self._embedder.count_tokens,
                chunk_tokens=self._config.chunk_tokens,
                overlap_tokens=self._config.overlap_tokens,
                max_tokens=self._embedder.max_tokens,
            ),
            max_file_mb=self._config.max_file_mb,
            by_hash=_stored_by_hash(manifest, vanished_paths),
            pdf_page_timeout_s=self._pdf_timeout,
            on_file=on_file,
        )
        results: list[Done] = []
        reader.start(jobs)
        try:
            self._consume(reader, writer, meter, results)
        finally:
            reader.join()

        writer.delete([r.path for r in plan.vanished if r.chunks > 0])
        writer.flush()
        store.delete_files(collection, sorted(vanished_paths))

        records = plan.unchanged + plan.kept + [d.record for d in results]
        self._refresh(collection, writer, state_known=state is not None)
        meter.report(force=True, finished=True)
        indexed = sum(1 for d in results if not d.touched and d.record.status == "indexed")
        report = self._report(
            collection,
            records,
            start,
            folder_problems,
            indexed=indexed,
            deleted=len(plan.vanished),
            chunks=writer.stats.rows,
        )
        store.finish_sync(
            collection,
            files=sum(1 for r in records if r.status == "indexed"),
            chunks=store.count_chunks(collection),
            problems=report.problems,
        )
        return report

    def _sweep_orphans(self, collection: str, manifest: Mapping[str, FileRecord]) -> None:
        """Delete chunks whose file has no manifest record: written by a sync killed before the record."""
        keep = {p for p, r in manifest.items() if r.chunks > 0}
        orphans = self._store.sources(collection) - keep
        if orphans:
            log.info("removing chunks of %d files left by an interrupted sync", len(orphans))
            self._store.delete_sources(collection, sorted(orphans))

    def _consume(
        self, reader: Reader, writer: BatchWriter, meter: ProgressMeter, results: list[Done]
    ) -> None:
        """Embed and write what the reader produces, until it is done."""
        inbox: list[Segment | Done] = []
        pending = 0  # texts in ``inbox`` still without a vector
        finished = False

        def drain() -> None:
            nonlocal pending
            segments = [i for i in inbox if isinstance(i, Segment)]
            embed_window(self._embedder, segments)
            now = time.time()
            for item in inbox:
                if isinstance(item, Segment):
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
                raise IndexingError(f"indexing stopped: {item.error}") from item.error
            else:
                inbox.append(item)
                if isinstance(item, Segment):
                    pending += sum(1 for v in item.vectors if v is None)
            if finished or pending >= self._window or (pending == 0 and inbox):
                drain()

    def _refit(self, collection: str) -> SynopsisState:
        """The synopsis from scratch: k-means over every stored vector, word counts over every text."""
        vectors, texts = self._store.vectors_and_texts(collection)
        return replace(fit(vectors, self._config.centroids), terms=count_terms(texts))

    def _repair_synopsis(self, collection: str) -> None:
        """On a sync with no changes: a config with another ``indexer.centroids`` takes effect, and a
        collection indexed without word counts gets them."""
        state = self._store.synopsis_state(collection)
        if state is None:
            return
        if len(state.centroids) != min(self._config.centroids, state.total):
            self._store.put_synopsis(collection, self._refit(collection))
        elif state.terms is None:
            terms = count_terms(self._store.texts(collection))
            self._store.put_synopsis(collection, replace(state, terms=terms))

    def _refresh(self, collection: str, writer: BatchWriter, *, state_known: bool) -> None:
        """Indexes and the routing synopsis after a sync's writes: an incremental update of the centroids
        and word counts while the changes are small, else a refit from every stored chunk."""
        store = self._store
        store.refresh_indexes(collection)
        stats = writer.stats
        state = store.synopsis_state(collection) if state_known else None
        if state is not None and len(state.centroids) != min(self._config.centroids, state.total):
            state = None  # indexer.centroids changed in the config: refit with the new k
        if state is not None and stats.track_vectors:
            dim = self._embedder.dim
            empty = np.zeros((0, dim), np.float32)
            added = np.concatenate(stats.added_vectors) if stats.added_vectors else empty
            removed = np.concatenate(stats.removed_vectors) if stats.removed_vectors else empty
            if not len(added) and not len(removed) and state.terms is not None:
                return
            new = update(state, added, removed)
            if int((new.counts > 0).sum()) >= min(self._config.centroids, new.total):  # no cluster emptied
                terms = None if state.terms is None else update_terms(state.terms, stats.term_delta)
                if terms is None:  # indexed by a version without word counts, or they do not add up
                    log.info("counting the words of collection '%s' from scratch", collection)
                    terms = count_terms(store.texts(collection))
                store.put_synopsis(collection, replace(new, terms=terms))
                return
        store.put_synopsis(collection, self._refit(collection))

    def _report(
        self,
        collection: str,
        records: Sequence[FileRecord],
        start: float,
        extra: Sequence[FileProblem],
        *,
        indexed: int,
        deleted: int,
        chunks: int,
    ) -> IndexReport:
        unchanged = sum(1 for r in records if r.status == "indexed") - indexed
        return IndexReport(
            collection=collection,
            indexed=indexed,
            unchanged=unchanged,
            deleted=deleted,
            skipped=sum(1 for r in records if r.status == "skipped"),
            failed=sum(1 for r in records if r.status == "failed"),
            chunks_added=chunks,
            seconds=time.monotonic() - start,
            problems=tuple([*extra, *_problems(records)]),
        )
