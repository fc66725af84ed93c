"""The gate between the evidence and the summarizer (issue 12): what decides whether the chat model is
asked at all.

Right after reranking, ``ground`` picks the grounded quote and makes the lexical answerability decision
(``grounding.py``; milliseconds, no LLM). With a chat model able to judge (``grounding.llm_check``),
that decision declines only the clear cases (``llm_threshold``) and ``model_says_answerable`` asks the
model's JSON judgement (``answer_check.py``: it copies the answering words, which must be in a source)
about the rest. ``decline`` is the answer when either says no: the documents' closest passages instead of
an invention.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

from kimas_desktop.answer.grounding import Grounder, Grounding, decline_text
from kimas_desktop.answer.support import SupportReport
from kimas_desktop.answer.verify import AnswerCheck, Verdict
from kimas_desktop.config import GroundingConfig
from kimas_desktop.events import AnswerDelta, CitationsReady, Done, Event, TraceReady
from kimas_desktop.optional import optional
from kimas_desktop.protocols import Embedder
from kimas_desktop.trace import AnswerCheckStage, QuoteStage, TotalStage, Trace
from kimas_desktop.types import Citation, Hit, Synopsis

__all__ = ["AnswerGate"]


def _ms_since(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 1)


class AnswerGate:
    def __init__(self, embedder: Embedder, config: GroundingConfig, *, small_model: bool) -> None:
        # "auto": any chat model but the embedded 135M one, whose verdict is noise (bench/RESULTS.md).
        self.model_judges = config.llm_check == "on" or (config.llm_check == "auto" and not small_model)
        if self.model_judges:
            config = config.model_copy(update={"threshold": config.llm_threshold})
        self._grounder = Grounder(embedder, config)

    def ground(
        self,
        question: str,
        query: str,
        packed: Sequence[Hit],
        synopses: Sequence[Synopsis | None],
        trace: Trace,
        at_ms: float,
    ) -> Grounding:
        """The quote and the lexical decision over the packed sources (numbered as the answer prompt
        numbers them). ``at_ms``: time since the question, for the trace (when the quote was out)."""
        start = time.perf_counter()
        grounding = self._grounder.ground(question, packed, synopses, query=query)
        a = grounding.answerability
        trace.add(
            QuoteStage(
                _ms_since(start),
                at_ms=round(at_ms + _ms_since(start), 1),
                quotes=tuple(q.n for q in grounding.quotes),
                answerable=a.answerable,
                score=a.score,
                threshold=a.threshold,
                idf=grounding.idf_from,
            )
        )
        return grounding

    def model_says_answerable(
        self, checker: AnswerCheck, question: str, packed: Sequence[Hit], trace: Trace
    ) -> bool:
        """The chat model's judgement; a failed judgement keeps the lexical decision (answerable)."""
        start = time.perf_counter()

        def failed(reason: str) -> Verdict | None:
            trace.add(AnswerCheckStage(_ms_since(start), fallback=f"judgement failed: {reason}"))
            return None

        verdict: Verdict | None = optional("answer check", lambda: checker.judge(question, packed), failed)
        if verdict is None:
            return True
        trace.add(
            AnswerCheckStage(
                _ms_since(start), answerable=verdict.answerable, words=verdict.words, reason=verdict.reason
            )
        )
        return verdict.answerable

    def check(self, answer: str, packed: Sequence[Hit], question: str) -> SupportReport:
        return self._grounder.check(answer, packed, question)


def decline(question: str, grounding: Grounding, trace: Trace, total_ms: float) -> Iterator[Event]:
    """The evidence does not answer: say so, point at the closest passages; the chat model is not asked."""
    text = decline_text(question, grounding.quotes)
    yield AnswerDelta(text)
    citations = tuple(Citation(q.n, q.chunk, q.display, q.start, q.end) for q in grounding.quotes)
    yield CitationsReady(citations, True, "the closest passages; they do not answer the question")
    trace.add(TotalStage(total_ms))
    yield TraceReady(trace)
    yield Done(text, answered_from_sources=False)
