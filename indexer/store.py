"""``LanceStore``: every collection in one LanceDB database, local directory or object store alike.

Layout (all LanceDB tables, so an ``s3://`` URI shares everything with a team):

    kimas_collections     one row per collection: folders, embedding model id and dim, counts, problems,
                          the routing synopsis (centroids; content-word counts as two parallel lists,
                          sorted by word), and a "syncing" flag for crash recovery
    c_<name>_<hash>_chunks  the chunks: every ``Chunk`` field, the chunk's ordinal in its file, the vector;
                          a full-text (BM25) index on ``text``; a vector index once the table is large
    c_<name>_<hash>_files   the file manifest (``FileRecord``)

The read side is the ``ChunkSearcher`` protocol (``collections``, ``synopsis``, ``search``). The write
side is for ``Indexer``. Every LanceDB write is an atomic commit, so a killed process leaves each table at
its last commit; the indexer orders its writes so that any such state converges on the next sync. A
synopsis (centroids and word counts) is one row, so it is written in one commit.

A ``kimas_collections`` table made by an older version lacks the word-count columns: it is read as is
(such collections have no word counts, and the router falls back to dense routing for them), and the
columns are added, empty, before the first write.

Search scores: ``dense`` is cosine similarity (1 − cosine distance); ``fts`` is LanceDB's BM25 score;
``hybrid`` is reciprocal-rank fusion of the two lists, Σ 1/(60 + rank) with 1-based ranks, so a chunk
first in both lists scores 2/61 ≈ 0.0328 and a chunk found by only one list at most 1/61.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import FTS, IvfHnswSq

from indexer.manifest import FileRecord
from indexer.synopsis import SynopsisState
from kimas_desktop.errors import CollectionNotFoundError, EmbedderMismatchError, IndexingError
from kimas_desktop.fusion import RRF_K, reciprocal_rank_fusion
from kimas_desktop.protocols import SearchMode, Vector
from kimas_desktop.types import Chunk, CollectionInfo, FileProblem, Hit, Synopsis

log = logging.getLogger(__name__)

META = "kimas_collections"
_IN_BATCH = 400  # values per SQL IN (...) list
_CHUNK_COLUMNS = [
    "chunk_id", "collection", "source", "text", "page", "line_start", "line_end", "heading", "file_hash",
    "indexed_at",
]  # fmt: skip

_META_SCHEMA = pa.schema(
    [
        pa.field("name", pa.string()),
        pa.field("table", pa.string()),
        pa.field("folders", pa.list_(pa.string())),
        pa.field("embedding_model", pa.string()),
        pa.field("dim", pa.int32()),
        pa.field("created_at", pa.float64()),
        pa.field("updated_at", pa.float64()),
        pa.field("files", pa.int64()),
        pa.field("chunks", pa.int64()),
        pa.field("problems", pa.string()),  # JSON list of {path, reason, kind}
        pa.field("syncing", pa.bool_()),
        pa.field("centroids", pa.list_(pa.float32())),  # k × dim, row-major
        pa.field("centroid_counts", pa.list_(pa.int64())),
        pa.field("synopsis_changes", pa.int64()),
        # Content word → occurrences in the chunks, as parallel lists sorted by word; null = not counted.
        pa.field("terms", pa.list_(pa.string())),
        pa.field("term_counts", pa.list_(pa.int64())),
    ]
)

_FILES_SCHEMA = pa.schema(
    [
        pa.field("path", pa.string()),
        pa.field("size", pa.int64()),
        pa.field("mtime_ns", pa.int64()),
        pa.field("hash", pa.string()),
        pa.field("chunks", pa.int32()),
        pa.field("status", pa.string()),
        pa.field("reason", pa.string()),
        pa.field("pages", pa.int32()),
        pa.field("indexed_at", pa.float64()),
    ]
)


def _chunks_schema(dim: int) -> pa.Schema:
    return pa.schema(
        [
            pa.field("chunk_id", pa.string()),
            pa.field("collection", pa.string()),
            pa.field("source", pa.string()),
            pa.field("text", pa.string()),
            pa.field("page", pa.int32()),
            pa.field("line_start", pa.int32()),
            pa.field("line_end", pa.int32()),
            pa.field("heading", pa.string()),
            pa.field("file_hash", pa.string()),
            pa.field("indexed_at", pa.float64()),
            pa.field("ordinal", pa.int32()),
            pa.field("vector", pa.list_(pa.float32(), dim)),
        ]
    )


def sql_str(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _in_filters(column: str, values: Iterable[str]) -> Iterable[str]:
    items = list(values)
    for i in range(0, len(items), _IN_BATCH):
        yield f"{column} IN ({', '.join(sql_str(v) for v in items[i : i + _IN_BATCH])})"


def table_prefix(collection: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "_", collection).strip("_")[:40] or "x"
    digest = hashlib.sha256(collection.encode("utf-8")).hexdigest()[:8]
    return f"c_{slug}_{digest}"


@dataclass(frozen=True, eq=False)
class StoredChunk:
    """A chunk as stored: with its ordinal in the file and its vector."""

    chunk: Chunk
    ordinal: int
    vector: Vector | None = None


def _chunk_from_row(row: dict[str, Any]) -> Chunk:
    return Chunk(
        chunk_id=row["chunk_id"],
        collection=row["collection"],
        source=row["source"],
        text=row["text"],
        page=row["page"],
        line_start=row["line_start"],
        line_end=row["line_end"],
        heading=row["heading"] or "",
        file_hash=row["file_hash"] or "",
        indexed_at=row["indexed_at"] or 0.0,
    )


class LanceStore:
    """All collections in one LanceDB database at ``uri`` (a directory, or ``s3://bucket/prefix`` with
    endpoint and credentials in ``storage_options``). Cheap to construct: it connects on first use.

    ``vector_index_rows``: a collection gets an IVF-HNSW-SQ vector index once it holds this many chunks;
    below that, exact (flat) search is both fast enough and exact.
    """

    def __init__(
        self,
        uri: str,
        storage_options: dict[str, str] | None = None,
        *,
        vector_index_rows: int = 50_000,
        read_consistency_s: float = 1.0,
    ) -> None:
        self.uri = uri
        self._options = dict(storage_options or {})
        self._vector_index_rows = vector_index_rows
        self._consistency = timedelta(seconds=read_consistency_s)
        self._snapshot: dict[str, dict[str, Any]] | None = None  # collection records, for the read side
        self._snapshot_at = 0.0
        self._snapshot_version = -1  # of the META table the snapshot was read at
        self._known_rows: dict[str, dict[str, Any]] = {}  # the last snapshot, even after a write
        self._synopses: dict[str, tuple[dict[str, Any], Synopsis | None]] = {}  # by the row they came from
        self._meta_columns_checked = False
        self._db: Any = None
        self._tables: dict[str, Any] = {}
        self._layouts: dict[str, tuple[str, int]] = {}  # collection → (table prefix, dim)
        self._lock = threading.RLock()

    # -- connection and tables ------------------------------------------------------------------------

    def _conn(self) -> Any:
        with self._lock:
            if self._db is None:
                try:
                    self._db = lancedb.connect(
                        self.uri,
                        storage_options=self._options or None,
                        read_consistency_interval=self._consistency,
                    )
                except Exception as err:
                    raise IndexingError(f"cannot open the collection database at {self.uri}: {err}") from err
            return self._db

    def _open(self, name: str, schema: pa.Schema | None = None) -> Any:
        """The table ``name``; created (empty, with ``schema``) when missing and a schema is given."""
        with self._lock:
            table = self._tables.get(name)
            if table is not None:
                return table
            db = self._conn()
            try:
                table = db.open_table(name)
            except (ValueError, FileNotFoundError):
                if schema is None:
                    return None
                table = db.create_table(name, schema=schema, exist_ok=True)
            self._tables[name] = table
            return table

    def _drop(self, name: str) -> None:
        with self._lock:
            self._tables.pop(name, None)
            self._conn().drop_table(name, ignore_missing=True)

    def _meta(self) -> Any:
        return self._open(META, _META_SCHEMA)

    def _meta_row(self, collection: str) -> dict[str, Any] | None:
        rows = self._meta().search().where(f"name = {sql_str(collection)}").limit(1).to_arrow().to_pylist()
        return rows[0] if rows else None

    def _records(self) -> dict[str, dict[str, Any]]:
        """All collection records (the router asks for every collection's synopsis on every question):
        the table's version is checked at most once per consistency interval, and the records are read
        again only when it changed; our own writes refresh them at once."""
        with self._lock:
            now = time.monotonic()
            if self._snapshot is not None and now - self._snapshot_at <= self._consistency.total_seconds():
                return self._snapshot
            table = self._meta()
            version = int(table.version)
            if self._snapshot is None or version != self._snapshot_version:
                rows = table.search().limit(None).to_arrow().to_pylist()
                # An unchanged record stays the same object, so its cached synopsis stays valid.
                old = self._known_rows
                fresh = {r["name"]: old[r["name"]] if old.get(r["name"]) == r else r for r in rows}
                self._snapshot, self._snapshot_version, self._known_rows = fresh, version, fresh
                self._synopses = {k: v for k, v in self._synopses.items() if k in fresh}
            self._snapshot_at = now
            return self._snapshot

    def _add_meta_columns(self, table: Any) -> None:
        """Add the columns of ``_META_SCHEMA`` that a table made by an older version lacks (all null)."""
        if self._meta_columns_checked:
            return
        missing = [f for f in _META_SCHEMA if f.name not in table.schema.names]
        if missing:
            log.info("adding %s to the collection table", ", ".join(f.name for f in missing))
            try:
                table.add_columns(missing)
            except ValueError:  # added by another process in the meantime
                table.checkout_latest()
                if any(f.name not in table.schema.names for f in missing):
                    raise
        self._meta_columns_checked = True

    def _put_meta(self, row: dict[str, Any]) -> None:
        self._snapshot = None
        table = self._meta()
        self._add_meta_columns(table)
        data = pa.Table.from_pylist([row], schema=_META_SCHEMA)
        table.merge_insert("name").when_matched_update_all().when_not_matched_insert_all().execute(data)
        if table.version % 64 == 0:
            table.optimize(cleanup_older_than=timedelta(hours=1))

    def _require(self, collection: str) -> dict[str, Any]:
        row = self._meta_row(collection)
        if row is None:
            raise CollectionNotFoundError(f"there is no collection named '{collection}'")
        return row

    def _layout(self, collection: str) -> tuple[str, int]:
        """(table prefix, vector dim) of a collection; fixed for its lifetime, so cached."""
        layout = self._layouts.get(collection)
        if layout is None:
            row = self._require(collection)
            layout = self._layouts[collection] = (str(row["table"]), int(row["dim"]))
        return layout

    def _chunks_table(self, collection: str) -> Any:
        prefix, dim = self._layout(collection)
        return self._open(f"{prefix}_chunks", _chunks_schema(dim))

    def _files_table(self, collection: str) -> Any:
        prefix, _ = self._layout(collection)
        return self._open(f"{prefix}_files", _FILES_SCHEMA)

    # -- collections ----------------------------------------------------------------------------------

    def open_collection(
        self, collection: str, *, embedding_model: str, dim: int, folders: Sequence[str] = ()
    ) -> None:
        """Create the collection or check that it was built with this embedder (else
        ``EmbedderMismatchError``). Records ``folders`` when given."""
        with self._lock:
            row = self._meta_row(collection)
            if row is not None:
                if row["embedding_model"] != embedding_model or int(row["dim"]) != dim:
                    raise EmbedderMismatchError(
                        f"collection '{collection}' was built with the embedding model "
                        f"{row['embedding_model']} ({row['dim']}-d vectors), but the configured model is "
                        f"{embedding_model} ({dim}-d); remove the collection and index it again "
                        f"(kimas remove-collection {collection}), or configure {row['embedding_model']}"
                    )
                if folders and list(row["folders"] or []) != list(folders):
                    self._put_meta({**row, "folders": list(folders)})
                return
            prefix = table_prefix(collection)
            self._layouts.pop(collection, None)
            for suffix in ("_chunks", "_files"):  # leftovers of a removal that was interrupted
                self._drop(prefix + suffix)
            chunks = self._open(f"{prefix}_chunks", _chunks_schema(dim))
            chunks.create_index("text", config=FTS(), replace=True)
            self._open(f"{prefix}_files", _FILES_SCHEMA)
            self._put_meta(
                {
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
                }
            )

    def has_collection(self, collection: str) -> bool:
        return self._meta_row(collection) is not None

    def remove_collection(self, collection: str) -> None:
        """Delete the collection and its tables; ``CollectionNotFoundError`` if there is none."""
        with self._lock:
            row = self._require(collection)
            self._snapshot = None
            self._meta().delete(f"name = {sql_str(collection)}")
            self._layouts.pop(collection, None)
            for suffix in ("_chunks", "_files"):
                self._drop(row["table"] + suffix)

    def collections(self) -> list[CollectionInfo]:
        rows = self._records()
        return [self._info(rows[name]) for name in sorted(rows)]

    def collection(self, collection: str) -> CollectionInfo:
        return self._info(self._require(collection))

    @staticmethod
    def _info(row: dict[str, Any]) -> CollectionInfo:
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
        )

    def begin_sync(self, collection: str) -> bool:
        """Mark a sync as under way; True when the previous one never finished (a crash)."""
        with self._lock:
            row = self._require(collection)
            if not row["syncing"]:
                self._put_meta({**row, "syncing": True})
            return bool(row["syncing"])

    def was_interrupted(self, collection: str) -> bool:
        return bool(self._require(collection)["syncing"])

    def finish_sync(
        self, collection: str, *, files: int, chunks: int, problems: Sequence[FileProblem]
    ) -> None:
        with self._lock:
            row = self._require(collection)
            self._put_meta(
                {
                    **row,
                    "syncing": False,
                    "updated_at": time.time(),
                    "files": files,
                    "chunks": chunks,
                    "problems": json.dumps(
                        [{"path": p.path, "reason": p.reason, "kind": p.kind} for p in problems]
                    ),
                }
            )

    # -- synopsis -------------------------------------------------------------------------------------

    def synopsis_state(self, collection: str) -> SynopsisState | None:
        return self._state(self._require(collection))

    def put_synopsis(self, collection: str, state: SynopsisState) -> None:
        """Store the centroids and, when counted (``state.terms`` is not None), the word counts."""
        terms = None if state.terms is None else sorted((t, n) for t, n in state.terms.items() if n > 0)
        with self._lock:
            row = self._require(collection)
            self._put_meta(
                {
                    **row,
                    "centroids": state.centroids.astype(np.float32).ravel().tolist(),
                    "centroid_counts": state.counts.astype(np.int64).tolist(),
                    "synopsis_changes": state.changes,
                    "terms": None if terms is None else [t for t, _ in terms],
                    "term_counts": None if terms is None else [n for _, n in terms],
                }
            )

    @staticmethod
    def _state(row: dict[str, Any]) -> SynopsisState | None:
        counts = row["centroid_counts"] or []
        if not counts:
            return None
        centroids = np.asarray(row["centroids"], dtype=np.float32).reshape(len(counts), int(row["dim"]))
        state = SynopsisState(centroids, np.asarray(counts, np.int64), int(row["synopsis_changes"] or 0))
        words, occurrences = row.get("terms"), row.get("term_counts")  # absent from older tables
        if words is not None and occurrences is not None and len(words) == len(occurrences):
            state = replace(state, terms=dict(zip(words, occurrences, strict=True)))
        return state

    def synopsis(self, collection: str) -> Synopsis | None:
        """The router's view, made once per version of the collection's record."""
        with self._lock:
            row = self._records().get(collection)
            if row is None:
                return None
            cached = self._synopses.get(collection)
            if cached is not None and cached[0] is row:
                return cached[1]
            state = self._state(row)
            synopsis = None
            if state is not None:
                alive = state.counts > 0
                synopsis = Synopsis(
                    collection=collection,
                    centroids=tuple(tuple(c) for c in state.centroids[alive].tolist()),
                    chunk_count=state.total,
                    terms=state.terms,  # a dict of its own, read-only by contract (``Mapping``)
                    term_total=0 if state.terms is None else sum(state.terms.values()),
                )
            self._synopses[collection] = (row, synopsis)
            return synopsis

    # -- manifest -------------------------------------------------------------------------------------

    def manifest(self, collection: str) -> dict[str, FileRecord]:
        rows = self._files_table(collection).search().limit(None).to_arrow().to_pylist()
        return {r["path"]: FileRecord(**r) for r in rows}

    def put_files(self, collection: str, records: Sequence[FileRecord]) -> None:
        if not records:
            return
        latest = {r.path: r for r in records}
        data = pa.Table.from_pylist([vars(r) for r in latest.values()], schema=_FILES_SCHEMA)
        table = self._files_table(collection)
        table.merge_insert("path").when_matched_update_all().when_not_matched_insert_all().execute(data)

    def delete_files(self, collection: str, paths: Iterable[str]) -> None:
        table = self._files_table(collection)
        for where in _in_filters("path", paths):
            table.delete(where)

    # -- chunks ---------------------------------------------------------------------------------------

    def add_chunks(self, collection: str, items: Sequence[StoredChunk]) -> None:
        if not items:
            return
        _, dim = self._layout(collection)
        vectors = np.stack([np.asarray(i.vector, dtype=np.float32) for i in items])
        if vectors.shape[1] != dim:
            raise EmbedderMismatchError(
                f"collection '{collection}' holds {dim}-d vectors, got {vectors.shape[1]}-d"
            )
        columns: dict[str, Any] = {c: [getattr(i.chunk, c) for i in items] for c in _CHUNK_COLUMNS}
        columns["ordinal"] = [i.ordinal for i in items]
        columns["vector"] = pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), dim)
        self._chunks_table(collection).add(pa.table(columns, schema=_chunks_schema(dim)))

    def delete_sources(self, collection: str, sources: Iterable[str]) -> None:
        table = self._chunks_table(collection)
        for where in _in_filters("source", sources):
            table.delete(where)

    def stored_chunks(self, collection: str, sources: Iterable[str]) -> list[StoredChunk]:
        """The stored chunks (with vectors) of ``sources``, in file order."""
        table = self._chunks_table(collection)
        out: list[StoredChunk] = []
        for where in _in_filters("source", sources):
            rows = table.search().where(where).select([*_CHUNK_COLUMNS, "ordinal", "vector"]).limit(None)
            for r in rows.to_arrow().to_pylist():
                out.append(
                    StoredChunk(_chunk_from_row(r), int(r["ordinal"]), np.asarray(r["vector"], np.float32))
                )
        out.sort(key=lambda s: (s.chunk.source, s.ordinal))
        return out

    def _scan(self, collection: str, sources: Iterable[str] | None, columns: list[str]) -> Iterator[pa.Table]:
        """``columns`` of all chunks, or of the chunks of ``sources``, in parts."""
        table = self._chunks_table(collection)
        wheres: Iterable[str | None] = [None] if sources is None else _in_filters("source", sources)
        for where in wheres:
            query = table.search()
            if where is not None:
                query = query.where(where)
            yield query.select(columns).limit(None).to_arrow()

    def vectors_and_texts(
        self, collection: str, sources: Iterable[str] | None = None
    ) -> tuple[Vector, list[str]]:
        """Vectors (float32 [n, dim]) and texts of all chunks, or of the chunks of ``sources``, in the
        same order."""
        _, dim = self._layout(collection)
        parts = list(self._scan(collection, sources, ["vector", "text"]))
        texts = [t for p in parts for t in p.column("text").to_pylist()]
        matrices = [
            p.column("vector").combine_chunks().values.to_numpy(zero_copy_only=False).reshape(-1, dim)
            for p in parts
        ]
        if not matrices:
            return np.zeros((0, dim), np.float32), texts
        return np.concatenate(matrices).astype(np.float32, copy=False), texts

    def texts(self, collection: str) -> Iterator[str]:
        """The text of every chunk, in no particular order."""
        for part in self._scan(collection, None, ["text"]):
            yield from part.column("text").to_pylist()

    def sources(self, collection: str) -> set[str]:
        column = self._chunks_table(collection).search().select(["source"]).limit(None).to_arrow()
        return set(column.column("source").to_pylist())

    def chunks(self, collection: str) -> list[Chunk]:
        """Every chunk of the collection (no vectors), by source and position."""
        rows = self._chunks_table(collection).search().select([*_CHUNK_COLUMNS, "ordinal"]).limit(None)
        ordered = sorted(rows.to_arrow().to_pylist(), key=lambda r: (r["source"], r["ordinal"]))
        return [_chunk_from_row(r) for r in ordered]

    def count_chunks(self, collection: str) -> int:
        return int(self._chunks_table(collection).count_rows())

    def refresh_indexes(self, collection: str) -> None:
        """Keep searches fast after writes: compact many small fragments, bring the full-text index up to
        date, and add a vector index once the table is large. New rows are searchable before this runs
        (LanceDB searches unindexed rows exhaustively); this only restores speed."""
        table = self._chunks_table(collection)
        stats = table.stats()
        rows = int(stats["num_rows"])
        fragments = int(stats["fragment_stats"]["num_small_fragments"])
        unindexed = 0
        for index in table.list_indices():
            if index.index_type == "FTS":
                unindexed = int(getattr(index, "num_unindexed_rows", 0) or 0)
        if fragments > 16 or unindexed > max(5_000, rows // 10):
            table.optimize(cleanup_older_than=timedelta(hours=1))
            self._files_table(collection).optimize(cleanup_older_than=timedelta(hours=1))
        if rows >= self._vector_index_rows and not any(i.index_type != "FTS" for i in table.list_indices()):
            table.create_index("vector", config=IvfHnswSq(distance_type="cosine"))

    # -- search ---------------------------------------------------------------------------------------

    def search(
        self,
        collection: str,
        *,
        text: str,
        vector: Vector,
        k: int,
        mode: SearchMode = "hybrid",
    ) -> list[Hit]:
        """Best ``k`` chunks of ``collection``, best first (scores: see the module docstring)."""
        table = self._chunks_table(collection)
        if mode == "fts":
            return self._fts(table, text, k)
        _, dim = self._layout(collection)
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if query.shape[0] != dim:
            raise EmbedderMismatchError(
                f"collection '{collection}' holds {dim}-d vectors, but the query vector is "
                f"{query.shape[0]}-d: the configured embedding model is not the one it was built with"
            )
        if mode == "dense":
            return self._dense(table, query, k)
        pool = max(2 * k, 20)
        fused = reciprocal_rank_fusion(
            [self._dense(table, query, pool), self._fts(table, text, pool)], k=RRF_K
        )
        return [replace(h, origin="hybrid") for h in fused[:k]]

    @staticmethod
    def _dense(table: Any, vector: Vector, k: int) -> list[Hit]:
        rows = (
            table.search(vector, vector_column_name="vector")
            .distance_type("cosine")
            .select([*_CHUNK_COLUMNS, "vector", "_distance"])
            .limit(k)
            .to_arrow()
            .to_pylist()
        )
        return [
            Hit(_chunk_from_row(r), 1.0 - float(r["_distance"]), "dense", tuple(r["vector"])) for r in rows
        ]

    @staticmethod
    def _fts(table: Any, text: str, k: int) -> list[Hit]:
        if not text.strip():
            return []
        rows = (
            table.search(text, query_type="fts", fts_columns="text")
            .select([*_CHUNK_COLUMNS, "vector", "_score"])
            .limit(k)
            .to_arrow()
            .to_pylist()
        )
        return [Hit(_chunk_from_row(r), float(r["_score"]), "fts", tuple(r["vector"])) for r in rows]
