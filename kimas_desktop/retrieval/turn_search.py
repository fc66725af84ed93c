"""The turn search: everything a question goes through before the evidence is packed.

In order: the collections with chunks; the context manager's decision and rewrite in parallel with routing
on the raw question's embedding (re-checked on a rewritten query); the readings the turn is searched with;
one retrieval agent per collection searched for every reading at once; the rule that drops a reading kept
to the conversation's files (``drop_unfound``); the one reranker over every reading; the second look
(hops, entity lookups, a document's card). Its trace records are written once, in that order.
"""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from kimas_desktop.clock import Clock
from kimas_desktop.config import Config
from kimas_desktop.context.dependence import TurnDecision
from kimas_desktop.context.manager import QueryContextualizer, Rewrite
from kimas_desktop.protocols import ChatModel, ChunkSearcher, Embedder
from kimas_desktop.retrieval.agents import AgentResult, RetrievalAgent
from kimas_desktop.retrieval.documents import DocumentFocus
from kimas_desktop.retrieval.fusion import reciprocal_rank_fusion
from kimas_desktop.retrieval.other_scripts import FileScripts, OtherScripts
from kimas_desktop.retrieval.second_look import SecondLook
from kimas_desktop.routing.router import CentroidRouter
from kimas_desktop.trace import (
    ReembedStage,
    RerankStage,
    RetrieveErrorStage,
    RetrieveStage,
    RewriteStage,
    RouteStage,
    Trace,
    TraceBuilder,
)
from kimas_desktop.types import Hit, Message, Route

__all__ = ["Reading", "RetrievalResult", "TurnSearch"]

Found = list[tuple[str, list[Hit]]]  # each reading's query and the hits its search found
RerankReadings = Callable[[Found], list[Hit]]  # the one reranker over every reading's hits


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
class Reading:
    """One way a turn is searched: a query, the collections it goes to, and the files it is kept to."""

    query: str
    collections: list[str]
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Understood:
    """The rewrite with its routes (on the rewritten query, and on the question as asked) and the trace
    records of both, written once the search knows which readings it kept."""

    rewrite: Rewrite
    routes: list[Route]
    asked: list[Route]
    rewrite_record: RewriteStage
    route_records: tuple[RouteStage, ...]


