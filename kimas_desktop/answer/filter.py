"""The filter (KIMAs §3.4): rescore every candidate from every agent against one query with one scorer.

Scores from different agents and rewritten queries are not comparable, so all candidates are deduplicated
and scored again by the configured ``Reranker`` against the context-enriched question; candidates below
``rerank.min_score`` are dropped (too weak to answer from) and the rest cut to ``rerank.top_n``. Then ``pack`` fits the best of them into the summarizer's token budget.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from kimas_desktop.protocols import Reranker
from kimas_desktop.retrieval.fusion import deduplicate
from kimas_desktop.types import Hit


class EvidenceFilter:
    def __init__(self, reranker: Reranker, top_n: int, min_score: float = float("-inf")) -> None:
        self._reranker = reranker
        self._top_n = top_n
        self._min_score = min_score

    def rerank(self, query: str, candidates: Sequence[Hit], *, top_n: int | None = None) -> list[Hit]:
        unique = deduplicate(candidates)
        if not unique:
            return []
        scores = self._reranker.score(query, [h.chunk.text for h in unique], [h.vector for h in unique])
        ranked = sorted(
            (replace(h, score=float(s)) for h, s in zip(unique, scores, strict=True) if s >= self._min_score),
            key=lambda h: h.score,
            reverse=True,
        )
        return ranked[: top_n or self._top_n]


def format_source(n: int, hit: Hit) -> str:
    """One numbered source as the summarizer reads it."""
    c = hit.chunk
    name = c.source.rsplit("/", 1)[-1]
    where = ", ".join(x for x in (name, c.locator, c.heading) if x)
    return f"[{n}] ({where})\n{c.text.strip()}"


def pack(
    hits: Sequence[Hit], budget_tokens: int, count_tokens: Callable[[str], int], *, keep: int = 0
) -> tuple[list[Hit], int]:
    """The best hits, in order, whose formatted text fits ``budget_tokens``; and the tokens used.

    A hit that does not fit is skipped (a smaller one after it may still fit). The first ``keep`` hits
    stay whatever they cost.
    """
    packed: list[Hit] = []
    used = 0
    for i, hit in enumerate(hits):
        cost = count_tokens(format_source(len(packed) + 1, hit)) + 2
        if i >= keep and used + cost > budget_tokens:
            continue
        packed.append(hit)
        used += cost
    return packed, used
