"""The filter (KIMAs §3.4): rescore every candidate from every agent against one query with one scorer.

Scores from different agents and rewritten queries are not comparable, so all candidates are deduplicated
and scored again by the configured ``Reranker`` against the context-enriched question; candidates below
``rerank.min_score`` are dropped (too weak to answer from) and the rest cut to ``rerank.top_n``. Then
``pack`` fits the best of them into the summarizer's token budget.

A follow-up that says what it asks in its own words has two readings, the rewrite that carries the
conversation and the question as asked (``rerank_readings``): each reading's candidates are scored against
that reading and the two rankings are fused by rank, so a wrong guess that the question leans on the
conversation cannot push out what the question itself finds (issue 23; scoring both readings' candidates
against the rewrite alone lost them).

The reading kept to the files the conversation's answers came from asks the same query as a search of the
whole collection when the question was not rewritten: its passages are found twice and fused above the one
the whole search ranks first. That one leads (issue 69: a question that stands alone was declined in the
fourth turn of a chat and answered in a new one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from kimas_desktop.protocols import Reranker
from kimas_desktop.retrieval.across_scripts import AcrossScripts
from kimas_desktop.retrieval.fusion import deduplicate, reciprocal_rank_fusion
from kimas_desktop.retrieval.second_opinion import SecondOpinion
from kimas_desktop.types import Hit

__all__ = ["EvidenceFilter", "format_source", "pack"]


class EvidenceFilter:
    def __init__(
        self,
        reranker: Reranker,
        top_n: int,
        min_score: float = float("-inf"),
        second: SecondOpinion | None = None,
        across: AcrossScripts | None = None,
    ) -> None:
        """``second``: another model's order of the kept hits (``retrieval/second_opinion.py``);
        ``across``: the reader's order of candidates in several scripts (``retrieval/across_scripts.py``),
        which takes the place of both orders when they mix."""
        self._reranker = reranker
        self._top_n = top_n
        self._min_score = min_score
        self._second = second
        self._across = across

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
        read = self._across.order(query, ranked) if self._across is not None else None
        if read is not None:
            return read[: top_n or self._top_n]
        kept = ranked[: top_n or self._top_n]
        return self._second.order(query, kept) if self._second is not None else kept

    def rerank_readings(self, readings: Sequence[tuple[str, Sequence[Hit]]]) -> list[Hit]:
        """Each reading's candidates reranked against it, the rankings fused by rank (best first). A hit
        keeps the score its reading gave it, the first reading's when several found it."""
        rankings = [self.rerank(query, candidates) for query, candidates in readings]
        if len(rankings) == 1:
            return rankings[0]
        scored: dict[str, Hit] = {}
        for ranking in rankings:
            for hit in ranking:
                scored.setdefault(hit.chunk.chunk_id, hit)
        fused = [scored[h.chunk.chunk_id] for h in reciprocal_rank_fusion(rankings)]
        if readings[0][0] == readings[-1][0] and rankings[0]:  # the last one narrowed the first one's query
            lead = rankings[0][0]
            fused = [lead, *(h for h in fused if h.chunk.chunk_id != lead.chunk.chunk_id)]
        return deduplicate(fused)[: self._top_n]


def format_source(n: int, hit: Hit) -> str:
    """One numbered source as the summarizer reads it. Its label holds no words of any language
    (``file.txt:1-2``, ``file.pdf, p. 3``): a small model copies its prompt's labels into its answer
    (issue 72: "lines 1-2" inside a Chinese answer), and ``writing/echo.py`` drops what it copies."""
    c = hit.chunk
    place = c.file_name
    if c.page is not None:
        place += f", p. {c.page}"
    elif c.lines is not None:
        place += f":{c.line_start}-{c.line_end}"
    where = ", ".join(x for x in (place, c.heading) if x)
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
