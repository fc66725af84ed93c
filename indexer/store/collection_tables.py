"""The two tables of one collection, as the indexer writes them: its chunks and its file manifest.

A collection's current tables, or the new ones a re-embedding builds beside them (``LanceStore.tables``,
``LanceStore.begin_rebuild``): the same code writes both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import timedelta
from typing import Any

import numpy as np
import pyarrow as pa
from lancedb.index import IvfHnswSq

from indexer.store.full_text import TERMS, document_frequencies, ensure_terms, terms_of
from indexer.store.schema import (
    CHUNK_COLUMNS,
    FILES_SCHEMA,
    StoredChunk,
    add_missing_columns,
    chunk_columns,
    chunk_from_row,
    chunks_schema,
    in_filters,
    sql_str,
)
from indexer.store.search import search_table
from indexer.sync.manifest import FileRecord
from kimas_desktop.errors import EmbedderMismatchError
from kimas_desktop.protocols import SearchMode, Vector
from kimas_desktop.types import Chunk, Hit

PART_ROWS = 8192  # rows per part of a pass over a whole chunk table


class CollectionTables:
    """The chunks table and the file manifest of ``collection`` (``dim``-d vectors)."""

    def __init__(
        self, collection: str, chunks: Any, files: Any, dim: int, *, vector_index_rows: int = 50_000
    ) -> None:
        self.collection = collection
        self.dim = dim
        self._chunks = chunks
        self._files = files
        self._vector_index_rows = vector_index_rows

    @property
    def chunks_table(self) -> str:
        """The chunks table's name (a re-embedding moves the collection to new tables)."""
        return str(self._chunks.name)

    # -- manifest -------------------------------------------------------------------------------------

    def manifest(self) -> dict[str, FileRecord]:
        rows = self._files.search().limit(None).to_arrow().to_pylist()
        return {r["path"]: FileRecord(**r) for r in rows}

    def put_files(self, records: Sequence[FileRecord]) -> None:
        if not records:
            return
        latest = {r.path: r for r in records}
        data = pa.Table.from_pylist([vars(r) for r in latest.values()], schema=FILES_SCHEMA)
        table = self._files
        add_missing_columns(table, FILES_SCHEMA)  # a manifest made before the newer columns
        table.merge_insert("path").when_matched_update_all().when_not_matched_insert_all().execute(data)

    def delete_files(self, paths: Iterable[str]) -> None:
        table = self._files
        for where in in_filters("path", paths):
            table.delete(where)

    # -- chunks ---------------------------------------------------------------------------------------

    def add_chunks(self, items: Sequence[StoredChunk]) -> None:
        if not items:
            return
        dim = self.dim
        vectors = np.stack([np.asarray(i.vector, dtype=np.float32) for i in items])
        if vectors.shape[1] != dim:
            raise EmbedderMismatchError(
                f"collection '{self.collection}' holds {dim}-d vectors, got {vectors.shape[1]}-d"
            )
        columns: dict[str, Any] = {c: [getattr(i.chunk, c) for i in items] for c in CHUNK_COLUMNS}
        columns["ordinal"] = [i.ordinal for i in items]
        columns["vector"] = pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), dim)
        columns[TERMS] = terms_of(columns["text"])
        add_missing_columns(self._chunks, chunks_schema(dim))  # a table made before the newer columns
        self._chunks.add(pa.table(columns, schema=chunks_schema(dim)))

    def delete_sources(self, sources: Iterable[str]) -> None:
        table = self._chunks
        for where in in_filters("source", sources):
            table.delete(where)

    def stored_chunks(self, sources: Iterable[str]) -> list[StoredChunk]:
        """The stored chunks (with vectors) of ``sources``, in file order."""
        table = self._chunks
        out: list[StoredChunk] = []
        for where in in_filters("source", sources):
            rows = (
                table.search().where(where).select([*chunk_columns(table), "ordinal", "vector"]).limit(None)
            )
            for r in rows.to_arrow().to_pylist():
                out.append(
                    StoredChunk(chunk_from_row(r), int(r["ordinal"]), np.asarray(r["vector"], np.float32))
                )
        out.sort(key=lambda s: (s.chunk.source, s.ordinal))
        return out

    def _scan(self, sources: Iterable[str] | None, columns: list[str]) -> Iterator[pa.Table]:
        """``columns`` of all chunks, or of the chunks of ``sources``, in parts."""
        table = self._chunks
        wheres: Iterable[str | None] = [None] if sources is None else in_filters("source", sources)
        for where in wheres:
            query = table.search()
            if where is not None:
                query = query.where(where)
            yield query.select(columns).limit(None).to_arrow()

    def vectors_and_texts(self, sources: Iterable[str] | None = None) -> tuple[Vector, list[str]]:
        """Vectors (float32 [n, dim]) and texts of all chunks, or of the chunks of ``sources``, in the
        same order."""
        dim = self.dim
        parts = list(self._scan(sources, ["vector", "text"]))
        texts = [t for p in parts for t in p.column("text").to_pylist()]
        matrices = [
            p.column("vector").combine_chunks().values.to_numpy(zero_copy_only=False).reshape(-1, dim)
            for p in parts
        ]
        if not matrices:
            return np.zeros((0, dim), np.float32), texts
        return np.concatenate(matrices).astype(np.float32, copy=False), texts

    def texts(self, rows: int = PART_ROWS) -> Iterator[str]:
        """The text of every chunk, in no particular order, read ``rows`` at a time."""
        for batch in self._chunks.search().select(["text"]).limit(None).to_batches(rows):
            yield from batch.column("text").to_pylist()

    def vector_parts(self, rows: int = PART_ROWS) -> Iterator[Vector]:
        """Every stored vector (float32 [n, dim]) in parts of at most ``rows``, in table order: what a
        pass over the whole collection holds in memory is one part, not the collection (issue 59)."""
        dim = self.dim
        for batch in self._chunks.search().select(["vector"]).limit(None).to_batches(rows):
            flat = batch.column("vector").flatten().to_numpy(zero_copy_only=False)
            yield flat.astype(np.float32, copy=False).reshape(-1, dim)

    def sources(self) -> set[str]:
        column = self._chunks.search().select(["source"]).limit(None).to_arrow()
        return set(column.column("source").to_pylist())

    def chunk_ids(self) -> set[str]:
        column = self._chunks.search().select(["chunk_id"]).limit(None).to_arrow()
        return set(column.column("chunk_id").to_pylist())

    def sources_of(self, chunk_ids: Iterable[str]) -> set[str]:
        """The sources of the chunks ``chunk_ids`` (those still stored)."""
        out: set[str] = set()
        for where in in_filters("chunk_id", chunk_ids):
            part = self._chunks.search().where(where).select(["source"]).limit(None).to_arrow()
            out.update(part.column("source").to_pylist())
        return out

    def chunk_texts(self, sources: Iterable[str]) -> Iterator[tuple[str, str, str]]:
        """(chunk id, source, text) of the chunks of ``sources``, in no particular order."""
        for part in self._scan(sources, ["chunk_id", "source", "text"]):
            yield from zip(
                part.column("chunk_id").to_pylist(),
                part.column("source").to_pylist(),
                part.column("text").to_pylist(),
                strict=True,
            )

    def chunks(self) -> list[Chunk]:
        """Every chunk of the collection (no vectors), by source and position."""
        rows = self._chunks.search().select([*chunk_columns(self._chunks), "ordinal"]).limit(None)
        ordered = sorted(rows.to_arrow().to_pylist(), key=lambda r: (r["source"], r["ordinal"]))
        return [chunk_from_row(r) for r in ordered]

    def count_chunks(self) -> int:
        return int(self._chunks.count_rows())

    def section(self, source: str, heading: str, *, limit: int) -> list[Chunk]:
        """The first ``limit`` chunks of ``source`` under ``heading`` or one of its sub-headings."""
        rows = self._chunks.search().where(f"source = {sql_str(source)}")
        rows = rows.select([*chunk_columns(self._chunks), "ordinal"]).limit(None).to_arrow().to_pylist()
        inside = [
            r for r in rows if r["heading"] == heading or (r["heading"] or "").startswith(heading + " > ")
        ]
        ordered = sorted(inside, key=lambda r: r["ordinal"])
        return [chunk_from_row(r) for r in ordered[:limit]]

    def ensure_terms(self, check: Callable[[], None] | None = None) -> bool:
        """Upgrade a chunk table made before the full-text terms (``indexer.store.full_text``)."""
        return ensure_terms(self._chunks, check)

    def refresh_indexes(self) -> None:
        """Keep searches fast after writes: compact many small fragments, bring the full-text index up to
        date, and add a vector index once the table is large. New rows are searchable before this runs
        (LanceDB searches unindexed rows exhaustively); this only restores speed."""
        table = self._chunks
        stats = table.stats()
        rows = int(stats["num_rows"])
        fragments = int(stats["fragment_stats"]["num_small_fragments"])
        unindexed = 0
        for index in table.list_indices():
            if index.index_type == "FTS":
                unindexed = int(getattr(index, "num_unindexed_rows", 0) or 0)
        if fragments > 16 or unindexed > max(5_000, rows // 10):
            table.optimize(cleanup_older_than=timedelta(hours=1))
            self._files.optimize(cleanup_older_than=timedelta(hours=1))
        if rows >= self._vector_index_rows and not any(i.index_type != "FTS" for i in table.list_indices()):
            table.create_index("vector", config=IvfHnswSq(distance_type="cosine"))

    def document_frequencies(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        return document_frequencies(self._chunks, terms)

    def search(
        self, *, text: str, vector: Vector, k: int, mode: SearchMode, sources: Sequence[str] = ()
    ) -> list[Hit]:
        where = " OR ".join(in_filters("source", sources)) or None
        return search_table(self._chunks, text=text, vector=vector, k=k, mode=mode, where=where)
