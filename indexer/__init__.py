"""The indexer: folders → parse → chunk → embed → LanceDB, kept in sync (the write side of KIMAs).

    LanceStore     all collections in one LanceDB database (local directory or s3://); the read side is
                   the ``ChunkSearcher`` protocol
    Indexer        incremental, crash-safe sync of a collection with its folders
    FolderWatcher  watchdog observers that run an incremental sync after changes settle

By role: ``parse/`` (files → blocks), ``chunking`` (blocks → chunks), ``store/`` (LanceDB), ``sync/``
(one sync of a collection, the ingest pipeline, the folder watcher), ``upkeep/`` (what is derived from the
chunks: synopsis, cards, entities, relations).

Heavy libraries (LanceDB, watchdog) load when these names are first used, not when ``indexer`` is imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from indexer.store.lance_store import LanceStore
    from indexer.sync.indexer import Indexer
    from indexer.sync.watch import FolderWatcher

__all__ = ["FolderWatcher", "Indexer", "LanceStore"]

_HOMES = {
    "LanceStore": "indexer.store.lance_store",
    "Indexer": "indexer.sync.indexer",
    "FolderWatcher": "indexer.sync.watch",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'indexer' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(home), name)
