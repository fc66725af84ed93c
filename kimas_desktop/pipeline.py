"""The KIMAs pipeline: question → context manager → router → retrieval agents → filter → summarizer.

Each stage lives in its own folder (``context/``, ``routing/``, ``retrieval/``, ``answer/``); this module
only puts them together. Two parallel stages keep latency low (KIMAs §3.5):
1. the context manager's rewrite ∥ routing on the raw question's embedding (re-checked cheaply on the
   rewritten query);
2. the context analysis for the summarizer (a chat model call, started once the sources are packed) ∥
   the grounded quote, the answer policy and any second search: only the answer prompt waits for it.

``ask`` then runs four steps that return typed values: **retrieve** (the above, then the filter packs the
evidence), **decide** (the grounded quote, the lexical answerability, a capable model's check where it can
change the decision, and the one answer policy), **answer** (the summarizer streams through a guard
against loops and transcripts) and **verify** (the per-sentence support check, whose backing sources are
the citations). Every path ends in one ``Outcome`` and one shared ``_finish``.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import logging
import threading
import time
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from kimas_desktop.answer.agentic import SufficiencyJudge
from kimas_desktop.answer.budget import Budget, PromptSpeed, plan
from kimas_desktop.answer.citations import closest_passages, supported_citations, value_citations
from kimas_desktop.answer.compare import Computed, compute
from kimas_desktop.answer.documents import OwnWords, card_quote, in_own_words
from kimas_desktop.answer.filter import EvidenceFilter, pack
from kimas_desktop.answer.grounding import Grounder, Grounding
from kimas_desktop.answer.guard import StreamGuard, guard_stream
from kimas_desktop.answer.outcome import (
    NO_KNOWLEDGE,
    NOTHING_FOUND,
    Answered,
    Declined,
    NothingFound,
    Outcome,
    Stopped,
    decline_text,
)
from kimas_desktop.answer.policy import AnswerPolicy, Decision
from kimas_desktop.answer.quote import renumber_quotes
from kimas_desktop.answer.summarizer import SYSTEM, Summarizer, answer_messages, key_sentences_block
from kimas_desktop.answer.support import SupportChecker, uses_quote
from kimas_desktop.answer.verify import AnswerCheck, Verdict
from kimas_desktop.cancel import CancellableChat
from kimas_desktop.config import Config, SourceConfig
from kimas_desktop.context.dependence import TurnDecision, TurnDependence
from kimas_desktop.context.manager import ContextAnalysis, ContextAnalyzer, QueryContextualizer, Rewrite
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import Cancelled
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
from kimas_desktop.protocols import ChatModel, ChunkSearcher, Embedder, OnlineSource, Reranker
from kimas_desktop.retrieval.agents import AgentResult, RetrievalAgent
from kimas_desktop.retrieval.documents import DocumentFocus, without_pointer
from kimas_desktop.retrieval.fusion import reciprocal_rank_fusion
from kimas_desktop.retrieval.online import OnlineQueryWriter, OnlineRound, OnlineSources
from kimas_desktop.retrieval.second_look import SecondLook
from kimas_desktop.routing.online import SourceMatcher
from kimas_desktop.routing.router import CentroidRouter
from kimas_desktop.trace import (
    AgenticStage,
    AnswerCheckStage,
    AnswerStage,
    BudgetStage,
    CitationsStage,
    ComputeStage,
    ContextStage,
    DecisionStage,
    FirstTokenStage,
    OnlineStage,
    PackStage,
    QuoteStage,
    ReembedStage,
    RerankStage,
    RetrieveErrorStage,
    RetrieveStage,
    RewriteStage,
    RouteStage,
    SupportStage,
    TotalStage,
    Trace,
    TraceBuilder,
    elapsed_ms,
)
from kimas_desktop.types import ChatModelDescription, Hit, Message, Route

__all__ = ["AskOptions", "Pipeline", "RetrievalResult"]

log = logging.getLogger(__name__)

Steps = Generator[Event, None, None]


@dataclass(frozen=True)
class AskOptions:
    """What one answer asks for, beyond the pipeline's config."""

    temperature: float | None = None  # sample the answer warmer (Regenerate), else the configured one
    try_anyway: bool = False  # let the model answer even when the evidence was judged not to
    sources: tuple[str, ...] = ()  # online sources the user asks for this question (beyond their `use`)


