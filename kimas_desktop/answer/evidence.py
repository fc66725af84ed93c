"""The evidence the answer is made from: the filter's hits packed into the answer prompt's budget, and the
earlier messages the summarizer sees (the context analysis, a chat model call started once the sources are
packed and collected when the answer prompt needs it)."""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Callable, Sequence

from kimas_desktop.answer.filter import pack
from kimas_desktop.answer.run import AnalysisJob, PackedEvidence, Run
from kimas_desktop.clock import Clock
from kimas_desktop.config import SummarizerConfig
from kimas_desktop.context.dependence import TurnDecision
from kimas_desktop.retrieval.turn_search import RetrievalResult
from kimas_desktop.trace import ContextStage, PackStage
from kimas_desktop.types import Hit, Message

__all__ = ["EvidencePacker", "related_messages"]


class EvidencePacker:
    def __init__(
        self, config: SummarizerConfig, count_tokens: Callable[[str], int], pool: cf.ThreadPoolExecutor
    ) -> None:
        self._config = config
        self._count = count_tokens
        self._pool = pool

    def pack(self, run: Run, first: RetrievalResult, hits: Sequence[Hit] | None = None) -> PackedEvidence:
        """The filter's hits that fit the answer prompt, beside the earlier messages it may carry: those
        the context analysis chooses from (it keeps these or fewer; ``related_messages`` has its choice)."""
        sc, count = self._config, self._count
        chosen_from = run.stages.analyzer.candidates(run.history, first.decision)
        related = [run.history[i] for i in chosen_from if i < len(run.history)]
        budget = max(sc.context_tokens - sum(count(m.content) for m in related), sc.context_tokens // 2)
        t = Clock()
        packed, used = pack(first.hits if hits is None else hits, budget, count)
        run.trace.add(PackStage(t.ms(), len(packed), used, budget, round=1 if hits is None else 2))
        run.trace.evidence = list(packed)
        writes = run.policy is None or run.policy.model_writes(try_anyway=run.options.try_anyway)
        if packed and writes:  # an answer may be written: the analysis runs while the quote is made
            self._start_analysis(run, first.decision)
        return PackedEvidence(tuple(packed), used, budget, tuple(related))

    def _start_analysis(self, run: Run, decision: TurnDecision | None) -> None:
        """The context analysis (a chat model call), started once the sources are packed (the packing
        counts tokens with the chat model, which the analysis would hold)."""
        if run.history and run.analysis is None:
            future = self._pool.submit(run.stages.analyzer.analyze, run.question, run.history, decision)
            run.analysis = AnalysisJob(future, Clock())


def related_messages(run: Run) -> tuple[Message, ...]:
    """The earlier messages the summarizer sees: the context analysis's choice (waited for here, once,
    and put in the trace)."""
    a = run.analysis
    if a is None:
        return ()
    if a.done is None:
        a.done = a.future.result()
        d = a.done
        run.trace.add(ContextStage(a.clock.ms(), d.method, d.analysis, tuple(d.related)))
    return a.done.messages
