"""``KnowledgeTools``: search, ask, list collections and read passages, on the app's own pipeline.

The tools other programs call (``kimas mcp``): the same ``Runtime``, config, preset, routing, answer policy
and online sources (only those the user enabled) as ``kimas ask`` and the Chat tab. Each method returns a
typed record of ``app.tools.results``; a wrong argument raises ``KimasError`` with a sentence."""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime

from app.runtime import Runtime
from app.tools.client_chats import ClientChats
from app.tools.results import (
    AskResult,
    CitedPassage,
    CollectionSummary,
    Decision,
    DocumentSummary,
    Passage,
    PassageLookup,
    SearchResult,
    TableComputation,
)
from app.tools.scope import OnlyCollections
from kimas_desktop.config import Config
from kimas_desktop.errors import KimasError
from kimas_desktop.events import CitationsReady, Done, Event, QuoteReady, TableReady
from kimas_desktop.pipeline import Pipeline
from kimas_desktop.text.visible import visible_name
from kimas_desktop.types import Citation, CollectionInfo, DocumentCard, Quote

__all__ = ["KnowledgeTools"]


def _when(ts: float | None) -> str:
    return "never" if ts is None else datetime.fromtimestamp(ts, tz=UTC).isoformat(timespec="seconds")


def _cited(c: Citation) -> CitedPassage:
    return CitedPassage(c.n, c.sentence or c.snippet, Passage.of(c.chunk))


def _quoted(q: Quote) -> CitedPassage:
    return CitedPassage(q.n, q.display, Passage.of(q.chunk, q.score))


def _card(collection: str, card: DocumentCard) -> DocumentSummary:
    summary = " ".join(s.text for s in card.synopsis)
    return DocumentSummary(collection, visible_name(card.source), card.title, summary, card.contents())


