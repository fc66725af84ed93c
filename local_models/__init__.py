"""Model backends behind ``kimas_desktop.protocols``: chat LLMs, embedders and rerankers, all local by default.

Building is cheap and touches no model file or network; models load on ``warm_up()`` or first use.
Where each model comes from is decided by ``local_models.resolve`` (also used by ``kimas doctor``).
The recommended models are listed in ``catalog.toml`` (``local_models.catalog``) and installed by
``local_models.install`` (downloads: ``local_models.download``).
Deterministic fakes for tests live in ``local_models.fake``.
"""

from __future__ import annotations

from pathlib import Path

from kimas_desktop.config import ChatModelConfig, EmbeddingModelConfig
from kimas_desktop.protocols import ChatModel, Embedder
from local_models.fastembed_embedder import FastEmbedEmbedder
from local_models.llama_chat import LlamaChatModel
from local_models.openai_chat import OpenAIChatModel
from local_models.remote import RemoteEmbedder, RemoteReranker
from local_models.rerankers import CrossEncoderReranker, EmbeddingReranker, build_reranker
from local_models.resolve import ModelOrigin, resolve_chat, resolve_embedding, resolve_reranker

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
    "build_reranker",
    "resolve_chat",
    "resolve_embedding",
    "resolve_reranker",
]


def build_chat_model(cfg: ChatModelConfig) -> ChatModel:
    """llama.cpp in-process for ``kind = "llama"``, an OpenAI-compatible server for ``"openai"``."""
    if cfg.kind == "openai":
        return OpenAIChatModel(cfg)
    return LlamaChatModel(cfg)


def build_embedder(cfg: EmbeddingModelConfig, cache_dir: Path) -> Embedder:
    """fastembed in-process for ``backend = "local"``, an OpenAI-compatible server for ``"openai"``."""
    if cfg.backend == "openai":
        return RemoteEmbedder(cfg)
    return FastEmbedEmbedder(cfg, cache_dir)
