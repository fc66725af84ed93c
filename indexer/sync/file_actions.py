"""One file of a collection at a time: remove it from the index, or have the next sync read it again.

Both write under the collection's writer lease (``LanceStore.lease``), like a sync, so they never run
beside a sync or another writer of the same collection (``CollectionBusyError`` once ``wait_s`` is up).
The order keeps the crash rules of ``indexer.sync.indexer``: a file's chunks go before its manifest record.

The routing synopsis (centroids, word counts) still counts a removed file until the next refit; routing
may then lean a little towards the collection, but its text is not retrieved any more.
"""

from __future__ import annotations

from dataclasses import replace

from indexer.store.lance_store import LanceStore
from indexer.sync.manifest import FileRecord
from kimas_desktop.errors import IndexingError

__all__ = ["forget_file", "remove_file"]


def _record(store: LanceStore, collection: str, path: str) -> FileRecord:
    record = store.manifest(collection).get(path)
    if record is None:
        raise IndexingError(f"'{path}' is not in collection '{collection}' (it may have just been removed).")
    return record


def remove_file(store: LanceStore, collection: str, path: str, *, wait_s: float = 10.0) -> FileRecord:
    """Delete ``path``'s chunks, tables and manifest record from ``collection``; returns the record it had.

    The file on disk is not touched: a file still in a watched folder comes back with the next sync."""
    with store.lease(collection, wait_s=wait_s) as lease:
        record = _record(store, collection, path)
        tables = store.tables(collection)
        tables.delete_sources([path])
        store.shelf.remove_sources(collection, [path])
        tables.delete_files([path])
        lease.check()
        info = store.collection(collection)
        store.finish_sync(
            collection,
            files=sum(1 for r in tables.manifest().values() if r.status == "indexed"),
            chunks=tables.count_chunks(),
            problems=[p for p in info.problems if p.path != path],
        )
        return record


def forget_file(store: LanceStore, collection: str, path: str, *, wait_s: float = 10.0) -> None:
    """Make the next sync of ``collection`` read ``path`` again (parse, chunk, embed), even though its
    bytes did not change: its record keeps its chunk count (so the old chunks are replaced) but loses
    its stat and content hash."""
    with store.lease(collection, wait_s=wait_s) as lease:
        record = _record(store, collection, path)
        lease.check()
        store.tables(collection).put_files([replace(record, mtime_ns=-1, hash="")])
