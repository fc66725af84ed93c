"""``CollectionRecords``: the ``kimas_collections`` table, one record (row) per collection, and the
conversions between a record and the values the rest of the indexer uses (``CollectionInfo``,
``SynopsisState``, ``Synopsis``). ``LanceStore`` owns one; nothing else reads the table.

A table made by an older version lacks newer columns: it is read as is, and the columns are added, empty,
before the first write.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

import numpy as np
import pyarrow as pa

from indexer.store.schema import META, META_SCHEMA, sql_str
from indexer.upkeep.synopsis import SynopsisState
from kimas_desktop.errors import CollectionNotFoundError
from kimas_desktop.protocols import Vector
from kimas_desktop.types import CollectionInfo, FileProblem, Synopsis

__all__ = [
    "CollectionRecords",
    "counts_columns",
    "info_of",
    "new_record",
    "synopsis_columns",
    "synopsis_of",
    "synopsis_state",
]

log = logging.getLogger(__name__)

Row = dict[str, Any]


class CollectionRecords:
    """The records, read through a snapshot checked at most once per ``consistency`` interval (the
    router asks for every collection's synopsis on every question); our own writes refresh it at once.
    ``open_table(name, schema)`` opens (or creates) a table of the store's database; ``lock`` is the
    store's own (one lock, so the two never wait for each other in opposite orders)."""

    def __init__(
        self, open_table: Callable[[str, pa.Schema], Any], consistency: timedelta, lock: threading.RLock
    ) -> None:
        self._open_table = open_table
        self._consistency = consistency
        self._lock = lock
        self._snapshot: dict[str, Row] | None = None
        self._snapshot_at = 0.0
        self._snapshot_version = -1  # of the table the snapshot was read at
        self._known: dict[str, Row] = {}  # the last snapshot, even after a write
        self._columns_checked = False

    def _table(self) -> Any:
        return self._open_table(META, META_SCHEMA)

    def all(self) -> dict[str, Row]:
        """Every record, as of at most one consistency interval ago. An unchanged record stays the same
        object across reads, so what was made from it (a synopsis) can be cached by identity."""
        with self._lock:
            now = time.monotonic()
            if self._snapshot is not None and now - self._snapshot_at <= self._consistency.total_seconds():
                return self._snapshot
            table = self._table()
            version = int(table.version)
            if self._snapshot is None or version != self._snapshot_version:
                rows = table.search().limit(None).to_arrow().to_pylist()
                old = self._known
                fresh = {r["name"]: old[r["name"]] if old.get(r["name"]) == r else r for r in rows}
                self._snapshot, self._snapshot_version, self._known = fresh, version, fresh
            self._snapshot_at = now
            return self._snapshot

    def get(self, collection: str) -> Row | None:
        """The record as it is now (read from the table, not the snapshot)."""
        rows = self._table().search().where(f"name = {sql_str(collection)}").limit(1).to_arrow().to_pylist()
        return rows[0] if rows else None

    def require(self, collection: str) -> Row:
        row = self.get(collection)
        if row is None:
            raise CollectionNotFoundError(f"there is no collection named '{collection}'")
        return row

    def recent(self, collection: str) -> Row:
        """The record as of at most one consistency interval ago (the read side)."""
        row = self.all().get(collection)
        return row if row is not None else self.require(collection)

    def put(self, row: Row) -> None:
        """Insert or replace ``row`` (by name) in one commit."""
        with self._lock:
            self._snapshot = None
            table = self._table()
            self._add_columns(table)
            data = pa.Table.from_pylist([row], schema=META_SCHEMA)
            table.merge_insert("name").when_matched_update_all().when_not_matched_insert_all().execute(data)
            if table.version % 64 == 0:
                table.optimize(cleanup_older_than=timedelta(hours=1))

    def delete(self, collection: str) -> None:
        with self._lock:
            self._snapshot = None
            self._table().delete(f"name = {sql_str(collection)}")

    def _add_columns(self, table: Any) -> None:
        """Add the columns of ``META_SCHEMA`` that a table made by an older version lacks (all null)."""
        if self._columns_checked:
            return
        missing = [f for f in META_SCHEMA if f.name not in table.schema.names]
        if missing:
            log.info("adding %s to the collection table", ", ".join(f.name for f in missing))
            try:
                table.add_columns(missing)
            except ValueError:  # added by another process in the meantime
                table.checkout_latest()
                if any(f.name not in table.schema.names for f in missing):
                    raise
        self._columns_checked = True


# -- a record and its values ---------------------------------------------------------------------------


def _floats(vector: Vector | None) -> list[float] | None:
    return None if vector is None else np.asarray(vector, np.float32).ravel().tolist()


def new_record(
    collection: str,
    prefix: str,
    *,
    folders: Sequence[str],
    embedding_model: str,
    dim: int,
    probe: Vector | None,
) -> Row:
    """The record of a new, empty collection whose tables start with ``prefix``."""
    return {
        "name": collection,
        "table": prefix,
        "folders": list(folders),
        "embedding_model": embedding_model,
        "dim": dim,
        "created_at": time.time(),
        "updated_at": None,
        "files": 0,
        "chunks": 0,
        "problems": "[]",
        "syncing": False,
        "centroids": [],
        "centroid_counts": [],
        "synopsis_changes": 0,
        "terms": None,
        "term_counts": None,
        "probe": _floats(probe),
    }


def counts_columns(files: int, chunks: int, problems: Sequence[FileProblem]) -> Row:
    """What a finished sync records."""
    return {
        "updated_at": time.time(),
        "files": files,
        "chunks": chunks,
        "problems": json.dumps([{"path": p.path, "reason": p.reason, "kind": p.kind} for p in problems]),
    }


def info_of(row: Row, *, stale: bool) -> CollectionInfo:
    """``stale``: built with another embedder than the configured one."""
    problems = tuple(FileProblem(**p) for p in json.loads(row["problems"] or "[]"))
    return CollectionInfo(
        name=row["name"],
        folders=tuple(row["folders"] or ()),
        embedding_model=row["embedding_model"],
        dim=int(row["dim"]),
        files=int(row["files"] or 0),
        chunks=int(row["chunks"] or 0),
        updated_at=row["updated_at"],
        problems=problems,
        needs_reembedding=stale,
    )


def synopsis_columns(state: SynopsisState) -> Row:
    """The centroids and, when counted (``state.terms`` is not None), the word counts, sorted by word."""
    terms = None if state.terms is None else sorted((t, n) for t, n in state.terms.items() if n > 0)
    return {
        "centroids": state.centroids.astype(np.float32).ravel().tolist(),
        "centroid_counts": state.counts.astype(np.int64).tolist(),
        "synopsis_changes": state.changes,
        "terms": None if terms is None else [t for t, _ in terms],
        "term_counts": None if terms is None else [n for _, n in terms],
    }


def synopsis_state(row: Row) -> SynopsisState | None:
    counts = row["centroid_counts"] or []
    if not counts:
        return None
    centroids = np.asarray(row["centroids"], dtype=np.float32).reshape(len(counts), int(row["dim"]))
    state = SynopsisState(centroids, np.asarray(counts, np.int64), int(row["synopsis_changes"] or 0))
    words, occurrences = row.get("terms"), row.get("term_counts")  # absent from older tables
    if words is not None and occurrences is not None and len(words) == len(occurrences):
        state = replace(state, terms=dict(zip(words, occurrences, strict=True)))
    return state


def synopsis_of(row: Row, *, stale: bool) -> Synopsis | None:
    """The router's view of a record; no centroids when ``stale`` (they mean nothing to the configured
    embedder), so the collection is routed by its words only."""
    state = synopsis_state(row)
    if state is None:
        return None
    alive = state.counts > 0
    return Synopsis(
        collection=row["name"],
        centroids=() if stale else tuple(tuple(c) for c in state.centroids[alive].tolist()),
        chunk_count=state.total,
        terms=state.terms,  # a dict of its own, read-only by contract (``Mapping``)
        term_total=0 if state.terms is None else sum(state.terms.values()),
    )
