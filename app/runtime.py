"""``Runtime``: the one composition root. Every model, store and indexer of a running app comes from here.

Each part is built from its own config section and kept until that section changes: another chat model
keeps the loaded embedder, another embedder keeps the chat model. What a new config evicts is closed (a
chat model's worker process ends, a pipeline's threads stop), so a Settings switch frees the old model.
The CLI, the desktop app and the benchmarks all receive a ``Runtime``; none keeps a second cache.

Backends are chosen through ``Builders`` (a small registry of factories); tests and benchmarks hand in
fakes the same way ``real_builders()`` hands in the real ones.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from app.knowledge.indexing import FolderFeed, IndexService
from app.paths import Paths
from kimas_desktop.answer.model_alone import ModelAlone
from kimas_desktop.answer.tables.answer import TableAnswerer
from kimas_desktop.config import (
    ChatModelConfig,
    Config,
    EmbeddingModelConfig,
    IndexerConfig,
    ReaderConfig,
    RerankConfig,
    SourceConfig,
    StorageConfig,
)
from kimas_desktop.pipeline import Pipeline
from kimas_desktop.protocols import ChatModel, Embedder, OnlineSource, Reader, Reranker

if TYPE_CHECKING:
    from indexer import LanceStore
    from indexer.tables.shelf import LanceTableShelf
    from indexer.upkeep.relation_pass import RelationPass

__all__ = ["Builders", "Runtime", "real_builders"]

log = logging.getLogger(__name__)


def _web_source(name: str, spec: SourceConfig, cache: Path) -> OnlineSource:
    from web import build_source

    return build_source(name, spec, cache)


@dataclass(frozen=True)
class Builders:
    """How each part is built (cheap constructors: nothing loads until ``warm_up`` or first use)."""

    chat: Callable[[ChatModelConfig], ChatModel]
    embedder: Callable[[EmbeddingModelConfig, Path], Embedder]
    reranker: Callable[[RerankConfig, Embedder, Path], Reranker]
    store: Callable[[StorageConfig, Path], LanceStore]
    indexer: Callable[[LanceStore, Embedder, IndexerConfig], IndexService]
    watcher: Callable[[Callable[[str], None]], FolderFeed]
    source: Callable[[str, SourceConfig, Path], OnlineSource] = _web_source  # cache dir for its pages
    # The embedded multilingual model beside the collections' embedder (``Runtime.meaning``): theirs when
    # it is that model, None when it is not installed; no builder: none.
    meaning: Callable[[Embedder, Path], Embedder | None] | None = None
    # The reader [reader] chooses (issue 68), from the model cache, given the embedder the runtime holds (the
    # embedded reader reads with its tokenizer when it is e5): None when it is not installed; no builder: none.
    reader: Callable[[ReaderConfig, Embedder, Path], Reader | None] | None = None


def real_builders() -> Builders:
    """The product's backends (imported only when first built)."""

    def chat(cfg: ChatModelConfig) -> ChatModel:
        from local_models import build_chat_model

        return build_chat_model(cfg)

    def embedder(cfg: EmbeddingModelConfig, cache: Path) -> Embedder:
        from local_models import build_embedder
        from local_models.embedders.query_memo import QueryMemo

        return QueryMemo(build_embedder(cfg, cache))  # one question, one embedding (not one per stage)

    def meaning(collections: Embedder, cache: Path) -> Embedder | None:
        from local_models import sentence_meaning

        return sentence_meaning(collections, cache)

    def reranker(cfg: RerankConfig, emb: Embedder, cache: Path) -> Reranker:
        from local_models import build_reranker

        return build_reranker(cfg, emb, cache)

    def store(cfg: StorageConfig, data_dir: Path) -> LanceStore:
        from indexer import LanceStore

        return LanceStore(cfg.uri or str(data_dir / "lancedb"), dict(cfg.options))

    def indexer(st: LanceStore, emb: Embedder, cfg: IndexerConfig) -> IndexService:
        from indexer import Indexer

        return Indexer(st, emb, cfg)

    def watcher(on_change: Callable[[str], None]) -> FolderFeed:
        from indexer import FolderWatcher

        return FolderWatcher(on_change)

    def reader(cfg: ReaderConfig, emb: Embedder, cache: Path) -> Reader | None:
        from local_models import build_reader

        return build_reader(cfg, cache, emb)

    return Builders(chat, embedder, reranker, store, indexer, watcher, meaning=meaning, reader=reader)


class _Closing(Protocol):
    """A held part that owns something to release: the models (``close`` is in their protocols) and the
    pipeline (its threads)."""

    def close(self) -> None: ...


C = TypeVar("C", bound=_Closing)
T = TypeVar("T")
# What the runtime holds for a role: the config it was built for, the part, and how to release it.
_Held = tuple[object, Any, Callable[[], None]]


def _nothing_to_close() -> None:
    """The store and the indexer hold no model, thread or process of their own."""


def _close(name: str, close: Callable[[], None]) -> None:
    try:
        close()
    except Exception:  # closing must never break the switch that evicted it
        log.exception("closing %s failed", name)


