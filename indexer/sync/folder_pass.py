"""``FolderPass``: one pass of a sync over a collection's folders, for ``Indexer``.

It compares the folders with the manifest (``plan_sync``), recovers what a killed writer left (chunks
without a manifest record: those of files still in the folders are redone re-using their stored vectors,
the others are deleted), runs the ingest pipeline (``indexer.sync.ingest``) over new and changed files
(moved and copied files re-use their stored chunks and vectors), and deletes what is gone. Its result is a
``PassResult``; the synopsis, the entity index and the collection's record are the caller's.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from indexer.chunking import Chunker, measure
from indexer.parse.file_limits import FileBudget
from indexer.parse.zip_guard import ZipLimits
from indexer.store.collection_tables import CollectionTables
from indexer.store.lance_store import LanceStore
from indexer.store.lease import Lease
from indexer.sync.ingest import (
    BatchWriter,
    Done,
    Job,
    ProgressMeter,
    Reader,
    embed_and_write,
)
from indexer.sync.manifest import FileRecord, SyncPlan, plan_sync, scan_folders
from indexer.tables.ingest import TableReader
from indexer.upkeep.synopsis import SynopsisState
from kimas_desktop.config import IndexerConfig
from kimas_desktop.control import IndexControl
from kimas_desktop.errors import Cancelled
from kimas_desktop.protocols import Embedder
from kimas_desktop.types import FileProblem, IndexProgress

__all__ = ["FolderPass", "PassResult", "stored_by_hash"]

log = logging.getLogger(__name__)

Progress = Callable[[IndexProgress], None] | None
# Characters of a spreadsheet's or CSV's rows indexed as text (all its rows are kept as tables): about a
# quarter of what max_file_chunks allows, so a large table is never skipped for its text.
MAX_TABLE_TEXT = 2_000_000


@dataclass(frozen=True)
class PassResult:
    """What one pass over the folders did."""

    records: list[FileRecord]  # the manifest now
    indexed: int
    deleted: int
    problems: list[FileProblem]  # folders not found, file names that are not UTF-8 (kind "skipped")
    writer: BatchWriter | None  # None when nothing had to be written
    cancelled: bool = False


def stored_by_hash(manifest: Mapping[str, FileRecord], vanished: set[str]) -> dict[str, list[FileRecord]]:
    """Indexed files by content hash, files that are gone first: a new file with one of these hashes is a
    move or a copy, and takes the stored chunks instead of being parsed and embedded again."""
    by_hash: dict[str, list[FileRecord]] = defaultdict(list)
    for record in sorted(manifest.values(), key=lambda r: (r.path not in vanished, r.path)):
        if record.status == "indexed" and record.chunks > 0 and record.hash:
            by_hash[record.hash].append(record)
    return by_hash


def _recover(tables: CollectionTables, manifest: Mapping[str, FileRecord], plan: SyncPlan) -> set[str]:
    """After a killed writer: delete the chunks it left of files gone from the folders; the paths of those
    still there (changed now) are returned, to be redone re-using their stored vectors."""
    orphans = tables.sources() - {p for p, r in manifest.items() if r.chunks > 0}
    stale = orphans & {s.path for s in plan.changed}
    if orphans - stale:
        log.info("removing chunks of %d files left by an interrupted sync", len(orphans - stale))
        tables.delete_sources(sorted(orphans - stale))
    return stale


def _folder_problems(missing: Sequence[Path], refused: list[FileProblem]) -> list[FileProblem]:
    return [
        FileProblem(str(m), "folder not found; its files stay in the collection until it is back", "failed")
        for m in missing
    ] + refused


def _records_after(
    plan: SyncPlan,
    manifest: Mapping[str, FileRecord],
    jobs: Sequence[Job],
    results: Sequence[Done],
    cancelled: bool,
) -> list[FileRecord]:
    """The manifest after the pass. Cancelled: files not reached keep their old records; those gone are
    not deleted yet."""
    done = {d.job.path for d in results}
    records = [r for r in plan.unchanged + plan.kept if r.path not in done] + [d.record for d in results]
    if cancelled:
        records += [manifest[j.path] for j in jobs if j.path not in done and j.path in manifest]
        records += plan.vanished
    return records


class FolderPass:
    """Runs passes with one store, embedder and config (see ``Indexer`` for the numbers)."""

    def __init__(
        self,
        store: LanceStore,
        embedder: Embedder,
        config: IndexerConfig,
        *,
        batch_rows: int,
        window: int,
        resync_share: float,
        pdf_page_timeout_s: float,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._config = config
        self._batch_rows = batch_rows
        self._window = window
        self._resync_share = resync_share
        self._pdf_timeout = pdf_page_timeout_s

    def run(
        self,
        tables: CollectionTables,
        roots: Sequence[Path],
        on_progress: Progress,
        control: IndexControl | None,
        lease: Lease,
        *,
        interrupted: bool,
        state: SynopsisState | None,
    ) -> PassResult:
        """Bring ``tables`` in line with ``roots``. ``interrupted``: a writer was killed mid-sync (recover
        what it left); ``state``: the synopsis, for an incremental update."""
        manifest = tables.manifest()
        files, missing, refused = scan_folders(roots)  # refused: names not UTF-8, links out
        plan = plan_sync(manifest, files, roots, missing)
        stale = _recover(tables, manifest, plan) if interrupted else set()
        jobs = [
            Job(stat, manifest.get(stat.path), stale=stat.path in stale)
            for stat in sorted(plan.changed, key=lambda s: s.path)
        ]
        meter = ProgressMeter(tables.collection, jobs, on_progress)
        folder_problems = _folder_problems(missing, refused)
        if not jobs and not plan.vanished:
            if interrupted:
                self._keep_tables(tables.collection, plan.unchanged + plan.kept)
            meter.report(force=True, finished=True)
            return PassResult(plan.unchanged + plan.kept, 0, 0, folder_problems, None)
        self._store.mark_syncing(tables.collection)  # until finish_sync: a failed write is recovered

        writer = self._writer(tables, manifest, lease, state)
        vanished_paths = {r.path for r in plan.vanished}
        reader = self._reader(tables, meter, stored_by_hash(manifest, vanished_paths), control)
        results: list[Done] = []
        cancelled = self._ingest(reader, jobs, writer, meter, results, control)

        if not cancelled:
            writer.delete([r.path for r in plan.vanished if r.chunks > 0])
        writer.flush()
        if not cancelled:
            tables.delete_files(sorted(vanished_paths))
        records = _records_after(plan, manifest, jobs, results, cancelled)
        self._keep_tables(tables.collection, records)
        meter.report(force=True, finished=True)
        indexed = sum(1 for d in results if not d.touched and d.record.status == "indexed")
        deleted = 0 if cancelled else len(plan.vanished)
        return PassResult(records, indexed, deleted, folder_problems, writer, cancelled)

    def _keep_tables(self, collection: str, records: Sequence[FileRecord]) -> None:
        """The tables of indexed files only, and no rows left by a killed or cancelled sync."""
        self._store.shelf.reconcile(collection, [r.path for r in records if r.status == "indexed"])

    def _writer(
        self,
        tables: CollectionTables,
        manifest: Mapping[str, FileRecord],
        lease: Lease,
        state: SynopsisState | None,
    ) -> BatchWriter:
        """The pass's writer; it tracks the vectors it adds and removes (for an incremental update of the
        centroids) while they stay below the share that makes the synopsis be refitted from scratch."""
        total_before = sum(r.chunks for r in manifest.values())
        track_limit = int(self._resync_share * total_before) - (state.changes if state else 0)
        writer = BatchWriter(
            tables,
            batch_rows=self._batch_rows,
            track_limit=max(track_limit, 0),
            check=lease.check,
            shelf=self._store.shelf,
        )
        writer.stats.track_vectors = state is not None and track_limit > 0
        return writer

    def _reader(
        self,
        tables: CollectionTables,
        meter: ProgressMeter,
        by_hash: Mapping[str, Sequence[FileRecord]],
        control: IndexControl | None,
    ) -> Reader:
        def on_file(path: str) -> None:
            meter.current = path

        config = self._config
        zip_limits = ZipLimits(config.max_zip_member_mb, config.max_zip_inflated_mb, config.max_zip_ratio)
        return Reader(
            tables=tables,
            chunker=Chunker(
                measure(self._embedder),
                chunk_tokens=config.chunk_tokens,
                overlap_tokens=config.overlap_tokens,
                max_tokens=self._embedder.max_tokens,
            ),
            max_file_mb=config.max_file_mb,
            budget=FileBudget(
                max_chunks=config.max_file_chunks,
                max_seconds=config.max_file_seconds,
                max_memory_mb=config.max_file_memory_mb,
            ),
            by_hash=by_hash,
            pdf_page_timeout_s=self._pdf_timeout,
            on_file=on_file,
            control=control,
            zip_limits=zip_limits,
            table_reader=TableReader(
                self._store.shelf,
                tables.collection,
                zip_limits=zip_limits,
                text_chars=min(config.max_file_chunks * config.chunk_tokens, MAX_TABLE_TEXT),
            ),
        )

    def _ingest(
        self,
        reader: Reader,
        jobs: Sequence[Job],
        writer: BatchWriter,
        meter: ProgressMeter,
        results: list[Done],
        control: IndexControl | None,
    ) -> bool:
        """Run the reader over ``jobs`` and embed and write what it produces; True when cancelled (the
        writer's unwritten rows are abandoned then)."""
        reader.start(jobs)
        try:
            embed_and_write(self._embedder, self._window, reader, writer, meter, results, control)
        except Cancelled:
            writer.abandon()
            return True
        finally:
            reader.join()
        return False
