"""After the rerank, a second look at the evidence (the last step of ``Pipeline.retrieve``).

A question about a whole document or one of its chapters takes that document's card or the chapter's own
passages as its evidence (``documents.py``); any other question may hop for the facts its best passages
leave out (``hops.py``, bounded rounds in the agentic stage's place). Each step goes into the trace.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import replace

from kimas_desktop.clock import elapsed_ms
from kimas_desktop.config import HopsConfig
from kimas_desktop.protocols import ChunkSearcher
from kimas_desktop.retrieval.documents import DocumentFocus, about_documents, card_hit, focus, without_pointer
from kimas_desktop.retrieval.hops import bridge_queries, covered, merge_hops
from kimas_desktop.text.terms import TermWeights
from kimas_desktop.trace import DocumentStage, HopStage, Reason, TraceBuilder
from kimas_desktop.types import Hit

__all__ = ["SECTION_PASSAGES", "SecondLook"]

SECTION_PASSAGES = 48  # a chapter's passages the reranker reads for a question about that chapter

Rerank = Callable[[str, Sequence[Hit]], list[Hit]]
Search = Callable[[str], list[Hit]]  # one query through every active collection's agent, fused


class SecondLook:
    def __init__(
        self, searcher: ChunkSearcher, rerank: Rerank, hops: HopsConfig, top_n: int, pool: Executor
    ) -> None:
        self._searcher = searcher
        self._rerank = rerank
        self._hops = hops
        self._top_n = top_n
        self._pool = pool

    def look(
        self,
        question: str,
        query: str,
        hits: list[Hit],
        active: Sequence[str],
        search: Search,
        trace: TraceBuilder,
    ) -> tuple[list[Hit], DocumentFocus | None]:
        """The evidence after the second look, and the document or chapter the question is about."""
        found = self.focus(question, hits, active)
        if found is None:
            return self.hop(query, hits, active, search, trace), None
        return self.focused(question, found, hits, trace), found

    def focus(self, question: str, hits: Sequence[Hit], active: Sequence[str]) -> DocumentFocus | None:
        """Whether the question is about a whole document or one of its chapters. The cards are read only
        for a question worded so."""
        if not about_documents(question):
            return None
        return focus(question, hits, {name: self._searcher.cards(name) for name in active})

    def focused(self, question: str, found: DocumentFocus, hits: list[Hit], trace: TraceBuilder) -> list[Hit]:
        """The card (a whole document) or the chapter's passages (ranked for what the question asks of
        it); a document's question is answered from its card alone, a chapter's from that chapter alone."""
        start = time.perf_counter()
        source = found.card.source
        if found.section is None:
            top = [card_hit(found.collection, found.card, max((h.score for h in hits), default=1.0))]
        else:
            chunks = self._searcher.section(
                found.collection, source, found.section.heading, limit=SECTION_PASSAGES
            )
            inside = [Hit(c, 0.0, origin="section") for c in chunks]
            top = self._rerank(without_pointer(question), inside) or inside[: self._top_n]
        heading = found.section.heading if found.section is not None else ""
        trace.add(DocumentStage(elapsed_ms(start), source, heading, len(top), found.why, found.why_said))
        return top or hits

    def hop(
        self, query: str, hits: list[Hit], active: Sequence[str], search: Search, trace: TraceBuilder
    ) -> list[Hit]:
        """Multi-hop retrieval: when the best passage does not cover the question, bounded rounds search
        for the bridge from the best passages; each hop goes into the trace."""
        hc = self._hops
        if not hc.enabled or hc.rounds == 0 or not hits:
            return hits
        start = time.perf_counter()
        weights = TermWeights.from_synopses(self._searcher.synopsis(n) for n in active)
        weights = weights or TermWeights.from_texts([h.chunk.text for h in hits])
        plan = covered(query, hits, weights, hc.cover)
        if not plan.hop:
            trace.add(HopStage(elapsed_ms(start), 0, why=plan.why, why_said=plan.why_said))
            return hits
        current, bridge_from = list(hits), list(hits)
        stop = Reason("the rounds are used up", "rounds_used_up")
        for r in range(1, hc.rounds + 1):
            queries = bridge_queries(query, bridge_from, weights, passages=hc.passages, terms=hc.terms)
            found = list(self._pool.map(search, queries))
            limit = max(len(hits), self._top_n)
            merged = merge_hops(current, found, keep=hc.keep, per_hop=hc.per_hop, limit=limit)
            before = {h.chunk.chunk_id for h in current}
            added = [h for h in merged if h.chunk.chunk_id not in before]
            for q, lst in zip(queries, found, strict=True):
                ids = {h.chunk.chunk_id for h in lst}
                new = tuple(h.chunk.chunk_id for h in added if h.chunk.chunk_id in ids)
                trace.add(HopStage(elapsed_ms(start), r, q, new))
            current = [replace(h, origin=h.origin or "hop") for h in merged]
            if not added:
                stop = Reason("a hop found nothing new", "nothing_new")
                break
            bridge_from = added
        why = plan.why_said or plan.why
        stopped = Reason(f"{plan.why}; stopped: {stop.english}", "stopped", {"why": why, "stop": stop})
        trace.add(HopStage(elapsed_ms(start), 0, why=stopped.english, why_said=stopped))
        return current