class KnowledgeTools:
    """The knowledge tools on one ``Runtime`` (which the caller owns and closes). ``current`` gives the
    config now (the running app's settings; by default the runtime's own), and each answer is written
    inside ``answering()`` (the app's: indexing waits meanwhile, as for a Chat tab answer) and kept by
    ``chats`` (the app's: a chat with its trace)."""

    def __init__(
        self,
        runtime: Runtime,
        current: Callable[[], Config] | None = None,
        answering: Callable[[], AbstractContextManager[None]] = nullcontext,
        chats: ClientChats | None = None,
    ) -> None:
        self._runtime = runtime
        self._current = current or (lambda: runtime.config)
        self._answering = answering
        self._chats = chats or ClientChats()
        self._lock = threading.Lock()
        self._scoped: dict[frozenset[str], tuple[Config, Pipeline]] = {}  # narrowed to named collections
        self._stale: list[Pipeline] = []  # narrowed on an older config (an answer may still use one)

    @property
    def _config(self) -> Config:
        return self._current()

    def list_collections(self) -> list[CollectionSummary]:
        """Every collection, by name: its files, chunks, last update and whether it is being indexed."""
        store = self._runtime.store(self._config)
        return [self._summary(info) for info in store.collections()]

    def _summary(self, c: CollectionInfo) -> CollectionSummary:
        syncing = self._runtime.store(self._config).legacy_interrupted(c.name)
        return CollectionSummary(
            c.name, c.files, c.chunks, c.updated_at, _when(c.updated_at), syncing, c.needs_reembedding,
            [visible_name(f) for f in c.folders],
        )  # fmt: skip

    def search(self, question: str, collections: Sequence[str] = ()) -> SearchResult:
        """The ranked passages for ``question`` (in ``collections`` only, when named); a question over the
        ``[limits]`` is refused (``OverLimitError``) before anything is done."""
        result = self._pipeline(collections).retrieve(question)
        passages = [Passage.of(h.chunk, h.score) for h in result.hits]
        return SearchResult(question, list(result.active), passages, self._indexing(result.active))

    def ask(
        self, question: str, collections: Sequence[str] = (), quote_only: bool = False, via: str = "MCP"
    ) -> AskResult:
        """A grounded answer with its quote, citations and decision; with ``quote_only`` the verbatim
        quote and whether it answers, without the chat model writing an answer. ``via`` names the caller
        in the chat the app keeps of it. A question over the ``[limits]`` is refused (``OverLimitError``)
        before anything is done or kept."""
        pipeline = self._pipeline(collections)
        pipeline.admit(question)
        events = self._chats.follow(pipeline.ask(question), question, via)
        quote: QuoteReady | None = None
        cited: tuple[Citation, ...] = ()
        decision: Decision = "quote only"
        answer = ""
        table: TableComputation | None = None
        with self._answering():
            for event in _until_quote(events) if quote_only else events:
                if isinstance(event, TableReady):
                    table = TableComputation.of(event.answer)
                elif isinstance(event, QuoteReady):
                    quote = event
                elif isinstance(event, CitationsReady):
                    cited = event.citations
                elif isinstance(event, Done):
                    decision, answer = event.outcome.kind, event.answer
        quotes = quote.quotes if quote else ()
        citations = [_quoted(q) for q in quotes] if quote_only else [_cited(c) for c in cited]
        answerable = quote.answerability.answerable if quote else None
        text = " … ".join(q.display for q in quotes)
        searched = self._searched(collections)
        indexing = self._indexing(searched)
        return AskResult(question, decision, answer, text, citations, answerable, indexing, table)

    def read_passage(self, id: str) -> PassageLookup:
        """A passage by its id (``collection/chunk_id``), else the card of the document whose file is ``id``
        (its full path, or its file name; either as it is or as results show it, ``visible_name``)."""
        store = self._runtime.store(self._config)
        names = [c.name for c in store.collections()]
        collection, _, chunk_id = id.partition("/")
        if collection in names and chunk_id:
            for chunk in store.chunks(collection):
                if chunk.chunk_id == chunk_id:
                    return PassageLookup(True, passage=Passage.of(chunk))
        for name in names:
            for card in store.cards(name):
                file = card.source.replace("\\", "/").rsplit("/", 1)[-1]
                if id in (card.source, file, visible_name(card.source), visible_name(file)):
                    return PassageLookup(True, document=_card(name, card))
        return PassageLookup(False, note=f"no passage or document has the id {id!r}")

    def documents(self, collection: str) -> list[DocumentSummary]:
        """The cards of a collection's documents (its summary, document by document)."""
        self._check([collection])
        return [_card(collection, c) for c in self._runtime.store(self._config).cards(collection)]

    def close(self) -> None:
        """Close the narrowed pipelines (the runtime's own pipeline is the runtime's to close)."""
        with self._lock:
            scoped = [p for _, p in self._scoped.values()] + self._stale
            self._scoped, self._stale = {}, []
        for pipeline in scoped:
            pipeline.close()

    def _pipeline(self, collections: Sequence[str]) -> Pipeline:
        config = self._config
        if not collections:
            return self._runtime.pipeline(config)
        key = frozenset(self._check(collections))
        with self._lock:
            held = self._scoped.get(key)
            if held is not None and held[0] == config:
                return held[1]
            if held is not None:
                self._stale.append(held[1])
            pipeline = self._narrowed(key, config)
            self._scoped[key] = (config, pipeline)
            return pipeline

    def _narrowed(self, names: frozenset[str], cfg: Config) -> Pipeline:
        """The runtime's pipeline on ``names`` only: the same models, config and enabled online sources."""
        rt = self._runtime
        sources = [(rt.online_source(n, spec), spec) for n, spec in cfg.sources.items() if spec.enabled]
        searcher = OnlyCollections(rt.store(cfg), sorted(names))
        return Pipeline(
            config=cfg, chat=rt.chat(cfg), embedder=rt.embedder(cfg), reranker=rt.reranker(cfg),
            searcher=searcher, sources=sources, tables=rt.table_answerer(cfg),
        )  # fmt: skip

    def _check(self, collections: Sequence[str]) -> list[str]:
        known = [c.name for c in self._runtime.store(self._config).collections()]
        unknown = [n for n in collections if n not in known]
        if unknown:
            have = ", ".join(known) or "none yet"
            raise KimasError(f"no collection named {', '.join(unknown)} (the collections: {have})")
        return list(collections)

    def _searched(self, collections: Sequence[str]) -> list[str]:
        return list(collections) or [c.name for c in self._runtime.store(self._config).collections()]

    def _indexing(self, names: Sequence[str]) -> list[str]:
        store = self._runtime.store(self._config)
        return [n for n in names if store.has_collection(n) and store.legacy_interrupted(n)]


def _until_quote(events: Iterator[Event]) -> Iterator[Event]:
    """The events up to the grounded quote; the answer is not written (the generator is closed)."""
    try:
        for event in events:
            yield event
            if isinstance(event, QuoteReady | Done):
                return
    finally:
        if isinstance(events, Generator):
            events.close()
