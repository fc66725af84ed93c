"""The agentic second round (KIMAs §3.5's optional loop, RAGentA's sufficiency judgement): when the chat
model's check was what declined, a judge names what the evidence misses, the agents search for it, and the
fused hits are reranked once more. Every failure falls back to the first evidence."""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Callable, Sequence
from dataclasses import replace

from kimas_desktop.answer.run import PackedEvidence, Run
from kimas_desktop.clock import Clock
from kimas_desktop.config import AgenticConfig
from kimas_desktop.optional import optional
from kimas_desktop.protocols import ChatModel
from kimas_desktop.retrieval.agents import RetrievalAgent
from kimas_desktop.retrieval.fusion import reciprocal_rank_fusion
from kimas_desktop.retrieval.turn_search import RetrievalResult
from kimas_desktop.trace import AgenticStage, Reason
from kimas_desktop.types import Hit

__all__ = ["AgenticRound"]

Agents = Callable[[Sequence[str], ChatModel], list[RetrievalAgent]]
Rerank = Callable[[str, list[Hit]], list[Hit]]


class AgenticRound:
    def __init__(self, config: AgenticConfig, agents: Agents, rerank: Rerank, pool: cf.Executor) -> None:
        self._config = config
        self._agents = agents
        self._rerank = rerank
        self._pool = pool

    def search(self, run: Run, first: RetrievalResult, evidence: PackedEvidence) -> list[Hit] | None:
        """Judge, search the complementary queries, fuse, rerank. None: nothing new."""
        clock, ac = Clock(), self._config
        failed: list[str] = []
        judge = run.stages.judge
        verdict = optional(
            "the agentic judgement (the first evidence instead)",
            lambda: self._pool.submit(judge.judge, run.question, evidence.hits).result(timeout=ac.timeout_s),
            failed.append,
        )
        if verdict is None:
            why = Reason(f"judgement failed: {failed[0]}", "judgement_failed", {"error": failed[0]})
            run.trace.add(AgenticStage(clock.ms(), fallback=why.english, fallback_said=why))
            return None
        record = AgenticStage(0.0, verdict.is_sufficient, verdict.missing_info, tuple(verdict.queries))
        if verdict.is_sufficient or not verdict.queries:
            run.trace.add(replace(record, ms=clock.ms()))
            return None
        remaining = ac.timeout_s - clock.ms() / 1000
        agents = self._agents(first.active, run.stages.chat)
        futures = [self._pool.submit(a.search, q) for q in verdict.queries for a in agents]
        lists = optional(
            "the agentic second search (the first evidence instead)",
            lambda: [f.result(timeout=max(remaining, 0.1)) for f in futures],
            failed.append,
        )
        if lists is None:
            why = Reason(f"second search failed: {failed[-1]}", "second_search_failed", {"error": failed[-1]})
            run.trace.add(replace(record, ms=clock.ms(), fallback=why.english, fallback_said=why))
            return None
        fused = reciprocal_rank_fusion([list(first.hits), *lists])
        hits = self._rerank(first.query, [replace(h, origin=h.origin or "agentic") for h in fused])
        run.trace.add(replace(record, ms=clock.ms(), fused=len(fused)))
        return hits
