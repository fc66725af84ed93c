"""``CollectionWrites``: the write side of a ``LanceStore``'s collection records, for ``Indexer``.

It creates a collection (or checks that it was built with this embedder), removes it, marks a sync under
way and records its counts, stores the synopsis, and builds a re-embedding's tables beside the current ones,
which the record names only once they are complete (``begin_rebuild``/``finish_rebuild``), so the old index
keeps answering meanwhile. A record is one row, so each of these writes is one commit.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from indexer.store.collection_tables import CollectionTables
from indexer.store.database import Database
from indexer.store.entity_tables import ENTITY_SUFFIXES
from indexer.store.identity import EmbedderIdentity
from indexer.store.records import counts_columns, new_record, synopsis_columns
from indexer.store.schema import table_prefix
from indexer.tables.shelf import LanceTableShelf
from indexer.upkeep.synopsis import SynopsisState
from kimas_desktop.errors import EmbedderMismatchError, IndexingError
from kimas_desktop.protocols import Vector
from kimas_desktop.types import FileProblem

__all__ = ["CollectionWrites"]


class CollectionWrites:
    """Writes the records (and creates and drops the tables) of ``db``; ``lock`` is the store's."""

    def __init__(self, db: Database, lock: threading.RLock) -> None:
        self._db = db
        self._records = db.records
        self._lock = lock

    def open_collection(
        self,
        collection: str,
        *,
        embedding_model: str,
        dim: int,
        folders: Sequence[str] = (),
        probe: Vector | None = None,
    ) -> None:
        """See ``LanceStore.open_collection``."""
        with self._lock:
            row = self._records.get(collection)
            if row is not None:
                if not EmbedderIdentity(embedding_model, dim, probe).matches(
                    row["embedding_model"], int(row["dim"]), row.get("probe")
                ):
                    raise EmbedderMismatchError(
                        f"collection '{collection}' was built with the embedding model "
                        f"{row['embedding_model']} ({row['dim']}-d vectors), not the configured "
                        f"{embedding_model} ({dim}-d): it needs re-embedding (kimas reindex {collection})"
                    )
                changes: dict[str, Any] = {}
                if folders and list(row["folders"] or []) != list(folders):
                    changes["folders"] = list(folders)
                if probe is not None and not row.get("probe"):
                    changes["probe"] = np.asarray(probe, np.float32).ravel().tolist()
                if changes:
                    self._records.put({**row, **changes})
                return
            prefix = table_prefix(collection)
            for suffix in ("_chunks", "_files", *ENTITY_SUFFIXES):  # leftovers of an interrupted removal
                self._db.drop(prefix + suffix)
            self._db.create_tables(prefix, dim)
            self._records.put(
                new_record(
                    collection, prefix, folders=folders, embedding_model=embedding_model, dim=dim, probe=probe
                )
            )

    def remove_collection(self, collection: str) -> None:
        """Delete the collection and its tables; ``CollectionNotFoundError`` if there is none."""
        with self._lock:
            row = self._records.require(collection)
            self._records.delete(collection)
            for prefix in filter(None, (row["table"], row.get("pending_table"))):
                for suffix in ("_chunks", "_files"):
                    self._db.drop(prefix + suffix)
            self.drop_entities(collection)
            LanceTableShelf(self._db).drop_collection(collection)

    def drop_entities(self, collection: str) -> None:
        """Delete the collection's entity index."""
        for suffix in ENTITY_SUFFIXES:
            self._db.drop(table_prefix(collection) + suffix)

    def mark_syncing(self, collection: str) -> None:
        """See ``LanceStore.mark_syncing``."""
        with self._lock:
            row = self._records.require(collection)
            if not row.get("syncing"):
                self._records.put({**row, "syncing": True})

    def record_counts(self, collection: str, *, files: int, chunks: int) -> None:
        with self._lock:
            row = self._records.require(collection)
            self._records.put({**row, "files": files, "chunks": chunks})

    def finish_sync(
        self, collection: str, *, files: int, chunks: int, problems: Sequence[FileProblem]
    ) -> None:
        with self._lock:
            row = self._records.require(collection)
            self._records.put({**row, "syncing": False, **counts_columns(files, chunks, problems)})

    def put_synopsis(self, collection: str, state: SynopsisState) -> None:
        with self._lock:
            row = self._records.require(collection)
            self._records.put({**row, **synopsis_columns(state)})

    # -- re-embedding -----------------------------------------------------------------------------------

    def begin_rebuild(self, collection: str, identity: EmbedderIdentity) -> tuple[CollectionTables, bool]:
        """See ``LanceStore.begin_rebuild``."""
        with self._lock:
            row = self._records.require(collection)
            pending = row.get("pending_table")
            resumed = bool(pending) and identity.matches(
                row.get("pending_model") or "", int(row.get("pending_dim") or 0), row.get("pending_probe")
            )
            if not resumed:
                if pending:  # built for another embedder: start over
                    for suffix in ("_chunks", "_files"):
                        self._db.drop(pending + suffix)
                pending = f"{table_prefix(collection)}_{secrets.token_hex(3)}"
                self._db.create_tables(pending, identity.dim)
                self._records.put(
                    {
                        **row,
                        "pending_table": pending,
                        "pending_model": identity.model_id,
                        "pending_dim": identity.dim,
                        "pending_probe": None if identity.probe is None else identity.probe.ravel().tolist(),
                    }
                )
            return self._db.tables_at(collection, str(pending), identity.dim), resumed

    def finish_rebuild(
        self,
        collection: str,
        state: SynopsisState,
        *,
        files: int,
        chunks: int,
        problems: Sequence[FileProblem],
    ) -> None:
        """Switch the collection to its new tables and embedder in one commit, then drop the old tables."""
        with self._lock:
            row = self._records.require(collection)
            old, new = row["table"], row.get("pending_table")
            if not new:
                raise IndexingError(f"collection '{collection}' is not being re-embedded")
            self._records.put(
                {
                    **row,
                    **synopsis_columns(state),
                    **counts_columns(files, chunks, problems),
                    "table": new,
                    "embedding_model": row["pending_model"],
                    "dim": row["pending_dim"],
                    "probe": row["pending_probe"],
                    "pending_table": None,
                    "pending_model": None,
                    "pending_dim": None,
                    "pending_probe": None,
                    "syncing": False,
                }
            )
            for suffix in ("_chunks", "_files"):
                self._db.drop(old + suffix)
