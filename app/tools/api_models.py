"""``ApiModels``: what the OpenAI-compatible API offers as models, on the app's own ``Runtime``.

- ``kimas``: the pipeline with the app's settings as they are now (the Chat tab's);
- ``kimas-full``, ``kimas-routed``, ``kimas-turbo``: the user's config under that preset (the same
  models, collections and enabled online sources; a preset changes how much work an answer does);
- ``kimas-embedding`` (or the embedder's own model id) for ``/v1/embeddings``: the collections' embedder.

A preset's config equal to the app's current one shares the app's pipeline; another gets a pipeline of
its own, held until ``close()`` (one that settings made stale is kept until then too: an answer may still
stream from it)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

from app.paths import read_config
from app.runtime import Runtime
from app.tools.client_chats import ClientChats
from kimas_desktop.config import PRESETS, Config, LimitsConfig
from kimas_desktop.errors import KimasError
from kimas_desktop.pipeline import Pipeline
from kimas_desktop.protocols import Embedder

__all__ = ["DEFAULT_MODEL", "EMBEDDING_MODEL", "ApiModels", "UnknownModel"]

DEFAULT_MODEL = "kimas"
EMBEDDING_MODEL = "kimas-embedding"


class UnknownModel(KimasError):
    """A request named a model the API does not offer (the sentence lists the ones it does)."""


class ApiModels:
    """Model names to pipelines and the embedder; ``current`` gives the app's config now, and each answer
    is written inside ``answering()`` (the app's: indexing waits meanwhile, as for a Chat tab answer) and
    kept by ``chats`` (the app's: a chat with its trace)."""

    def __init__(
        self,
        runtime: Runtime,
        current: Callable[[], Config] | None = None,
        answering: Callable[[], AbstractContextManager[None]] = nullcontext,
        chats: ClientChats | None = None,
    ) -> None:
        self._runtime = runtime
        self._current = current or (lambda: runtime.config)
        self.answering = answering
        self.chats = chats or ClientChats()
        self._lock = threading.Lock()
        self._own: dict[str, tuple[Config, Pipeline]] = {}
        self._stale: list[Pipeline] = []

    def chat_models(self) -> list[str]:
        return [DEFAULT_MODEL, *(f"{DEFAULT_MODEL}-{p}" for p in PRESETS)]

    def pipeline(self, model: str) -> Pipeline:
        """The pipeline that answers as ``model``; ``UnknownModel`` for a name not offered."""
        current = self._current()
        if model == DEFAULT_MODEL:
            return self._runtime.pipeline(current)
        preset = model.removeprefix(f"{DEFAULT_MODEL}-")
        if model not in self.chat_models():
            raise UnknownModel(f"no model named {model!r}; the models: {', '.join(self.chat_models())}")
        config = read_config(self._runtime.paths, preset=preset)
        if config == current:
            return self._runtime.pipeline(current)
        with self._lock:
            held = self._own.get(preset)
            if held is not None and held[0] == config:
                return held[1]
            if held is not None:
                self._stale.append(held[1])
            pipeline = self._runtime.own_pipeline(config)
            self._own[preset] = (config, pipeline)
            return pipeline

    def embedder(self, model: str) -> Embedder:
        """The collections' embedder, named ``kimas-embedding`` or by its own model id."""
        embedder = self._runtime.embedder(self._current())
        if model not in (EMBEDDING_MODEL, embedder.model_id):
            raise UnknownModel(
                f"no embedding model named {model!r}; use {EMBEDDING_MODEL!r} (it is {embedder.model_id})"
            )
        return embedder

    def limits(self) -> LimitsConfig:
        """What one request may ask (``[limits]``), as the app's config says now."""
        return self._current().limits

    def close(self) -> None:
        """Close the pipelines this API built (the app's own are the runtime's to close)."""
        with self._lock:
            pipelines = [p for _, p in self._own.values()] + self._stale
            self._own, self._stale = {}, []
        for pipeline in pipelines:
            pipeline.close()