class TurnSearch:
    """The KIMAs context manager's rewrite, knowledge routing and the retrieval agents, for one turn."""

    def __init__(
        self,
        *,
        config: Config,
        searcher: ChunkSearcher,
        embedder: Embedder,
        router: CentroidRouter,
        rerank: RerankReadings,
        second_look: SecondLook,
        pool: cf.ThreadPoolExecutor,
    ) -> None:
        self._config = config
        self._searcher = searcher
        self._embedder = embedder
        self._router = router
        self._rerank = rerank
        self._second_look = second_look
        self._pool = pool
        self._file_scripts = FileScripts()  # kept across questions; one OtherScripts per question (agents)

    def collections(self, trace: TraceBuilder) -> list[str]:
        """The collections with chunks; those built with another embedding model go into the trace."""
        infos = [c for c in self._searcher.collections() if c.chunks > 0]
        stale = tuple(c.name for c in infos if c.needs_reembedding)
        if stale:
            trace.add(ReembedStage(0.0, stale))
        return [c.name for c in infos]

    def agents(self, names: Sequence[str], chat: ChatModel) -> list[RetrievalAgent]:
        """One retrieval agent per collection, for one question: they share its ``OtherScripts``, so each
        collection's cards are read once however many searches the agents make."""
        other_scripts = OtherScripts(self._searcher, self._file_scripts)
        return [
            RetrievalAgent(
                n,
                searcher=self._searcher,
                embedder=self._embedder,
                chat=chat,
                config=self._config,
                other_scripts=other_scripts,
            )
            for n in names
        ]

    def search(
        self,
        question: str,
        history: Sequence[Message],
        trace: TraceBuilder,
        contextualizer: QueryContextualizer,
        chat: ChatModel,
        names: Sequence[str],
    ) -> RetrievalResult:
        """The turn's evidence, reranked, with the trace of how it was found."""
        trace.question = question
        u = self._understand(question, history, names, trace, contextualizer)
        readings = self.readings(question, history, u.rewrite, u.routes, u.asked)
        active = list(dict.fromkeys(name for r in readings for name in r.collections))
        agents = dict(zip(active, self.agents(active, chat), strict=True))
        found_by, records = self._search(readings, agents, trace)
        within = readings[-1].files
        if self.moved_on(found_by, within, on_subject=bool(u.rewrite.decision.subject)):
            found_by, within = found_by[:-1], ()
        for record in (replace(u.rewrite_record, within=within), *u.route_records, *records):
            trace.add(record)
        clock = Clock()
        hits = self._rerank(found_by)
        trace.add(RerankStage(clock.ms(), sum(len(found) for _, found in found_by), len(hits)))
        hits, focus = self._second_look.look(
            question,
            u.rewrite.query,
            hits,
            active,
            lambda q: reciprocal_rank_fusion([a.search(q) for a in agents.values()]),
            trace,
        )
        routes, decision, snapshot = tuple(u.routes), u.rewrite.decision, trace.snapshot()
        return RetrievalResult(
            question, u.rewrite.query, routes, tuple(active), tuple(hits), snapshot, decision, focus
        )

    @staticmethod
    def moved_on(found_by: Found, within: tuple[str, ...], *, on_subject: bool) -> bool:
        """The drop rule: the last reading, kept to the files the conversation's answers came from, is
        dropped when the reading before it finds none of those files by itself and the rules did not find
        the question on the conversation's subject: the question has moved on from them."""
        if not within or on_subject:
            return False
        return not any(h.chunk.source in within for h in found_by[-2][1])

    def _understand(
        self,
        question: str,
        history: Sequence[Message],
        names: Sequence[str],
        trace: TraceBuilder,
        contextualizer: QueryContextualizer,
    ) -> _Understood:
        """The turn's decision and rewrite ∥ routing on the raw question; re-route on a rewritten query
        (a follow-up routes with the topic it carries, so it stays with the conversation's collections)."""
        clock = Clock()
        raw_vec = self._embedder.embed_query([question])[0]
        rewrite_future = self._pool.submit(contextualizer.rewrite, question, history, raw_vec)
        routes = asked = self._router.score(question, raw_vec, names)
        route_ms = clock.ms()
        rewrite = rewrite_future.result()
        d = rewrite.decision
        earlier = tuple(history[i].content for i in d.turns if history[i].role == "user")
        also = d.searched_both_ways(question, rewrite.query)
        record = RewriteStage(
            clock.ms(),
            rewrite.method,
            rewrite.query,
            rewrite.note,
            d.depends,
            d.turns,
            d.reason,
            earlier,
            also,
            reason_said=d.reason_said,
            note_said=rewrite.note_said,
        )
        route_records = [RouteStage(route_ms, "question", _scores(routes))]
        if rewrite.query != question and self._config.routing.recheck and names:
            t = Clock()
            query_vec = self._embedder.embed_query([rewrite.query])[0]
            routes = self._router.score(rewrite.query, query_vec, names)
            route_records.append(RouteStage(t.ms(), "query", _scores(routes)))
        trace.query = rewrite.query
        trace.routes = list(routes)
        return _Understood(rewrite, routes, asked, record, tuple(route_records))

    def readings(
        self,
        question: str,
        history: Sequence[Message],
        rewrite: Rewrite,
        routes: Sequence[Route],
        asked_routes: Sequence[Route],
    ) -> list[Reading]:
        """What the turn is searched with: the rewritten query; a follow-up that says what it asks also as
        asked, routed by itself (that it leans on the conversation is a guess, and a wrong one must not
        cost what the question finds on its own); and the question as asked kept to the files the
        conversation's answers came from (``TurnDecision.sources``), a reading ``moved_on`` drops."""
        query, decision = rewrite.query, rewrite.decision
        readings = [Reading(query, [r.collection for r in self._router.select(routes)])]
        within = decision.sources(history)
        if decision.searched_both_ways(question, query):
            asked = [r.collection for r in self._router.select(asked_routes)]
            readings.append(Reading(question, asked))
        if within:
            readings.append(Reading(question, readings[-1].collections, within))
        return readings

    def _search(
        self, readings: Sequence[Reading], agents: Mapping[str, RetrievalAgent], trace: TraceBuilder
    ) -> tuple[Found, list[RetrieveErrorStage | RetrieveStage]]:
        """Each reading's candidates, every reading's collections searched in the pool at once, with the
        search's trace records."""
        clock = Clock()
        jobs = [(k, r, agents[name]) for k, r in enumerate(readings) for name in r.collections]
        results: list[AgentResult] = list(
            self._pool.map(lambda j: j[2].retrieve(j[1].query, j[1].files), jobs)
        )
        ms: dict[str, float] = {}
        records: list[RetrieveErrorStage | RetrieveStage] = []
        found_by: Found = [(r.query, []) for r in readings]
        for (k, _, _), r in zip(jobs, results, strict=True):
            found_by[k][1].extend(r.hits)
            ms[r.collection] = max(ms.get(r.collection, 0.0), r.ms)
            searched = trace.agent_queries.get(r.collection, ())
            trace.agent_queries[r.collection] = tuple(dict.fromkeys((*searched, *r.queries)))
            if r.error:
                records.append(RetrieveErrorStage(0.0, r.collection, r.error))
        records.append(RetrieveStage(clock.ms(), ms))
        return found_by, records


def _scores(routes: Sequence[Route]) -> dict[str, float]:
    return {r.collection: round(r.score, 4) for r in routes}
