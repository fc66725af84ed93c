"""``Indexer``: keeps a collection in sync with its folders, incrementally and crash-safely.

One sync: compare the folders with the manifest (size and mtime; content hash for what changed), run the
pipeline over new and changed files (moved and copied files re-use their stored chunks and vectors), delete
what is gone, then refresh indexes and the routing synopsis (centroids and word counts). Its cost follows
what changed, not the size of the collection.

One writer at a time: a sync holds the collection's writer lease (``indexer.store.lease``) from start to end, in
this process and across processes and machines sharing the store; a second writer waits for it (bounded)
or gets ``CollectionBusyError`` naming the holder.

Crash safety: LanceDB commits are atomic; a file's old chunks are deleted before its new chunks are added,
and its manifest record is written only after them; a file's chunks are deleted before its record. A
writer that was killed never released its lease: the next sync takes it over only once it has expired
(never while that writer lives), and then recovers. Chunks without a manifest record are a killed
writer's unfinished files: those still in the folders are redone re-using the stored vectors of their
unchanged texts (embedded work is not repeated), the others are deleted; the synopsis is refitted, and
every file whose record does not match the disk is redone. So a sync after a kill -9 at any moment ends in
the same state as an uninterrupted one. The synopsis is kept by ``indexer.upkeep.synopsis_upkeep``, the entity
index by ``indexer.upkeep.entity_upkeep`` (both after the chunk writes, so a kill before them is repaired too).

Re-embedding (``reembed``, after a switch of the embedding model) is a full sync of the folders into new
tables beside the collection's current ones, which keep answering (for the old model) until the new ones
are complete and the collection switches to them in one commit. It resumes, like a sync, after a kill.

Pause and cancel: ``IndexControl``, checked between files and between batches. A cancelled sync keeps the
files it finished and nothing of the others, then raises ``Cancelled``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from indexer.store.collection_tables import CollectionTables
from indexer.store.identity import EmbedderIdentity, identity_of
from indexer.store.lance_store import LanceStore
from indexer.store.lease import Lease
from indexer.store.table_faults import lance_words as write_error
from indexer.sync.folder_pass import FolderPass, PassResult, Progress
from indexer.sync.manifest import FileRecord
from indexer.upkeep.entity_upkeep import EntityUpkeep
from indexer.upkeep.synopsis import SynopsisState
from indexer.upkeep.synopsis_upkeep import SynopsisUpkeep
from kimas_desktop.config import IndexerConfig
from kimas_desktop.control import IndexControl
from kimas_desktop.errors import Cancelled, IndexingError
from kimas_desktop.protocols import Embedder
from kimas_desktop.types import FileProblem, IndexReport

__all__ = ["Indexer"]

log = logging.getLogger(__name__)


def _problems(records: Sequence[FileRecord]) -> list[FileProblem]:
    out = []
    for r in sorted(records, key=lambda r: r.path):
        if r.status != "indexed":
            out.append(FileProblem(r.path, r.reason, "failed" if r.status == "failed" else "skipped"))
        elif r.reason:
            out.append(FileProblem(r.path, r.reason, "skipped"))
    return out


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
        self._pass = FolderPass(
            store,
            embedder,
            config,
            batch_rows=write_batch_rows,
            window=embed_window,
            resync_share=resync_share,
            pdf_page_timeout_s=pdf_page_timeout_s,
        )
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
            interrupted, state, tables = self._open(collection, roots, lease)
            try:
                run = self._pass.run(
                    tables, roots, on_progress, control, lease, interrupted=interrupted, state=state
                )
                report = self._settle(tables, run, lease, start, interrupted=interrupted, state=state)
            except (OSError, RuntimeError) as err:  # a failed write: the disk is full, a permission
                self._record_what_is_there(tables)
                raise IndexingError(
                    f"could not write the index of '{collection}': {write_error(err)}. What was written "
                    "is kept; once the cause is fixed, index again (kimas index, or Re-index) to complete it."
                ) from err
            if run.cancelled:
                raise Cancelled(f"indexing collection '{collection}' was cancelled")
            return report

    def _open(
        self, collection: str, roots: Sequence[Path], lease: Lease
    ) -> tuple[bool, SynopsisState | None, CollectionTables]:
        """Open (or create) the collection and repair its tables before a sync: whether a writer was
        interrupted, the synopsis for an incremental update (None then), and the tables."""
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
        return interrupted, state, store.tables(collection)

    def _settle(
        self,
        tables: CollectionTables,
        run: PassResult,
        lease: Lease,
        start: float,
        *,
        interrupted: bool,
        state: SynopsisState | None,
    ) -> IndexReport:
        """After a sync's pass: the full-text terms of a table made before them, the synopsis, the entity
        index and, when anything changed, the record."""
        collection = tables.collection
        if tables.ensure_terms(lease.check):
            log.info("collection '%s': full-text index rebuilt over words of every script", collection)
        if run.writer is None:
            self._synopses.repair(tables)
        else:
            self._synopses.refresh(tables, run.writer.stats, state_known=state is not None)
        changed = None if interrupted else (set() if run.writer is None else run.writer.touched)
        self._keep_entities(tables, lease, changed)
        report = self._report(collection, run, start)
        files = sum(1 for r in run.records if r.status == "indexed")
        chunks = tables.count_chunks()
        recorded = self._store.collection(collection)
        if run.writer is not None or interrupted or (recorded.files, recorded.chunks) != (files, chunks):
            lease.check()
            self._store.finish_sync(collection, files=files, chunks=chunks, problems=report.problems)
        return report

    def _keep_entities(self, tables: CollectionTables, lease: Lease, changed: set[str] | None = None) -> None:
        """The entity index after a sync's writes (``indexer.upkeep.entity_upkeep``), or none when switched
        off. ``changed``: the sources whose chunks this sync wrote or deleted (None: compare them all)."""
        lease.check()
        if self._entities is None:
            self._store.drop_entities(tables.collection)
        else:
            self._entities.refresh(tables, check=lease.check, changed=changed)

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
            run = self._pass.run(tables, roots, on_progress, control, lease, interrupted=resumed, state=None)
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

    @staticmethod
    def _report(collection: str, run: PassResult, start: float) -> IndexReport:
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
