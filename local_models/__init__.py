"""Model backends behind ``kimas_desktop.protocols``: chat LLMs, embedders and rerankers, all local by default.

Building is cheap and touches no model file or network; models load on ``warm_up()`` or first use.
Grouped by role: ``llama/`` (llama.cpp chat in a worker process), ``embedders/`` (fastembed and the
embedded default models), ``reader/`` (the embedded reader, and a GGUF one on ``llama/``'s worker),
``remote/`` (chat, embedding and reranking on an OpenAI-compatible server) and ``catalog/`` (the
recommended models in ``catalog.toml``, installing and downloading them). At the top:
``rerankers``, ``resolve`` (where each model comes from, also used by ``kimas doctor``) and ``fake``
(deterministic stand-ins for tests).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kimas_desktop.config import ChatModelConfig, EmbeddingModelConfig, ReaderConfig
from kimas_desktop.errors import ModelUnavailableError
from kimas_desktop.protocols import ChatModel, Embedder, Reader
from local_models.embedders.fastembed_embedder import FastEmbedEmbedder
from local_models.llama.chat import LlamaChatModel
from local_models.llama.pending import PendingLlamaChatModel, llama_installed
from local_models.remote.embed_rerank import RemoteEmbedder, RemoteReranker
from local_models.remote.openai_chat import OpenAIChatModel
from local_models.rerankers import CrossEncoderReranker, EmbeddingReranker, build_reranker
from local_models.resolve import (
    ModelOrigin,
    resolve_chat,
    resolve_embedding,
    resolve_reader,
    resolve_reranker,
)

__all__ = [
    "CrossEncoderReranker",
    "EmbeddingReranker",
    "FastEmbedEmbedder",
    "LlamaChatModel",
    "ModelOrigin",
    "OpenAIChatModel",
    "RemoteEmbedder",
    "RemoteReranker",
    "build_chat_model",
    "build_embedder",
    "build_reader",
    "build_reranker",
    "resolve_chat",
    "resolve_embedding",
    "resolve_reader",
    "resolve_reranker",
    "sentence_meaning",
]

log = logging.getLogger(__name__)


def build_chat_model(cfg: ChatModelConfig) -> ChatModel:
    """llama.cpp in-process for ``kind = "llama"`` (a stand-in that writes nothing while llama.cpp is not
    installed yet: ``llama/pending.py``), an OpenAI-compatible server for ``"openai"``."""
    if cfg.kind == "openai":
        return OpenAIChatModel(cfg)
    return LlamaChatModel(cfg) if llama_installed() else PendingLlamaChatModel(cfg)


def build_embedder(cfg: EmbeddingModelConfig, cache_dir: Path) -> Embedder:
    """fastembed in-process for ``backend = "local"``, an OpenAI-compatible server for ``"openai"``."""
    if cfg.backend == "openai":
        return RemoteEmbedder(cfg)
    return FastEmbedEmbedder(cfg, cache_dir)


def build_reader(cfg: ReaderConfig, models_dir: Path, embedder: Embedder | None = None) -> Reader | None:
    """The reader ``[reader] model`` chooses (issue 68): the one trained by this project, or a GGUF run by
    llama.cpp in a worker process (``reader/llama_reader.py``); None (logged) when its files, e5's or
    llama.cpp are not installed: answers are then read without a reader. ``embedder``: one the caller
    holds; when it is the embedded multilingual-e5-small, the embedded reader reads with its tokenizer
    (``shared_tokenizer``) rather than loading the same 280 MB vocabulary again."""
    try:
        origin = resolve_reader(cfg, models_dir)
        if origin.kind == "llama":
            from local_models.reader.llama_reader import LlamaReader

            if not llama_installed():
                raise ModelUnavailableError(
                    f"llama.cpp is not installed yet to run the reader {origin.name}."
                )
            return LlamaReader(Path(origin.location), name=origin.name)
        from local_models.embedders.e5_embedded import e5_tokenizer_file
        from local_models.reader.onnx_reader import EmbeddedReader

        return EmbeddedReader(tokenizer=e5_tokenizer_file(models_dir), shared=_e5_tokenizer(embedder))
    except (ModelUnavailableError, OSError, ValueError) as err:
        log.warning("The reader is not used: %s", err)
        return None


def _e5_tokenizer(embedder: Embedder | None) -> Callable[[], Any] | None:
    """``shared_tokenizer`` of the embedded multilingual-e5-small (``embedder`` or the one its memo wraps)."""
    from local_models.embedders.e5_embedded import E5_MODEL_ID
    from local_models.embedders.query_memo import QueryMemo

    inner = embedder.inner if isinstance(embedder, QueryMemo) else embedder
    if isinstance(inner, FastEmbedEmbedder) and inner.model_id == E5_MODEL_ID:
        return inner.shared_tokenizer
    return None


def sentence_meaning(collections: Embedder, cache_dir: Path) -> Embedder | None:
    """The embedded multilingual-e5-small beside the collections' embedder (``Runtime.meaning``):
    ``collections`` itself when it is that model, None when its weights are not installed."""
    from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER
    from local_models.embedders.e5_embedded import E5_MODEL_ID, e5_weights

    if collections.model_id == E5_MODEL_ID:
        return collections
    try:
        e5_weights()
    except ModelUnavailableError:
        return None
    return FastEmbedEmbedder(EmbeddingModelConfig(name=MULTILINGUAL_EMBEDDER), cache_dir)
