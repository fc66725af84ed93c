"""Searching one chunk table: dense (cosine), full-text (BM25), or both fused (reciprocal rank).

Scores: ``dense`` is cosine similarity (1 − cosine distance); ``fts`` is LanceDB's BM25 score; ``hybrid`` is
reciprocal-rank fusion of the two lists, Σ 1/(60 + rank) with 1-based ranks, so a chunk first in both
lists scores 2/61 ≈ 0.0328 and a chunk found by only one list at most 1/61.

Copies of a file (the same bytes at several paths: the store keeps each copy's rows, ``file_hash`` equal) are
searched once: a chunk and its copies take one place in the results, the best-ranked copy's. The search asks
for more rows until it has ``k`` distinct ones, at most ``COPIES_MAX`` × ``k``: otherwise five copies of one
chunk fill a top 5. With four copies of every file (488,812 chunks, bench.scale) the dense search through the
index then finds the known item as often as the exact search (0.76 / 0.76); with 48 copies the cap keeps a
search under 200 ms where asking for every copy took 450 ms.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from indexer.store.full_text import TERMS, fts_column, query_terms
from indexer.store.schema import chunk_columns, chunk_from_row
from kimas_desktop.protocols import SearchMode, Vector
from kimas_desktop.retrieval.fusion import RRF_K, reciprocal_rank_fusion
from kimas_desktop.types import Hit

# The vector index (IVF-HNSW-SQ, ``CollectionTables.refresh_indexes``) searched with LanceDB's defaults found
# the known item in the top 5 for 0.37 of 100 questions where the exact search found it for 0.60 (207,000
# chunks, bench.scale). The graph walked wider (``ef``) and the candidates re-ranked by their exact vectors
# (``refine_factor`` × k of them; HNSW needs ``ef`` ≥ that): with ``ef`` 100, 0.52 against 0.61 on 552,528
# near-duplicate chunks; with 1,000, 0.60, for a few milliseconds more (issue 59).
ANN_EF = 1000
ANN_REFINE = 10
COPIES_MAX = 16


def search_table(
    table: Any, *, text: str, vector: Vector, k: int, mode: SearchMode, where: str | None = None
) -> list[Hit]:
    """Best ``k`` chunks of ``table``, best first (``vector`` is unused in ``fts`` mode); ``where``: only
    the chunks that pass this SQL filter (applied before the search, so ``k`` of them still come back)."""
    if mode == "fts":
        return fts(table, text, k, where)
    if mode == "dense":
        return dense(table, vector, k, where)
    pool = max(2 * k, 20)
    meaning = dense(table, vector, pool, where)
    same = {copy_key(h.chunk.file_hash, h.chunk.text, h.chunk.chunk_id): h.chunk for h in meaning}
    words = [  # a copy the dense list holds under another path is that list's chunk
        replace(h, chunk=same.get(copy_key(h.chunk.file_hash, h.chunk.text, h.chunk.chunk_id), h.chunk))
        for h in fts(table, text, pool, where)
    ]
    fused = reciprocal_rank_fusion([meaning, words], k=RRF_K)
    return [replace(h, origin="hybrid") for h in fused[:k]]


def dense(table: Any, vector: Vector, k: int, where: str | None = None, *, exact: bool = False) -> list[Hit]:
    """Best ``k`` chunks by cosine; ``exact``: bypass the vector index (the flat search it is checked by)."""

    def rows(n: int) -> list[dict[str, Any]]:
        query = table.search(vector, vector_column_name="vector").distance_type("cosine")
        query = query.ef(max(ANN_EF, n * ANN_REFINE)).refine_factor(ANN_REFINE)  # read once it is indexed
        if exact:
            query = query.bypass_vector_index()
        if where:
            query = query.where(where, prefilter=True)
        found: list[dict[str, Any]] = (
            query.select([*chunk_columns(table), "vector", "_distance"]).limit(n).to_arrow().to_pylist()
        )
        return found

    return [
        Hit(chunk_from_row(r), 1.0 - float(r["_distance"]), "dense", tuple(r["vector"]))
        for r in distinct(rows, k)
    ]


def fts(table: Any, text: str, k: int, where: str | None = None) -> list[Hit]:
    if not text.strip():
        return []
    column = fts_column(table)

    def rows(n: int) -> list[dict[str, Any]]:
        query = table.search(
            query_terms(text) if column == TERMS else text, query_type="fts", fts_columns=column
        )
        if where:
            query = query.where(where, prefilter=True)
        found: list[dict[str, Any]] = (
            query.select([*chunk_columns(table), "vector", "_score"]).limit(n).to_arrow().to_pylist()
        )
        return found

    return [Hit(chunk_from_row(r), float(r["_score"]), "fts", tuple(r["vector"])) for r in distinct(rows, k)]


def distinct(rows: Callable[[int], list[dict[str, Any]]], k: int) -> list[dict[str, Any]]:
    """The best ``k`` of ``rows(n)`` (the best ``n`` rows of a search) with one row per chunk of a file's
    copies, asking for four times as many rows while copies leave fewer than ``k``."""
    n = k
    while True:
        found = rows(n)
        kept: dict[tuple[str, str], dict[str, Any]] = {}
        for row in found:
            kept.setdefault(copy_key(row.get("file_hash"), row["text"], row["chunk_id"]), row)
        if len(kept) >= k or len(found) < n or n >= k * COPIES_MAX:
            return list(kept.values())[:k]
        n *= 4


def copy_key(file_hash: str | None, text: str, chunk_id: str) -> tuple[str, str]:
    """One key for a chunk and its copies in byte-identical files."""
    return (file_hash, text) if file_hash else (chunk_id, "")
