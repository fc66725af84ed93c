"""Searching one chunk table: dense (cosine), full-text (BM25), or both fused (reciprocal rank).

Scores: ``dense`` is cosine similarity (1 − cosine distance); ``fts`` is LanceDB's BM25 score; ``hybrid`` is
reciprocal-rank fusion of the two lists, Σ 1/(60 + rank) with 1-based ranks, so a chunk first in both
lists scores 2/61 ≈ 0.0328 and a chunk found by only one list at most 1/61.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from indexer.store.full_text import TERMS, fts_column, query_terms
from indexer.store.schema import chunk_columns, chunk_from_row
from kimas_desktop.protocols import SearchMode, Vector
from kimas_desktop.retrieval.fusion import RRF_K, reciprocal_rank_fusion
from kimas_desktop.types import Hit

# The vector index (IVF-HNSW-SQ, ``CollectionTables.refresh_indexes``) searched with LanceDB's defaults found
# the known item in the top 5 for 0.37 of 100 questions where the exact search found it for 0.60 (207,000
# chunks, bench.scale); the graph walked wider (``ef``) and the candidates re-ranked by their exact vectors
# (``refine_factor`` × k of them; HNSW needs ``ef`` ≥ that) found it for 0.58, at about 4 ms (issue 59).
ANN_EF = 100
ANN_REFINE = 10


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
    fused = reciprocal_rank_fusion(
        [dense(table, vector, pool, where), fts(table, text, pool, where)], k=RRF_K
    )
    return [replace(h, origin="hybrid") for h in fused[:k]]


def dense(table: Any, vector: Vector, k: int, where: str | None = None) -> list[Hit]:
    query = table.search(vector, vector_column_name="vector").distance_type("cosine")
    query = query.ef(max(ANN_EF, k * ANN_REFINE)).refine_factor(ANN_REFINE)  # read once it is indexed
    if where:
        query = query.where(where, prefilter=True)
    rows = query.select([*chunk_columns(table), "vector", "_distance"]).limit(k).to_arrow().to_pylist()
    return [Hit(chunk_from_row(r), 1.0 - float(r["_distance"]), "dense", tuple(r["vector"])) for r in rows]


def fts(table: Any, text: str, k: int, where: str | None = None) -> list[Hit]:
    if not text.strip():
        return []
    column = fts_column(table)
    query = table.search(query_terms(text) if column == TERMS else text, query_type="fts", fts_columns=column)
    if where:
        query = query.where(where, prefilter=True)
    rows = query.select([*chunk_columns(table), "vector", "_score"]).limit(k).to_arrow().to_pylist()
    return [Hit(chunk_from_row(r), float(r["_score"]), "fts", tuple(r["vector"])) for r in rows]
