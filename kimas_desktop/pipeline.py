"""The KIMAs pipeline: question → context manager → router → retrieval agents → filter → summarizer.

Two parallel stages keep latency low (KIMAs §3.5):
1. the context manager's rewrite ∥ routing on the raw question's embedding (re-checked cheaply on the
   rewritten query);
2. the retrieval agents (one thread each) ∥ the context analysis for the summarizer.
Then the filter reranks everything with one scorer and the grounding stage (issue 12, ``grounding.py``)
picks the grounded quote and decides whether the evidence answers at all, in milliseconds and before any
LLM step: the quote is the first part of the answer, and a question the documents do not answer is
declined instead of handed to the model. Otherwise the optional agentic round may search again, the
summarizer streams the answer (through a guard against loops and transcripts), and the support check marks
the sentences no source backs; the sources that back the others are the citations, each pointed at its
supporting sentence. Without grounding, the model's look-back step names the citations.
``ask`` yields typed events.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from kimas_desktop.answer.agentic import SufficiencyJudge
from kimas_desktop.answer.filter import EvidenceFilter, pack
from kimas_desktop.answer.gate import AnswerGate
from kimas_desktop.answer.gate import decline as decline_answer
from kimas_desktop.answer.grounding import Grounding, supported_citations
from kimas_desktop.answer.guard import StreamGuard, guard_stream
from kimas_desktop.answer.quote import renumber_quotes
from kimas_desktop.answer.summarizer import (
    NO_KNOWLEDGE,
    NOT_FOUND,
    Summarizer,
    answer_messages,
    is_not_found,
    key_sentences_block,
)
from kimas_desktop.answer.support import uses_quote
from kimas_desktop.answer.verify import AnswerCheck
from kimas_desktop.cancel import CancellableChat
from kimas_desktop.config import Config
from kimas_desktop.context.manager import ContextAnalysis, ContextAnalyzer, QueryContextualizer
from kimas_desktop.control import CancelToken
from kimas_desktop.events import (
    AnswerDelta,
    CitationsReady,
    Done,
    Event,
    QuoteReady,
    Status,
    SupportReady,
    TraceReady,
)
from kimas_desktop.optional import optional
from kimas_desktop.protocols import ChatModel, ChunkSearcher, Embedder, Reranker
from kimas_desktop.retrieval.agents import AgentResult, RetrievalAgent
from kimas_desktop.retrieval.fusion import reciprocal_rank_fusion
from kimas_desktop.routing.router import CentroidRouter
from kimas_desktop.trace import (
    AgenticStage,
    AnswerStage,
    CitationsStage,
    ContextStage,
    FirstTokenStage,
    PackStage,
    ReembedStage,
    RerankStage,
    RetrieveErrorStage,
    RetrieveStage,
    RewriteStage,
    RouteStage,
    SupportStage,
    TotalStage,
    Trace,
)
from kimas_desktop.types import Hit, Message, Route

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetrievalResult:
    question: str
    query: str
    routes: tuple[Route, ...]  # every collection, best first
    active: tuple[str, ...]  # the collections that were searched
    hits: tuple[Hit, ...]  # reranked evidence, best first
    trace: Trace
    analysis: ContextAnalysis | None = None


@dataclass(frozen=True)
class _LlmStages:
    """The stages that call the chat model, all bound to one chat (cancellable for one answer)."""

    chat: ChatModel
    contextualizer: QueryContextualizer
    analyzer: ContextAnalyzer
    summarizer: Summarizer
    judge: SufficiencyJudge
    checker: AnswerCheck


class _Clock:
    def __init__(self) -> None:
        self.start = time.perf_counter()

    def ms(self) -> float:
        return round((time.perf_counter() - self.start) * 1000, 1)


class Pipeline:
    """One configured pipeline. Cheap to build; models load on first use."""

    def __init__(
        self,
        *,
        config: Config,
        chat: ChatModel,
        embedder: Embedder,
        reranker: Reranker,
        searcher: ChunkSearcher,
        small_model: bool = False,
    ) -> None:
        self.config = config
        self._chat = chat
        self._small_model = small_model
        self._embedder = embedder
        self._searcher = searcher
        self._router = CentroidRouter(searcher, embedder, config)
        self._filter = EvidenceFilter(reranker, config.rerank.top_n, config.rerank.min_score)
        self._stages = self._llm_stages(chat)
        self._gate = AnswerGate(embedder, config.grounding, small_model=small_model)
        self._pool = cf.ThreadPoolExecutor(max_workers=6, thread_name_prefix="kimas")

    def _llm_stages(self, chat: ChatModel) -> _LlmStages:
        config = self.config
        return _LlmStages(
            chat=chat,
            contextualizer=QueryContextualizer(chat, config.context, small_model=self._small_model),
            analyzer=ContextAnalyzer(chat, config.context),
            summarizer=Summarizer(
                chat,
                max_answer_tokens=config.summarizer.max_answer_tokens,
                temperature=config.summarizer.temperature,
            ),
            judge=SufficiencyJudge(chat, config.agentic.max_queries),
            checker=AnswerCheck(chat),
        )

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    # -- retrieval path -------------------------------------------------------------------------

    def _collections(self, trace: Trace) -> list[str]:
        """The collections with chunks; those built with another embedding model go into the trace."""
        infos = [c for c in self._searcher.collections() if c.chunks > 0]
        stale = tuple(c.name for c in infos if c.needs_reembedding)
        if stale:
            trace.add(ReembedStage(0.0, stale))
        return [c.name for c in infos]

    def _stage1(
        self,
        question: str,
        history: Sequence[Message],
        names: Sequence[str],
        trace: Trace,
        stages: _LlmStages,
    ) -> tuple[str, list[Route]]:
        """Rewrite ∥ routing on the raw question; re-route on the rewritten query."""
        clock = _Clock()
        rewrite_future = self._pool.submit(stages.contextualizer.rewrite, question, history)
        raw_vec = self._embedder.embed_query([question])[0]
        routes = self._router.score(question, raw_vec, names)
        route_ms = clock.ms()
        rewrite = rewrite_future.result()
        trace.add(RewriteStage(clock.ms(), rewrite.method, rewrite.query, rewrite.note))
        trace.add(RouteStage(route_ms, "question", {r.collection: round(r.score, 4) for r in routes}))
        if rewrite.query != question and self.config.routing.recheck and names:
            t = _Clock()
            query_vec = self._embedder.embed_query([rewrite.query])[0]
            routes = self._router.score(rewrite.query, query_vec, names)
            trace.add(RouteStage(t.ms(), "query", {r.collection: round(r.score, 4) for r in routes}))
        trace.query = rewrite.query
        trace.routes = list(routes)
        return rewrite.query, routes

    def _agents(self, names: Sequence[str], chat: ChatModel) -> list[RetrievalAgent]:
        return [
            RetrievalAgent(n, searcher=self._searcher, embedder=self._embedder, chat=chat, config=self.config)
            for n in names
        ]

    def _search_agents(self, query: str, active: Sequence[str], chat: ChatModel) -> list[AgentResult]:
        return list(self._pool.map(lambda a: a.retrieve(query), self._agents(active, chat)))

    def _retrieve(
        self,
        question: str,
        history: Sequence[Message],
        trace: Trace,
        *,
        analyze: bool,
        stages: _LlmStages,
        names: Sequence[str] | None = None,
    ) -> RetrievalResult:
        trace.question = question
        names = self._collections(trace) if names is None else names
        query, routes = self._stage1(question, history, names, trace, stages)
        active = [r.collection for r in self._router.select(routes)]
        clock = _Clock()
        analysis_future = self._pool.submit(stages.analyzer.analyze, question, history) if analyze else None
        results = self._search_agents(query, active, stages.chat)
        trace.add(RetrieveStage(clock.ms(), {r.collection: r.ms for r in results}))
        for r in results:
            trace.agent_queries[r.collection] = list(r.queries)
            if r.error:
                trace.add(RetrieveErrorStage(0.0, r.collection, r.error))
        analysis = None
        if analysis_future is not None:
            analysis = analysis_future.result()
            trace.add(ContextStage(clock.ms(), analysis.method, analysis.analysis, tuple(analysis.related)))
        t = _Clock()
        candidates = [h for r in results for h in r.hits]
        hits = self._filter.rerank(query, candidates)
        trace.add(RerankStage(t.ms(), len(candidates), len(hits)))
        return RetrievalResult(question, query, tuple(routes), tuple(active), tuple(hits), trace, analysis)

    def retrieve(self, question: str, history: Sequence[Message] = ()) -> RetrievalResult:
        """Steps up to the filter: the best evidence for ``question`` in this conversation."""
        clock = _Clock()
        result = self._retrieve(question, history, Trace(), analyze=False, stages=self._stages)
        result.trace.add(TotalStage(clock.ms()))
        return result

    # -- answer path ----------------------------------------------------------------------------

    def _second_round(
        self, question: str, first: RetrievalResult, packed: list[Hit], trace: Trace, stages: _LlmStages
    ) -> list[Hit]:
        """Agentic round: judge, search the complementary queries, fuse, rerank. Falls back on failure."""
        clock = _Clock()
        ac = self.config.agentic
        failed: list[str] = []

        def fall_back(reason: str) -> None:
            failed.append(reason)

        verdict = optional(
            "the agentic judgement (the first evidence instead)",
            lambda: self._pool.submit(stages.judge.judge, question, packed).result(timeout=ac.timeout_s),
            fall_back,
        )
        if verdict is None:
            trace.add(AgenticStage(clock.ms(), fallback=f"judgement failed: {failed[0]}"))
            return list(first.hits)
        verdict_record = AgenticStage(
            0.0, verdict.is_sufficient, verdict.missing_info, tuple(verdict.queries)
        )
        if verdict.is_sufficient or not verdict.queries:
            trace.add(replace(verdict_record, ms=clock.ms()))
            return list(first.hits)
        remaining = ac.timeout_s - clock.ms() / 1000
        agents = self._agents(first.active, stages.chat)
        futures = [self._pool.submit(a.search, q) for q in verdict.queries for a in agents]
        lists = optional(
            "the agentic second search (the first evidence instead)",
            lambda: [f.result(timeout=max(remaining, 0.1)) for f in futures],
            fall_back,
        )
        if lists is None:
            trace.add(replace(verdict_record, ms=clock.ms(), fallback=f"second search failed: {failed[-1]}"))
            return list(first.hits)
        fused = reciprocal_rank_fusion([list(first.hits), *lists])
        hits = self._filter.rerank(first.query, [replace(h, origin=h.origin or "agentic") for h in fused])
        trace.add(replace(verdict_record, ms=clock.ms(), fused=len(fused)))
        return hits

    def ask(
        self,
        question: str,
        history: Sequence[Message] = (),
        *,
        cancel: CancelToken | None = None,
        decline: bool = True,
    ) -> Iterator[Event]:
        """Answer ``question``: status events, the grounded quote, answer deltas, the support check,
        citations, the trace, then Done.

        Cancelling ``cancel`` ends the model call in progress at once (``Cancelled`` is raised).
        ``decline=False`` lets the model answer even when the evidence was judged not to (the user asked
        it to try)."""
        clock = _Clock()
        stages = self._stages if cancel is None else self._llm_stages(CancellableChat(self._chat, cancel))
        trace = Trace()
        history = list(history)
        names = self._collections(trace)
        if not names:
            trace.question = question
            yield AnswerDelta(NO_KNOWLEDGE)
            yield TraceReady(trace)
            yield Done(NO_KNOWLEDGE, answered_from_sources=False)
            return
        yield Status("context", "Understanding the question…")
        first = self._retrieve(question, history, trace, analyze=bool(history), stages=stages, names=names)
        yield Status("retrieve", f"Searched {', '.join(first.active) or 'no collection'}.")
        sc = self.config.summarizer
        gc = self.config.grounding
        if first.analysis is not None:
            related = list(first.analysis.messages)
        else:
            related = (
                history[-2 * self.config.context.history_turns :] if self.config.context.history_turns else []
            )
        related_tokens = sum(self._chat.count_tokens(m.content) for m in related)
        budget = max(sc.context_tokens - related_tokens, sc.context_tokens // 2)
        t = _Clock()
        packed, used = pack(first.hits, budget, self._chat.count_tokens)
        trace.add(PackStage(t.ms(), len(packed), used, budget))
        grounding: Grounding | None = None
        if gc.enabled and packed:
            synopses = [self._searcher.synopsis(name) for name in first.active]
            grounding = self._gate.ground(question, first.query, packed, synopses, trace, clock.ms())
            yield QuoteReady(grounding.quotes, grounding.answerability)
            if gc.decline and decline and not grounding.answerability.answerable:
                trace.evidence = list(packed)
                yield from decline_answer(question, grounding, trace, clock.ms())
                return
        # The chat model's answerability judgement (models able to judge) comes first: when it says the
        # evidence answers, the agentic round is skipped (measured: its sufficiency verdict was "enough" for
        # every question and cost most of the time to the first token); when it says no, the agentic round
        # searches again and the new evidence is judged once more before the question is declined.
        judged: bool | None = None
        if grounding is not None and gc.decline and decline and self._gate.model_judges and packed:
            yield Status("check", "Checking that your documents answer this…")
            judged = self._gate.model_says_answerable(stages.checker, question, packed, trace)
        if self.config.agentic.enabled and packed and grounding is not None and self._small_model:
            # Measured (bench/RESULTS.md, issue 12): the embedded model's sufficiency verdict is noise and
            # costs most of the time to the first token; the answerability decision stands in for it.
            trace.add(AgenticStage(0.0, skipped="the embedded chat model; answerability decided instead"))
        elif self.config.agentic.enabled and packed and judged is True:
            trace.add(AgenticStage(0.0, skipped="the chat model judged that the evidence answers"))
        elif self.config.agentic.enabled and packed:
            yield Status("agentic", "Checking whether the evidence is enough…")
            hits = self._second_round(question, first, packed, trace, stages)
            if [h.chunk.chunk_id for h in hits] != [h.chunk.chunk_id for h in first.hits]:
                packed, used = pack(hits, budget, self._chat.count_tokens)
                trace.add(PackStage(0.0, len(packed), used, round=2))
                if judged is False and packed:
                    judged = self._gate.model_says_answerable(stages.checker, question, packed, trace)
        trace.evidence = list(packed)
        if judged is False:
            assert grounding is not None
            yield from decline_answer(question, grounding, trace, clock.ms())
            return
        if not packed:
            yield AnswerDelta(NOT_FOUND)
            yield CitationsReady((), True, "nothing relevant was found")
            trace.add(TotalStage(clock.ms()))
            yield TraceReady(trace)
            yield Done(NOT_FOUND, answered_from_sources=False)
            return
        yield TraceReady(trace)  # so far: a stopped answer keeps it (the same record is completed below)
        yield Status("answer", "Writing the answer…")
        quotes = renumber_quotes(grounding.quotes, packed) if grounding is not None else []
        if quotes:
            # The key sentences take the place of evidence, so the prompt (the time to the first token)
            # does not grow: sources ranked below every quoted one make room for them (the quoted ones
            # and their numbers, already shown to the user, stay).
            room = used - self._chat.count_tokens(key_sentences_block(quotes))
            kept, kept_tokens = pack(packed, room, self._chat.count_tokens, keep=max(q.n for q in quotes))
            if len(kept) < len(packed):
                packed = kept
                trace.add(PackStage(0.0, len(packed), kept_tokens, room, round=3))
                trace.evidence = list(packed)
        messages = answer_messages(question, packed, related, key_sentences=quotes)
        guard = StreamGuard()
        parts: list[str] = []
        t = _Clock()
        try:
            for delta in guard_stream(stages.summarizer.stream(messages), guard):
                if not parts:
                    trace.add(FirstTokenStage(clock.ms()))
                parts.append(delta)
                yield AnswerDelta(delta)
        finally:
            trace.add(AnswerStage(t.ms(), len(parts), guard.reason or ""))
        answer = guard.text
        if gc.enabled and gc.support and answer and not is_not_found(answer):
            # Every source counts: the support check finds which one backs each sentence, and those are
            # the citations (the look-back LLM step is not needed; a small model often names another).
            t = _Clock()
            report = self._gate.check(answer, packed, question)
            quote_used = uses_quote(answer, " ".join(q.text for q in quotes), question) if quotes else None
            trace.add(SupportStage(t.ms(), len(report.sentences), report.unsupported, quote_used))
            yield SupportReady(report.sentences, quote_used)
            if sc.citations:
                citations = supported_citations(report.sentences, packed)
                note = "" if citations else "no sentence of the answer is backed by the sources"
                trace.add(
                    CitationsStage(0.0, tuple(c.n for c in citations), note or "from the support check")
                )
                yield CitationsReady(citations, True, note)
        elif sc.citations:
            t = _Clock()
            cited = stages.summarizer.cite(messages, answer, packed)
            trace.add(CitationsStage(t.ms(), tuple(c.n for c in cited.citations), cited.note))
            yield CitationsReady(cited.citations, cited.available, cited.note)
        trace.add(TotalStage(clock.ms()))
        yield TraceReady(trace)
        yield Done(answer, answered_from_sources=not is_not_found(answer))
