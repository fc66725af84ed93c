"""The tables of a ``LanceStore``: their schemas, and turning rows into our types and back."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from kimas_desktop.protocols import Vector
from kimas_desktop.types import Chunk

META = "kimas_collections"
IN_BATCH = 400  # values per SQL IN (...) list
CHUNK_COLUMNS = [
    "chunk_id", "collection", "source", "text", "page", "line_start", "line_end", "heading", "file_hash",
    "indexed_at", "ocr",
]  # fmt: skip

META_SCHEMA = pa.schema(
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
        pa.field("syncing", pa.bool_()),  # the crash flag of versions before writer leases: read only
        pa.field("centroids", pa.list_(pa.float32())),  # k × dim, row-major
        pa.field("centroid_counts", pa.list_(pa.int64())),
        pa.field("synopsis_changes", pa.int64()),
        # Content word → occurrences in the chunks, as parallel lists sorted by word; null = not counted.
        pa.field("terms", pa.list_(pa.string())),
        pa.field("term_counts", pa.list_(pa.int64())),
        # The embedder's output on fixed probe texts (n × dim, row-major): its identity beyond the name.
        pa.field("probe", pa.list_(pa.float32())),
        # A re-embedding under way: the tables it builds, and the embedder it builds them with.
        pa.field("pending_table", pa.string()),
        pa.field("pending_model", pa.string()),
        pa.field("pending_dim", pa.int32()),
        pa.field("pending_probe", pa.list_(pa.float32())),
    ]
)

FILES_SCHEMA = pa.schema(
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
        # The document's outline and card (``indexer.upkeep.cards``) as JSON; null for files indexed before cards.
        pa.field("card", pa.string()),
    ]
)


def chunks_schema(dim: int) -> pa.Schema:
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
            pa.field("ocr", pa.bool_()),  # read by OCR; null in tables made before the column existed
            pa.field("ordinal", pa.int32()),
            pa.field("vector", pa.list_(pa.float32(), dim)),
            pa.field("terms", pa.string()),  # the text as the full-text index reads it (``full_text``)
        ]
    )


def chunk_columns(table: Any) -> list[str]:
    """The ``CHUNK_COLUMNS`` that ``table`` has: a table made by an older version lacks the newer ones
    (``chunk_from_row`` reads them as absent) until the first write adds them (``add_missing_columns``);
    reading never writes."""
    names = set(table.schema.names)
    return [c for c in CHUNK_COLUMNS if c in names]


def add_missing_columns(table: Any, schema: pa.Schema) -> None:
    """Add the columns of ``schema`` that ``table``, made by an older version, lacks (all null)."""
    missing = [f for f in schema if f.name not in table.schema.names]
    if not missing:
        return
    try:
        table.add_columns(missing)
    except ValueError:  # added by another process in the meantime
        table.checkout_latest()
        if any(f.name not in table.schema.names for f in missing):
            raise


def sql_str(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def in_filters(column: str, values: Iterable[str]) -> Iterable[str]:
    items = list(values)
    for i in range(0, len(items), IN_BATCH):
        yield f"{column} IN ({', '.join(sql_str(v) for v in items[i : i + IN_BATCH])})"


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


def chunk_from_row(row: dict[str, Any]) -> Chunk:
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
        ocr=bool(row.get("ocr")),
    )