class Runtime:
    """The parts for whatever config is asked for now, each rebuilt only when its own section changes."""

    def __init__(self, paths: Paths, config: Config, builders: Builders | None = None) -> None:
        self.paths = paths
        self.config = config  # the config it was started with (the CLI's; the app's settings may move on)
        self._builders = builders or real_builders()
        self._lock = threading.RLock()  # building the indexer builds the embedder
        self._held: dict[str, _Held] = {}
        self._closers: list[threading.Thread] = []
        self._chat_epoch = 0  # goes up when the chat model must be built again for the same config

    def renew_chat(self) -> None:
        """Build the chat model and the reader again on their next use, and the pipelines on them: what a
        GGUF runs on was installed since (llama.cpp compiled beside the running app, issue 71). The ones in
        use are closed when the new ones replace them."""
        with self._lock:
            self._chat_epoch += 1

    def _chat_key(self, config: Config) -> object:
        return (config.chat, self._chat_epoch)

    def _get(self, role: str, key: object, build: Callable[[], C]) -> C:
        """The part held for ``role`` if it was built for ``key``; else a new one (the old one closed)."""
        return self._hold(role, key, build, lambda part: part.close)

    def _keep(self, role: str, key: object, build: Callable[[], T]) -> T:
        """``_get`` for a part with nothing to release (the store, the indexer)."""
        return self._hold(role, key, build, lambda part: _nothing_to_close)

    def _hold(
        self, role: str, key: object, build: Callable[[], T], closer: Callable[[T], Callable[[], None]]
    ) -> T:
        with self._lock:
            held = self._held.get(role)
            if held is not None and held[0] == key:
                kept: T = held[1]
                return kept
            part = build()
            self._put(role, key, part, closer(part))
        return part

    def _put(self, role: str, key: object, part: Any, close: Callable[[], None]) -> None:
        """Hold ``part`` for ``role`` and close the one it replaces (caller holds the lock)."""
        held = self._held.get(role)
        self._held[role] = (key, part, close)
        if held is not None and held[1] is not part:
            # Off this thread: a chat model's close waits for an answer still streaming from it.
            name = type(held[1]).__name__
            closer = threading.Thread(
                target=_close, args=(name, held[2]), name=f"kimas-close-{role}", daemon=True
            )
            closer.start()
            self._closers.append(closer)

    def load(self, config: Config, commit: Callable[[], object] = lambda: None) -> None:
        """Switch to ``config``'s models without a gap: build and warm up the chat model, embedder and
        reranker that differ from the ones in use *beside* them, then call ``commit`` (saving the
        config) and put them in use, closing the ones they replace. If one fails to load (or ``commit``
        raises), what was built is closed, the models in use stay, and the error goes up."""
        cache = self.paths.models_cache
        with self._lock:
            held = dict(self._held)
        fresh: dict[str, tuple[object, _Closing]] = {}

        def part(role: str, key: object, build: Callable[[], C]) -> C:
            if role in held and held[role][0] == key:
                kept: C = held[role][1]
                return kept
            built = build()
            fresh[role] = (key, built)
            warm = getattr(built, "warm_up", None)
            if warm is not None:
                warm()
            return built

        try:
            emb = part(
                "embedding", config.embedding, lambda: self._builders.embedder(config.embedding, cache)
            )
            part("chat", self._chat_key(config), lambda: self._builders.chat(config.chat))
            part(
                "rerank",
                (config.rerank, config.embedding),
                lambda: self._builders.reranker(config.rerank, emb, cache),
            )
            with self._lock:
                commit()
                for role, (key, built) in fresh.items():
                    self._put(role, key, built, built.close)
        except BaseException:
            for _, built in fresh.values():
                _close(type(built).__name__, built.close)
            raise

    def chat(self, config: Config) -> ChatModel:
        part: ChatModel = self._get("chat", self._chat_key(config), lambda: self._builders.chat(config.chat))
        return part

    def embedder(self, config: Config) -> Embedder:
        cache = self.paths.models_cache
        part: Embedder = self._get(
            "embedding", config.embedding, lambda: self._builders.embedder(config.embedding, cache)
        )
        return part

    def meaning(self, config: Config) -> Embedder | None:
        """The embedded multilingual-e5-small for the second opinion on the evidence's order
        (``rerank.second_opinion``) and, when ``grounding.meaning`` asks, the quote's sentence similarities
        (issue 58): the collections' own embedder when it is that model, None when neither asks for it
        or it is not installed."""
        build, cache = self._builders.meaning, self.paths.models_cache
        asked = config.rerank.second_opinion > 0 or config.grounding.meaning == "multilingual"
        if not asked or build is None:
            return None
        own = self.embedder(config)

        def closer(held: Embedder | None) -> Callable[[], None]:
            return held.close if held is not None and held is not own else _nothing_to_close

        part: Embedder | None = self._hold("meaning", config.embedding, lambda: build(own, cache), closer)
        return part

    def reader(self, config: Config) -> Reader | None:
        """The reader ``[reader] model`` chooses (issue 68) when it is installed, else None: it reads
        evidence that mixes scripts, and all evidence when ``grounding`` asks; it loads on its first
        reading. Another choice closes the one in use (a GGUF reader's worker process ends). The embedded
        reader reads with the tokenizer of the multilingual-e5-small the runtime holds (its 280 MB vocabulary
        once in the process): it is built again when that embedder is another."""
        build, cache = self._builders.reader, self.paths.models_cache
        if build is None:
            return None
        e5 = self.meaning(config) or self.embedder(config)  # e5 when either is; the builder tells

        def closer(held: Reader | None) -> Callable[[], None]:
            return held.close if held is not None else _nothing_to_close

        key = (config.reader, e5, self._chat_epoch)  # a GGUF reader chosen during the build: none till then
        part: Reader | None = self._hold("reader", key, lambda: build(config.reader, e5, cache), closer)
        return part

    def reranker(self, config: Config) -> Reranker:
        cache = self.paths.models_cache
        part: Reranker = self._get(
            "rerank",
            (config.rerank, config.embedding),
            lambda: self._builders.reranker(config.rerank, self.embedder(config), cache),
        )
        return part

    def store(self, config: Config | None = None) -> LanceStore:
        """The store, checking collections against ``config``'s embedder (which ones need re-embedding)."""
        config = config or self.config
        storage = config.storage
        part: LanceStore = self._keep(
            "store", storage, lambda: self._builders.store(storage, self.paths.data_dir)
        )
        part.use_embedder(self.embedder(config))
        return part

    def tables(self, config: Config | None = None) -> LanceTableShelf:
        """The tables kept of spreadsheets and CSVs (``kimas_desktop.tables.TableShelf``, plus ``arrow``)."""
        return self.store(config).shelf

    def indexer(self, config: Config | None = None) -> IndexService:
        config = config or self.config
        key = (config.embedding, config.indexer, config.storage)
        part: IndexService = self._keep(
            "indexer",
            key,
            lambda: self._builders.indexer(self.store(config), self.embedder(config), config.indexer),
        )
        return part

    def relation_pass(self, config: Config | None = None) -> RelationPass:
        """The optional pass that reads relations between entities with the configured chat model."""
        from indexer.upkeep.relation_pass import RelationPass

        config = config or self.config
        return RelationPass(self.store(config), self.chat(config))

    def pipeline(self, config: Config | None = None) -> Pipeline:
        """The answer pipeline for ``config`` (the one in use is closed when another config asks)."""
        config = config or self.config
        part: Pipeline = self._get("pipeline", (config, self._chat_epoch), lambda: self.own_pipeline(config))
        return part

    def own_pipeline(self, config: Config) -> Pipeline:
        """A pipeline for ``config`` that the caller holds and closes (an evaluation under another preset
        beside the chat's): it shares the models, which a preset does not change, and replaces nothing."""
        return Pipeline(
            config=config,
            chat=self.chat(config),
            embedder=self.embedder(config),
            reranker=self.reranker(config),
            searcher=self.store(config),
            meaning=self.meaning(config),
            reader=self.reader(config),
            sources=[
                (self._builders.source(name, spec, self.paths.web_cache), spec)
                for name, spec in config.sources.items()
                if spec.enabled
            ],
            tables=self.table_answerer(config),
        )

    def model_alone(self, config: Config | None = None) -> ModelAlone:
        """The chat's model-alone mode: the chat model the answer writer uses, with no retrieval."""
        config = config or self.config
        return ModelAlone(self.chat(config), config.summarizer)

    def table_answerer(self, config: Config) -> TableAnswerer:
        """What answers a question over a table the search found (every pipeline has one: the app's, the
        API's, the MCP tools' narrowed to named collections)."""
        from indexer.tables.engine import ArrowEngine

        shelf = self.tables(config)
        return TableAnswerer(shelf, ArrowEngine(shelf))

    def online_source(self, name: str, spec: SourceConfig) -> OnlineSource:
        """A source built for one use (the caller closes it), e.g. trying a query before saving."""
        return self._builders.source(name, spec, self.paths.web_cache)

    def watcher(self, on_change: Callable[[str], None]) -> FolderFeed:
        return self._builders.watcher(on_change)

    def warm_up(self, config: Config | None = None) -> None:
        """Load the embedding models and the chat model (raises ``ModelError`` with a sentence)."""
        config = config or self.config
        self.embedder(config).warm_up()
        meaning = self.meaning(config)
        if meaning is not None:
            meaning.warm_up()
        self.chat(config).warm_up()

    def close(self, timeout: float = 10.0) -> None:
        """Close every part it holds (and wait for parts evicted earlier to finish closing)."""
        with self._lock:
            held, self._held = list(self._held.values()), {}
        for _, part, close in reversed(held):
            _close(type(part).__name__, close)
        for closer in self._closers:
            closer.join(timeout)
        self._closers.clear()
