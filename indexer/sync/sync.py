"""``Indexer``: keeps a collection in sync with its folders, incrementally and crash-safely.

One sync: compare the folders with the manifest (size and mtime; content hash for what changed), run the
pipeline over new and changed files (moved and copied files re-use their stored chunks and vectors), delete
what is gone, then refresh indexes and the routing synopsis (centroids and word counts). Its cost follows
what changed, not the size of the collection.

One writer at a time: a sync holds the collection's writer lease (``indexer.lease``) from start to end, in
this process and across processes and machines sharing the store; a second writer waits for it (bounded)
or gets ``CollectionBusyError`` naming the holder.

Crash safety: LanceDB commits are atomic; a file's old chunks are deleted before its new chunks are added,
and its manifest record is written only after them; a file's chunks are deleted before its record. A
writer that was killed never released its lease: the next sync takes it over only once it has expired
(never while that writer lives), and then recovers. Chunks without a manifest record are a killed
writer's unfinished files: those still in the folders are redone re-using the stored vectors of their
unchanged texts (embedded work is not repeated), the others are deleted; the synopsis is refitted, and
every file whose record does not match the disk is redone. So a sync after a kill -9 at any moment ends in
the same state as an uninterrupted one. The synopsis is kept by ``indexer.synopsis_upkeep``, the entity
index by ``indexer.entity_upkeep`` (both after the chunk writes, so a kill before them is repaired too).

Re-embedding (``reembed``, after a switch of the embedding model) is a full sync of the folders into new
tables beside the collection's current ones, which keep answering (for the old model) until the new ones
are complete and the collection switches to them in one commit. It resumes, like a sync, after a kill.

Pause and cancel: ``IndexControl``, checked between files and between batches. A cancelled sync keeps the
files it finished and nothing of the others, then raises ``Cancelled``.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from indexer.chunking import Chunker
from indexer.collection_tables import CollectionTables
from indexer.entity_upkeep import EntityUpkeep
from indexer.file_limits import FileBudget
from indexer.identity import EmbedderIdentity, identity_of
from indexer.lease import Lease
from indexer.manifest import FileRecord, plan_sync, scan_folders
from indexer.pipeline import BatchWriter, Done, Failure, Job, ProgressMeter, Reader, Segment, embed_window
from indexer.store import LanceStore
from indexer.synopsis import SynopsisState
from indexer.synopsis_upkeep import SynopsisUpkeep
from indexer.table_faults import lance_words as write_error
from indexer.zip_guard import ZipLimits
from kimas_desktop.config import IndexerConfig
from kimas_desktop.control import IndexControl
from kimas_desktop.errors import Cancelled, IndexingError
from kimas_desktop.protocols import Embedder
from kimas_desktop.types import FileProblem, IndexProgress, IndexReport

log = logging.getLogger(__name__)

_IDLE_S = 0.05  # how long the embedder waits for more texts before embedding a partial window

Progress = Callable[[IndexProgress], None] | None


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


@dataclass
class _Sync:
    """What one pass over the folders did."""

    records: list[FileRecord]  # the manifest now
    indexed: int
    deleted: int
    problems: list[FileProblem]  # folders not found, file names that are not UTF-8 (kind "skipped")
    writer: BatchWriter | None  # None when nothing had to be written
    cancelled: bool = False


class Indexer:
    """Indexes folders into collections of a ``LanceStore`` with one embedder.

    ``write_batch_rows``: chunks per LanceDB write. ``embed_window``: texts per embedding call (sorted by
    length inside the window). ``resync_share``: the routing synopsis is refitted from scratch once the
    chunks added or removed since the last fit exceed this share of the collection; below it the
    centroids are updated incrementally. ``lease_wait_s``: how long a sync waits for another writer of
    the same collection (None: the store's default).
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
        lease_wait_s: float | None = None,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._config = config
        self._batch_rows = write_batch_rows
        self._window = embed_window
        self._resync_share = resync_share
        self._pdf_timeout = pdf_page_timeout_s
        self._lease_wait = lease_wait_s
        self._identity: EmbedderIdentity | None = None
        self._synopses = SynopsisUpkeep(store, config.centroids)
        self._entities = EntityUpkeep(store) if config.entities else None
        self._locks: dict[str, threading.Lock] = defaultdict(threading.Lock)
        self._locks_guard = threading.Lock()

    def _lock(self, collection: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks[collection]

    def identity(self) -> EmbedderIdentity:
        """The embedder's identity (model id, dim, probe vectors), computed once."""
        if self._identity is None:
            self._identity = identity_of(self._embedder)
        return self._identity

    def remove(self, collection: str) -> None:
        """Delete the collection from the store (its files are untouched)."""
        with self._lock(collection), self._store.lease(collection, wait_s=self._lease_wait):
            self._store.remove_collection(collection)

    def index(
        self,
        collection: str,
        folders: Sequence[Path],
        on_progress: Progress = None,
        control: IndexControl | None = None,
    ) -> IndexReport:
        """Bring ``collection`` in line with ``folders``.

        Report counts: ``indexed`` files (re)indexed this sync (moved and copied files included),
        ``unchanged`` indexed files left alone, ``deleted`` files gone from the folders; ``skipped`` and
        ``failed`` count the files in the folders that are not in the index now, and ``problems`` says why
        (plus indexed files with unreadable pages). indexed + unchanged + skipped + failed = files found.
        ``EmbedderMismatchError`` when the collection needs re-embedding (``reembed``);
        ``CollectionBusyError`` when another writer holds it; ``Cancelled`` through ``control``.
        """
        with self._lock(collection), self._store.lease(collection, wait_s=self._lease_wait) as lease:
            start = time.monotonic()
            roots = _roots(folders)
            identity = self.identity()
            store = self._store
            store.open_collection(
                collection,
                embedding_model=identity.model_id,
                dim=identity.dim,
                folders=[str(r) for r in roots],
                probe=identity.probe,
            )
            repaired = store.repair_tables(collection)
            interrupted = repaired or lease.recovered or store.legacy_interrupted(collection)
            state = None if interrupted else store.synopsis_state(collection)
            tables = store.tables(collection)
            try:
                run = self._sync(
                    tables, roots, on_progress, control, lease, interrupted=interrupted, state=state
                )
                if run.writer is None:
                    self._synopses.repair(tables)
                else:
                    self._synopses.refresh(tables, run.writer.stats, state_known=state is not None)
                self._keep_entities(tables, lease)
                report = self._report(collection, run, start)
                files = sum(1 for r in run.records if r.status == "indexed")
                chunks = tables.count_chunks()
                recorded = store.collection(collection)
                if (
                    run.writer is not None
                    or interrupted
                    or (recorded.files, recorded.chunks) != (files, chunks)
                ):
                    lease.check()
                    store.finish_sync(collection, files=files, chunks=chunks, problems=report.problems)
            except (OSError, RuntimeError) as err:  # a failed write: the disk is full, a permission
                self._record_what_is_there(tables)
                raise IndexingError(
                    f"could not write the index of '{collection}': {write_error(err)}. What was written "
                    "is kept; once the cause is fixed, index again (kimas index, or Re-index) to complete it."
                ) from err
            if run.cancelled:
                raise Cancelled(f"indexing collection '{collection}' was cancelled")
            return report

    def _keep_entities(self, tables: CollectionTables, lease: Lease) -> None:
        """The entity index after a sync's writes (``indexer.entity_upkeep``), or none when switched off."""
        lease.check()
        if self._entities is None:
            self._store.drop_entities(tables.collection)
        else:
            self._entities.refresh(tables, check=lease.check)

    def _record_what_is_there(self, tables: CollectionTables) -> None:
        """Best effort after a failed write: the collection's counts as its tables hold them (the write
        may fail too, on a full disk; the unfinished-sync mark makes the next sync correct them anyway)."""
        try:
            files = sum(1 for r in tables.manifest().values() if r.status == "indexed")
            self._store.record_counts(tables.collection, files=files, chunks=tables.count_chunks())
        except Exception as err:
            log.warning(
                "could not record the counts of '%s' after a failed write: %s", tables.collection, err
            )

    def reembed(
        self,
        collection: str,
        folders: Sequence[Path] | None = None,
        on_progress: Progress = None,
        control: IndexControl | None = None,
    ) -> IndexReport:
        """Index ``collection`` again from its source files with this indexer's embedder, into new tables
        beside the current ones, and switch to them once complete (the current ones keep answering until
        then). ``folders``: default the collection's recorded folders. Resumes an unfinished re-embedding
        with the same embedder (after a kill or a cancel)."""
        with self._lock(collection), self._store.lease(collection, wait_s=self._lease_wait) as lease:
            start = time.monotonic()
            store = self._store
            info = store.collection(collection)
            roots = _roots(folders if folders is not None else [Path(f) for f in info.folders])
            tables, resumed = store.begin_rebuild(collection, self.identity())
            run = self._sync(tables, roots, on_progress, control, lease, interrupted=resumed, state=None)
            report = self._report(collection, run, start)
            if run.cancelled:
                raise Cancelled(f"re-embedding collection '{collection}' was cancelled")
            tables.refresh_indexes()
            state = self._synopses.refit(tables)
            lease.check()
            store.finish_rebuild(
                collection,
                state,
                files=sum(1 for r in run.records if r.status == "indexed"),
                chunks=tables.count_chunks(),
                problems=report.problems,
            )
            self._keep_entities(tables, lease)  # the chunks whose text changed (a new tokenizer cuts anew)
            return report

    def _sync(
        self,
        tables: CollectionTables,
        roots: Sequence[Path],
        on_progress: Progress,
        control: IndexControl | None,
        lease: Lease,
        *,
        interrupted: bool,
        state: SynopsisState | None,
    ) -> _Sync:
        """One pass: bring ``tables`` in line with ``roots``. ``interrupted``: a writer was killed
        mid-sync (recover what it left); ``state``: the synopsis, for an incremental update."""
        manifest = tables.manifest()
        files, missing, refused = scan_folders(roots)  # refused: names not UTF-8, links out
        plan = plan_sync(manifest, files, roots, missing)
        stale: set[str] = set()
        if interrupted:
            orphans = tables.sources() - {p for p, r in manifest.items() if r.chunks > 0}
            stale = orphans & {s.path for s in plan.changed}
            if orphans - stale:
                log.info("removing chunks of %d files left by an interrupted sync", len(orphans - stale))
                tables.delete_sources(sorted(orphans - stale))
        jobs = [
            Job(stat, manifest.get(stat.path), stale=stat.path in stale)
            for stat in sorted(plan.changed, key=lambda s: s.path)
        ]
        meter = ProgressMeter(tables.collection, jobs, on_progress)
        folder_problems = [
            FileProblem(
                str(m), "folder not found; its files stay in the collection until it is back", "failed"
            )
            for m in missing
        ] + refused
        if not jobs and not plan.vanished:
            meter.report(force=True, finished=True)
            return _Sync(plan.unchanged + plan.kept, 0, 0, folder_problems, None)
        self._store.mark_syncing(tables.collection)  # until finish_sync: a failed write is recovered

        total_before = sum(r.chunks for r in manifest.values())
        track_limit = int(self._resync_share * total_before) - (state.changes if state else 0)
        writer = BatchWriter(
            tables, batch_rows=self._batch_rows, track_limit=max(track_limit, 0), check=lease.check
        )
        writer.stats.track_vectors = state is not None and track_limit > 0
        vanished_paths = {r.path for r in plan.vanished}

        def on_file(path: str) -> None:
            meter.current = path

        reader = Reader(
            tables=tables,
            chunker=Chunker(
                self._embedder.count_tokens,
                chunk_tokens=self._config.chunk_tokens,
                overlap_tokens=self._config.overlap_tokens,
                max_tokens=self._embedder.max_tokens,
            ),
            max_file_mb=self._config.max_file_mb,
            budget=FileBudget(
                max_chunks=self._config.max_file_chunks,
                max_seconds=self._config.max_file_seconds,
                max_memory_mb=self._config.max_file_memory_mb,
            ),
            by_hash=_stored_by_hash(manifest, vanished_paths),
            pdf_page_timeout_s=self._pdf_timeout,
            on_file=on_file,
            control=control,
            zip_limits=ZipLimits(
                self._config.max_zip_member_mb, self._config.max_zip_inflated_mb, self._config.max_zip_ratio
            ),
        )
        results: list[Done] = []
        cancelled = False
        reader.start(jobs)
        try:
            self._consume(reader, writer, meter, results, control)
        except Cancelled:
            cancelled = True
            writer.abandon()
        finally:
            reader.join()

        if not cancelled:
            writer.delete([r.path for r in plan.vanished if r.chunks > 0])
        writer.flush()
        if not cancelled:
            tables.delete_files(sorted(vanished_paths))
        done = {d.job.path for d in results}
        records = [r for r in plan.unchanged + plan.kept if r.path not in done] + [d.record for d in results]
        if cancelled:  # files not reached keep their old records; those gone are not deleted yet
            records += [manifest[j.path] for j in jobs if j.path not in done and j.path in manifest]
            records += plan.vanished
        meter.report(force=True, finished=True)
        indexed = sum(1 for d in results if not d.touched and d.record.status == "indexed")
        deleted = 0 if cancelled else len(plan.vanished)
        return _Sync(records, indexed, deleted, folder_problems, writer, cancelled)

    def _consume(
        self,
        reader: Reader,
        writer: BatchWriter,
        meter: ProgressMeter,
        results: list[Done],
        control: IndexControl | None,
    ) -> None:
        """Embed and write what the reader produces, until it is done (``Cancelled`` through ``control``)."""
        inbox: list[Segment | Done] = []
        pending = 0  # texts in ``inbox`` still without a vector
        finished = False

        def drain() -> None:
            nonlocal pending
            if control is not None:
                control.checkpoint()
            segments = [i for i in inbox if isinstance(i, Segment)]
            embed_window(self._embedder, segments, control, reader.given_up)
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
            if finished or pending >= self._window or (pending == 0 and inbox):
                drain()

    @staticmethod
    def _report(collection: str, run: _Sync, start: float) -> IndexReport:
        records = run.records
        unchanged = sum(1 for r in records if r.status == "indexed") - run.indexed
        return IndexReport(
            collection=collection,
            indexed=run.indexed,
            unchanged=unchanged,
            deleted=run.deleted,
            skipped=sum(1 for r in records if r.status == "skipped")
            + sum(1 for p in run.problems if p.kind == "skipped"),
            failed=sum(1 for r in records if r.status == "failed"),
            chunks_added=0 if run.writer is None else run.writer.stats.rows,
            seconds=time.monotonic() - start,
            problems=tuple([*run.problems, *_problems(records)]),
        )


def _roots(folders: Sequence[Path]) -> list[Path]:
    return list(dict.fromkeys(Path(f).expanduser().resolve() for f in folders))
