"""Retrieval testing (issue 26): type a query and see why each passage ranks where it does.

For the collections the question is routed to, each passage found shows its score and rank in the dense
search, the full-text search and their fusion (each collection's hybrid search), and its place and score
after the reranker in the product's own retrieval (``Pipeline.retrieve``: rewrite, routing, agents,
rerank, hops), with the routing scores per collection and what the rewrite did. Reads only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kimas_desktop.pipeline import Pipeline
from kimas_desktop.protocols import ChunkSearcher, Embedder
from kimas_desktop.types import Chunk, Hit, Route

DEPTH = 20  # passages looked at in each stage


@dataclass
class PassageScores:
    chunk: Chunk
    dense: float | None = None
    dense_rank: int | None = None
    fulltext: float | None = None
    fulltext_rank: int | None = None
    fused: float | None = None
    fused_rank: int | None = None
    reranked: float | None = None
    rank: int | None = None  # place in the final evidence (1 = first), None: not kept

    def stages(self) -> tuple[str, str, str, str]:
        """ "rank. score" in the final order, the dense, the full-text and the fused search ("—": absent)."""

        def cell(score: float | None, rank: int | None) -> str:
            return "—" if rank is None or score is None else f"{rank}. {score:.3f}"

        return (
            cell(self.reranked, self.rank),
            cell(self.dense, self.dense_rank),
            cell(self.fulltext, self.fulltext_rank),
            cell(self.fused, self.fused_rank),
        )


@dataclass(frozen=True)
class RetrievalTest:
    question: str
    query: str  # what was searched after the rewrite
    rewrite: str  # what the rewrite did, in words
    routes: tuple[Route, ...]
    searched: tuple[str, ...]
    passages: list[PassageScores] = field(default_factory=list)  # final order first, then the others


def inspect_retrieval(
    pipeline: Pipeline, searcher: ChunkSearcher, embedder: Embedder, question: str
) -> RetrievalTest:
    result = pipeline.retrieve(question)
    vector = embedder.embed_query([result.query])[0]
    rows: dict[str, PassageScores] = {}

    def row(h: Hit) -> PassageScores:
        return rows.setdefault(h.chunk.chunk_id, PassageScores(h.chunk))

    for name in result.active:
        for mode in ("dense", "fts", "hybrid"):
            hits = searcher.search(name, text=result.query, vector=vector, k=DEPTH, mode=mode)
            for i, h in enumerate(hits, 1):
                r = row(h)
                if mode == "dense":
                    r.dense, r.dense_rank = round(h.score, 4), i
                elif mode == "fts":
                    r.fulltext, r.fulltext_rank = round(h.score, 4), i
                else:
                    r.fused, r.fused_rank = round(h.score, 4), i
    for i, h in enumerate(result.hits, 1):
        r = row(h)
        r.reranked, r.rank = round(h.score, 4), i
    decision = result.decision
    rewrite = "searched as asked" if result.query == question else f"rewritten to “{result.query}”"
    if decision is not None and decision.searched_both_ways(question, result.query):
        rewrite += " and searched as asked too"
    if decision is not None and decision.reason:
        rewrite += f" ({decision.reason})"
    passages = sorted(rows.values(), key=lambda r: (r.rank is None, r.rank or 0, r.fused_rank or DEPTH + 1))
    return RetrievalTest(question, result.query, rewrite, result.routes, result.active, passages)