@dataclass(frozen=True)
class RetrievalResult:
    question: str
    query: str
    routes: tuple[Route, ...]  # every collection, best first
    active: tuple[str, ...]  # the collections that were searched
    hits: tuple[Hit, ...]  # reranked evidence, best first
    trace: Trace
    decision: TurnDecision | None = None  # whether (and on which turns) the question needs the history
    focus: DocumentFocus | None = None  # a question about a whole document or one of its chapters


@dataclass(frozen=True)
class Evidence:
    """The filter's hits packed into the answer prompt's budget, numbered [1]… in this order."""

    hits: tuple[Hit, ...]
    tokens: int
    budget: int
    related: tuple[Message, ...]  # the earlier messages the summarizer sees


@dataclass(frozen=True)
class _LlmStages:
    """The stages that call the chat model, all bound to one chat (cancellable for one answer)."""

    chat: ChatModel
    contextualizer: QueryContextualizer
    analyzer: ContextAnalyzer
    summarizer: Summarizer
    judge: SufficiencyJudge
    checker: AnswerCheck


@dataclass(frozen=True)
class _Reading:
    """One way a turn is searched: a query, the collections it goes to, and the files it is kept to."""

    query: str
    collections: list[str]
    files: tuple[str, ...] = ()


class _Clock:
    def __init__(self) -> None:
        self.start = time.perf_counter()

    def ms(self) -> float:
        return elapsed_ms(self.start)


@dataclass
class _Run:
    """One answer in the making."""

    question: str
    history: list[Message]
    stages: _LlmStages
    options: AskOptions
    cancel: CancelToken | None = None
    clock: _Clock = field(default_factory=_Clock)
    trace: TraceBuilder = field(default_factory=TraceBuilder)
    checked: bool = False  # the chat model's check read the sources first (its state is in the cache)
    prompt_tokens: int = 0  # the answer prompt's, as planned
    computed: Computed | None = None  # a comparison the evidence answers in code
    focus: DocumentFocus | None = None  # a question about a whole document or one of its chapters
    analysis: _Analysis | None = None  # the context analysis, running until the answer prompt needs it


@dataclass
class _Analysis:
    """The context analysis in progress, and what it found once collected."""

    future: cf.Future[ContextAnalysis]
    clock: _Clock
    done: ContextAnalysis | None = None


class Pipeline:
    """One configured pipeline. Cheap to build; models load on first use. Safe for several answers at
    once (each ``ask`` carries its own state)."""

    def __init__(
        self,
        *,
        config: Config,
        chat: ChatModel,
        embedder: Embedder,
        reranker: Reranker,
        searcher: ChunkSearcher,
        sources: Sequence[tuple[OnlineSource, SourceConfig]] = (),
    ) -> None:
        self.config = config
        self._chat = chat
        self._embedder = embedder
        self._searcher = searcher
        self._router = CentroidRouter(searcher, embedder, config)
        self._filter = EvidenceFilter(reranker, config.rerank.top_n, config.rerank.min_score)
        self._grounder = Grounder(embedder, config.grounding)
        self._support = SupportChecker(embedder)
        self._dependence = TurnDependence(embedder)
        self._described: ChatModelDescription | None = None
        self._speed = PromptSpeed()
        self._describe_lock = threading.Lock()
        self._pool = cf.ThreadPoolExecutor(max_workers=6, thread_name_prefix="kimas")
        self._online = OnlineSources(sources, self._pool)
        self._source_matcher = SourceMatcher(embedder, self._router.mixin_vectors)
        self._second_look = SecondLook(
            searcher, self._filter.rerank, config.hops, config.rerank.top_n, self._pool
        )

    def describe_chat(self) -> ChatModelDescription:
        """The chat model's description (loads the model the first time)."""
        with self._describe_lock:
            if self._described is None:
                self._described = self._chat.describe()
                self._speed.loaded(self._described.prompt_tokens_per_s)
            return self._described

    def _llm_stages(self, chat: ChatModel) -> _LlmStages:
        config = self.config
        return _LlmStages(
            chat=chat,
            contextualizer=QueryContextualizer(
                chat, config.context, self._dependence, small_model=lambda: not self.describe_chat().judges
            ),
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
        self._online.close()

    # -- retrieve -------------------------------------------------------------------------------

    def _collections(self, trace: TraceBuilder) -> list[str]:
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
        trace: TraceBuilder,
        stages: _LlmStages,
    ) -> tuple[Rewrite, list[Route], list[Route]]:
        """The turn's decision and rewrite ∥ routing on the raw question; re-route on a rewritten query
        (a follow-up routes with the topic it carries, so it stays with the conversation's collections).
        Returns the rewrite, its routes, and the raw question's routes."""
        clock = _Clock()
        raw_vec = self._embedder.embed_query([question])[0]
        rewrite_future = self._pool.submit(stages.contextualizer.rewrite, question, history, raw_vec)
        routes = asked = self._router.score(question, raw_vec, names)
        route_ms = clock.ms()
        rewrite = rewrite_future.result()
        d = rewrite.decision
        earlier = tuple(history[i].content for i in d.turns if history[i].role == "user")
        trace.add(
            RewriteStage(
                clock.ms(),
                rewrite.method,
                rewrite.query,
                rewrite.note,
                d.depends,
                d.turns,
                d.reason,
                earlier,
                also_as_asked=d.searched_both_ways(question, rewrite.query),
            )
        )
        trace.add(RouteStage(route_ms, "question", {r.collection: round(r.score, 4) for r in routes}))
        if rewrite.query != question and self.config.routing.recheck and names:
            t = _Clock()
            query_vec = self._embedder.embed_query([rewrite.query])[0]
            routes = self._router.score(rewrite.query, query_vec, names)
            trace.add(RouteStage(t.ms(), "query", {r.collection: round(r.score, 4) for r in routes}))
        trace.query = rewrite.query
        trace.routes = list(routes)
        return rewrite, routes, asked

    def _agents(self, names: Sequence[str], chat: ChatModel) -> list[RetrievalAgent]:
        return [
            RetrievalAgent(n, searcher=self._searcher, embedder=self._embedder, chat=chat, config=self.config)
            for n in names
        ]

    def _retrieve(
        self,
        question: str,
        history: Sequence[Message],
        trace: TraceBuilder,
        stages: _LlmStages,
        names: Sequence[str],
    ) -> RetrievalResult:
        trace.question = question
        rewrite, routes, asked_routes = self._stage1(question, history, names, trace, stages)
        query = rewrite.query
        readings = self._readings(question, history, rewrite, routes, asked_routes)
        active = list(dict.fromkeys(name for r in readings for name in r.collections))
        agents = {name: a for name, a in zip(active, self._agents(active, stages.chat), strict=True)}
        found_by = self._search(readings, agents, trace)
        within = readings[-1].files
        on_subject = bool(rewrite.decision.subject)  # the rules found it on the conversation's subject
        if within and not on_subject and not any(h.chunk.source in within for h in found_by[-2][1]):
            found_by.pop()  # the question alone finds none of those files: it has moved on from them
        elif within:
            trace.stages = [
                replace(s, within=within) if isinstance(s, RewriteStage) else s for s in trace.stages
            ]
        t = _Clock()
        hits = self._filter.rerank_readings(found_by)
        trace.add(RerankStage(t.ms(), sum(len(found) for _, found in found_by), len(hits)))
        hits, found = self._second_look.look(
            question,
            query,
            hits,
            active,
            lambda q: reciprocal_rank_fusion([a.search(q) for a in agents.values()]),
            trace,
        )
        snapshot = trace.snapshot()
        return RetrievalResult(
            question,
            query,
            tuple(routes),
            tuple(active),
            tuple(hits),
            snapshot,
            rewrite.decision,
            found,
        )

    def _readings(
        self,
        question: str,
        history: Sequence[Message],
        rewrite: Rewrite,
        routes: Sequence[Route],
        asked_routes: Sequence[Route],
    ) -> list[_Reading]:
        """What the turn is searched with: the rewritten query; a follow-up that says what it asks also as
        asked, routed by itself (that it leans on the conversation is a guess, and a wrong one must not
        cost what the question finds on its own); and the question as asked kept to the files the
        conversation's answers came from (``TurnDecision.sources``), a reading ``_retrieve`` drops unless
        the search before it finds one of those files by itself or the question stays on the
        conversation's subject (``TurnDecision.subject``)."""
        query, decision = rewrite.query, rewrite.decision
        readings = [_Reading(query, [r.collection for r in self._router.select(routes)])]
        within = decision.sources(history)
        if decision.searched_both_ways(question, query):
            asked = [r.collection for r in self._router.select(asked_routes)]
            readings.append(_Reading(question, asked))
        if within:
            readings.append(_Reading(question, readings[-1].collections, within))
        return readings

    def _search(
        self, readings: Sequence[_Reading], agents: Mapping[str, RetrievalAgent], trace: TraceBuilder
    ) -> list[tuple[str, list[Hit]]]:
        """Each reading's candidates, every reading's collections searched in the pool at once."""
        clock = _Clock()
        jobs = [(k, r, agents[name]) for k, r in enumerate(readings) for name in r.collections]
        results: list[AgentResult] = list(
            self._pool.map(lambda j: j[2].retrieve(j[1].query, j[1].files), jobs)
        )
        ms: dict[str, float] = {}
        found_by: list[tuple[str, list[Hit]]] = [(r.query, []) for r in readings]
        for (k, _, _), r in zip(jobs, results, strict=True):
            found_by[k][1].extend(r.hits)
            ms[r.collection] = max(ms.get(r.collection, 0.0), r.ms)
            searched = trace.agent_queries.get(r.collection, ())
            trace.agent_queries[r.collection] = tuple(dict.fromkeys((*searched, *r.queries)))
            if r.error:
                trace.add(RetrieveErrorStage(0.0, r.collection, r.error))
        trace.add(RetrieveStage(clock.ms(), ms))
        return found_by

    def retrieve(self, question: str, history: Sequence[Message] = ()) -> RetrievalResult:
        """Steps up to the filter: the best evidence for ``question`` in this conversation."""
        clock = _Clock()
        trace = TraceBuilder()
        names = self._collections(trace)
        stages = self._llm_stages(self._chat)
        result = self._retrieve(question, history, trace, stages, names)
        trace.add(TotalStage(clock.ms()))
        return replace(result, trace=trace.snapshot())

    def _pack(self, run: _Run, first: RetrievalResult, hits: Sequence[Hit] | None = None) -> Evidence:
        """The filter's hits that fit the answer prompt, beside the earlier messages it may carry: those
        the context analysis chooses from (it keeps these or fewer; ``_related`` has its choice)."""
        sc, count = self.config.summarizer, self._chat.count_tokens
        chosen_from = run.stages.analyzer.candidates(run.history, first.decision)
        related = [run.history[i] for i in chosen_from if i < len(run.history)]
        budget = max(sc.context_tokens - sum(count(m.content) for m in related), sc.context_tokens // 2)
        t = _Clock()
        packed, used = pack(first.hits if hits is None else hits, budget, count)
        run.trace.add(PackStage(t.ms(), len(packed), used, budget, round=1 if hits is None else 2))
        run.trace.evidence = list(packed)
        if packed:  # an answer may be written: the analysis runs while the quote is made
            self._start_analysis(run, first.decision)
        return Evidence(tuple(packed), used, budget, tuple(related))

    def _start_analysis(self, run: _Run, decision: TurnDecision | None) -> None:
        """The context analysis (a chat model call), started once the sources are packed (the packing
        counts tokens with the chat model, which the analysis would hold) and collected by ``_related``."""
        if run.history and run.analysis is None:
            future = self._pool.submit(run.stages.analyzer.analyze, run.question, run.history, decision)
            run.analysis = _Analysis(future, _Clock())

    def _related(self, run: _Run) -> tuple[Message, ...]:
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

    # -- decide ---------------------------------------------------------------------------------

    def _ground(self, run: _Run, first: RetrievalResult, evidence: Evidence) -> Grounding:
        """The grounded quote and the lexical answerability, over the packed sources."""
        t = _Clock()
        synopses = [self._searcher.synopsis(name) for name in first.active]
        asked, query = self._asked(run.question, first), self._asked(first.query, first)
        g = self._grounder.ground(asked, evidence.hits, synopses, query=query)
        if first.focus is not None and first.focus.whole:  # the quote is the card's own sentences
            quote = card_quote(evidence.hits, first.focus.card)
            g = replace(g, quotes=(quote,) if quote is not None else g.quotes)
        a = g.answerability
        quoted = tuple(q.n for q in g.quotes)
        at = run.clock.ms()
        run.trace.add(QuoteStage(t.ms(), at, quoted, a.answerable, a.score, a.threshold, g.idf_from))
        return g

    @staticmethod
    def _asked(question: str, first: RetrievalResult) -> str:
        """What the question asks of its evidence: of a chapter it points at, the rest of its words."""
        if first.focus is not None and first.focus.section is not None:
            return without_pointer(question) or question
        return question

    def _check(self, run: _Run, hits: Sequence[Hit]) -> Verdict | None:
        """The chat model's extract-and-verify check; a failed check is no evidence (None)."""
        t = _Clock()

        def failed(reason: str) -> None:
            run.trace.add(AnswerCheckStage(t.ms(), fallback=f"the check failed: {reason}"))

        run.checked = True
        verdict = optional("answer check", lambda: run.stages.checker.judge(run.question, hits), failed)
        if verdict is not None:
            v = verdict
            run.trace.add(AnswerCheckStage(t.ms(), v.answerable, words=v.words, reason=v.reason or v.kind))
        return verdict

    def _decide(
        self, run: _Run, evidence: Evidence, grounding: Grounding
    ) -> Generator[Event, None, Decision]:
        """The answer policy over the lexical answerability and, where it can change the decision, the
        chat model's check."""
        policy = AnswerPolicy(self.config.grounding, judges=self.describe_chat().judges)
        lexical, try_anyway = grounding.answerability, run.options.try_anyway
        run.computed = compute(run.question, evidence.hits)
        verdict = None
        if run.computed is None and policy.asks_model(lexical, try_anyway=try_anyway):
            yield Status("check", "Checking that your documents answer this…")
            verdict = self._check(run, evidence.hits)
        card = run.focus is not None and run.focus.whole and any(h.origin == "card" for h in evidence.hits)
        decision = policy.decide(
            lexical, verdict, try_anyway=try_anyway, computed=run.computed is not None, document=card
        )
        kind = verdict.kind if verdict is not None else ""
        run.trace.add(DecisionStage(0.0, decision.answer, decision.rule, lexical.score, kind))
        return decision

    def _second_round(self, run: _Run, first: RetrievalResult, evidence: Evidence) -> list[Hit] | None:
        """Agentic round: judge, search the complementary queries, fuse, rerank. None: nothing new."""
        clock, ac = _Clock(), self.config.agentic
        failed: list[str] = []
        judge = run.stages.judge
        verdict = optional(
            "the agentic judgement (the first evidence instead)",
            lambda: self._pool.submit(judge.judge, run.question, evidence.hits).result(timeout=ac.timeout_s),
            failed.append,
        )
        if verdict is None:
            run.trace.add(AgenticStage(clock.ms(), fallback=f"judgement failed: {failed[0]}"))
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
            run.trace.add(replace(record, ms=clock.ms(), fallback=f"second search failed: {failed[-1]}"))
            return None
        fused = reciprocal_rank_fusion([list(first.hits), *lists])
        hits = self._filter.rerank(first.query, [replace(h, origin=h.origin or "agentic") for h in fused])
        run.trace.add(replace(record, ms=clock.ms(), fused=len(fused)))
        return hits

    def _search_again(
        self, run: _Run, first: RetrievalResult, evidence: Evidence, grounding: Grounding, decision: Decision
    ) -> Generator[Event, None, tuple[Evidence, Grounding, Decision]]:
        """When the chat model's check was what declined, the agentic round (if on) searches for what the
        evidence misses, and the new evidence is decided on once more."""
        same = (evidence, grounding, decision)
        if not self.config.agentic.enabled:
            return same
        if decision.answer or decision.verdict is None:
            why = "the evidence answers" if decision.answer else "the decision needed no chat model"
            run.trace.add(AgenticStage(0.0, skipped=why))
            return same
        yield Status("agentic", "Searching again for what the evidence misses…")
        hits = self._second_round(run, first, evidence)
        if hits is None:
            return same
        evidence = self._pack(run, first, hits)
        if not evidence.hits:
            return same
        grounding = self._ground(run, first, evidence)
        return evidence, grounding, (yield from self._decide(run, evidence, grounding))

    def _source_matches(self, query: str) -> dict[str, float]:
        return self._source_matcher.matches(query, self._online.specs) if self._online.specs else {}

    def _ask_online(
        self, run: _Run, first: RetrievalResult, online: OnlineRound, answers: bool
    ) -> Generator[Event, None, list[Hit] | None]:
        """The online sources' evidence joined to the local (reranked together), or None when none was
        asked or none brought any. Sources set to ``weak`` are asked only when the local evidence does
        not answer; each is waited for no longer than its time limit."""
        if not answers:
            online.local_was_weak()
        if online.asked:
            yield Status("online", f"Asking {', '.join(online.asked)}…")
        found: list[Hit] = []
        for o in online.join():
            r = o.result
            if r is None:
                run.trace.add(OnlineStage(0.0, o.source, skipped=o.skipped))
                continue
            record = OnlineStage(
                r.ms, o.source, r.query, o.why, r.results, r.pages_read, len(r.hits), r.error
            )
            run.trace.add(record)
            found += r.hits
        if not found:
            return None
        t = _Clock()
        hits = self._filter.rerank(first.query, [*first.hits, *found])
        run.trace.add(RerankStage(t.ms(), len(first.hits) + len(found), len(hits)))
        return hits

    def _local_then_online(
        self, run: _Run, first: RetrievalResult, online: OnlineRound
    ) -> Generator[Event, None, tuple[Evidence, Grounding, Decision] | None]:
        """Decide on the local evidence (its quote shows at once), then on it joined with the online
        sources' when they are asked. None: no evidence at all."""
        evidence = self._pack(run, first)
        decided: tuple[Evidence, Grounding, Decision] | None = None
        if evidence.hits:
            grounding = self._ground(run, first, evidence)
            yield QuoteReady(grounding.quotes, grounding.answerability)
            decision = yield from self._decide(run, evidence, grounding)
            decided = yield from self._search_again(run, first, evidence, grounding, decision)
        hits = yield from self._ask_online(run, first, online, decided is not None and decided[2].answer)
        if hits is None:
            return decided
        evidence = self._pack(run, first, hits)
        grounding = self._ground(run, first, evidence)
        yield QuoteReady(grounding.quotes, grounding.answerability)
        return evidence, grounding, (yield from self._decide(run, evidence, grounding))

    # -- answer and verify ----------------------------------------------------------------------

    def _prompt(self, run: _Run, evidence: Evidence, grounding: Grounding) -> tuple[Evidence, list[Message]]:
        """The answer prompt: the sources the model can read before its first word is due (the latency
        budget, ``answer/budget.py``), with the grounded quote's sentences in place of the sources ranked
        below every quoted one (so the key sentences do not make the prompt grow). The quoted sources
        always stay: the key sentences and the citations refer to them."""
        quotes = renumber_quotes(grounding.quotes, evidence.hits)
        count = self._chat.count_tokens
        keep = max((q.n for q in quotes), default=1)
        room = evidence.tokens - count(key_sentences_block(quotes)) if quotes else evidence.tokens
        fitting, tokens = pack(evidence.hits, room, count, keep=keep)
        frame = answer_messages(run.question, (), evidence.related, key_sentences=quotes)
        fixed = count(SYSTEM) + count(frame[1].content)
        elapsed = run.clock.ms() / 1000
        budget = (  # after a check the sources are in the model's cache: reading them again costs nothing
            plan(self.config.summarizer.first_token_s, elapsed, self._speed)
            if not run.checked
            else Budget(self.config.summarizer.first_token_s, elapsed, None, "read by the check", None)
        )
        kept = fitting
        if budget.tokens is not None and fixed + tokens > budget.tokens:
            kept, tokens = pack(evidence.hits, budget.tokens - fixed, count, keep=keep)
        if len(kept) < len(evidence.hits):
            run.trace.add(PackStage(0.0, len(kept), tokens, room, round=3))
            run.trace.evidence = list(kept)
            evidence = replace(evidence, hits=tuple(kept), tokens=tokens)
        over = budget.tokens is not None and fixed + tokens > budget.tokens
        cut = len(fitting) - len(kept)
        run.trace.add(
            BudgetStage(
                0.0,
                budget.target_s,
                round(budget.elapsed_s, 3),
                budget.tokens_per_s,
                budget.speed_from,
                budget.tokens,
                fixed + tokens,
                len(kept),
                cut,
                over,
            )
        )
        run.prompt_tokens = fixed + tokens
        messages = answer_messages(run.question, evidence.hits, evidence.related, key_sentences=quotes)
        return evidence, messages

    def _write(self, run: _Run, messages: list[Message], parts: list[str]) -> Generator[Event, None, str]:
        """Stream the summarizer's answer (through the guard) into ``parts``; returns the answer's text."""
        guard = StreamGuard()
        t = _Clock()
        deltas = run.stages.summarizer.stream(messages, temperature=run.options.temperature)
        try:
            for delta in guard_stream(deltas, guard):
                if not parts:
                    run.trace.add(FirstTokenStage(run.clock.ms()))
                    if not run.checked and run.options.temperature is None:  # else the cache held a part
                        self._speed.observe(run.prompt_tokens, t.ms() / 1000)
                parts.append(delta)
                yield AnswerDelta(delta)
        finally:
            run.trace.add(AnswerStage(t.ms(), len(parts), guard.reason or ""))
        return guard.text

    def _verify(self, run: _Run, answer: str, evidence: Evidence, grounding: Grounding) -> Steps:
        """The support check: each sentence backed by a source or marked; the backing sources are the
        citations."""
        t = _Clock()
        report = self._support.check(answer, evidence.hits, run.question)
        quotes = renumber_quotes(grounding.quotes, evidence.hits)
        quote = " ".join(q.text for q in quotes)
        used = uses_quote(answer, quote, run.question) if quotes else None
        run.trace.add(SupportStage(t.ms(), len(report.sentences), report.unsupported, used))
        yield SupportReady(report.sentences, used)
        citations = supported_citations(report.sentences, evidence.hits)
        note = "" if citations else "no sentence of the answer is backed by the sources"
        run.trace.add(CitationsStage(0.0, tuple(c.n for c in citations), note or "from the support check"))
        yield from self._finish(run, Answered(answer, citations, note))

    def _computed(self, run: _Run, evidence: Evidence, computed: Computed) -> Steps:
        """A comparison answered in code: the two values with the sentences they were read from."""
        c, values = computed.comparison, computed.values
        run.trace.add(
            ComputeStage(0.0, c.order, c.items, tuple(v.text for v in values), tuple(v.n for v in values))
        )
        run.trace.add(FirstTokenStage(run.clock.ms()))
        yield AnswerDelta(computed.text)
        citations = value_citations(values, evidence.hits)
        run.trace.add(
            CitationsStage(0.0, tuple(x.n for x in citations), "the sentences the values come from")
        )
        yield from self._finish(run, Answered(computed.text, citations, "compared in code"))

    def _own_words(self, run: _Run, said: OwnWords) -> Steps:
        """A document's answer in its own words (``answer/documents.py``), for a model that cannot judge."""
        run.trace.add(FirstTokenStage(run.clock.ms()))
        yield AnswerDelta(said.text)
        run.trace.add(CitationsStage(0.0, tuple(c.n for c in said.citations), said.note))
        yield from self._finish(run, Answered(said.text, said.citations, said.note))

    def _answer(self, run: _Run, evidence: Evidence, grounding: Grounding) -> Steps:
        if run.computed is not None:
            yield from self._computed(run, evidence, run.computed)
            return
        if run.focus is not None and not self.describe_chat().judges:
            quotes = renumber_quotes(grounding.quotes, evidence.hits)
            said = in_own_words(run.focus, evidence.hits, quotes)
            if said is not None:
                yield from self._own_words(run, said)
                return
        evidence = replace(evidence, related=self._related(run))
        evidence, messages = self._prompt(run, evidence, grounding)
        yield TraceReady(run.trace.snapshot())  # so far: a stopped answer keeps it
        yield Status("answer", "Writing the answer…")
        written: list[str] = []
        try:
            answer = yield from self._write(run, messages, written)
        except Cancelled:
            yield from self._finish(run, Stopped("".join(written)))
            raise
        yield from self._verify(run, answer, evidence, grounding)

    # -- the one finish -------------------------------------------------------------------------

    def _finish(self, run: _Run, outcome: Outcome) -> Steps:
        """The trailing events of every answer, whatever its outcome."""
        if isinstance(outcome, NothingFound | Declined):
            yield AnswerDelta(outcome.text)
        if isinstance(outcome, Declined):
            note = "the closest passages; they do not answer the question"
            yield CitationsReady(outcome.closest, True, note)
        elif isinstance(outcome, Answered):
            yield CitationsReady(outcome.citations, True, outcome.note)
        elif isinstance(outcome, NothingFound) and outcome.reason == "nothing close":
            yield CitationsReady((), True, "nothing relevant was found")
        with contextlib.suppress(Cancelled):  # the analysis a stopped answer ended has nothing to add
            self._related(run)  # no model call of this answer outlives it
        run.trace.add(TotalStage(run.clock.ms()))
        yield TraceReady(run.trace.snapshot())
        yield Done(outcome)

    # -- ask ------------------------------------------------------------------------------------

    def ask(
        self,
        question: str,
        history: Sequence[Message] = (),
        *,
        cancel: CancelToken | None = None,
        options: AskOptions = AskOptions(),
    ) -> Iterator[Event]:
        """Answer ``question``: status events, the grounded quote, answer deltas, the support check,
        citations, the trace, then ``Done`` with the outcome. Cancelling ``cancel`` ends the model call in
        progress at once (``Cancelled`` is raised, after the trace of what was done)."""
        chat = self._chat if cancel is None else CancellableChat(self._chat, cancel)
        run = _Run(question, list(history), self._llm_stages(chat), options, cancel)
        names = self._collections(run.trace)
        if not names:
            run.trace.question = question
            yield from self._finish(run, NothingFound(NO_KNOWLEDGE, "no knowledge"))
            return
        yield Status("context", "Understanding the question…")
        first = self._retrieve(question, run.history, run.trace, run.stages, names)
        run.focus = first.focus
        yield Status("retrieve", f"Searched {', '.join(first.active) or 'no collection'}.")
        sent = OnlineQueryWriter().write(
            question, run.history, first.decision.turns if first.decision else ()
        )
        online = self._online.start(
            sent.text, asked=options.sources, cancel=cancel, matches=self._source_matches(first.query)
        )
        decided = yield from self._local_then_online(run, first, online)
        if decided is None:
            yield from self._finish(run, NothingFound(NOTHING_FOUND, "nothing close"))
            return
        evidence, grounding, decision = decided
        if not decision.answer:
            text = decline_text(question, grounding.quotes)
            yield from self._finish(run, Declined(text, closest_passages(grounding.quotes), decision.rule))
            return
        yield from self._answer(run, evidence, grounding)
