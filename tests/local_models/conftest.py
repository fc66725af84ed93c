"""Shared real models (loaded once per session) and a guard that makes any network connection fail."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from kimas_desktop.config import ChatModelConfig, EmbeddingModelConfig
from local_models import FastEmbedEmbedder, LlamaChatModel


class NetworkBlocked(OSError):
    pass


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Any ``connect()`` raises; the list records every address something tried to reach."""
    attempts: list[object] = []

    def refuse(self: socket.socket, address: object) -> None:
        attempts.append(address)
        raise NetworkBlocked(f"network blocked in tests: {address!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    return attempts


@pytest.fixture(scope="session")
def models_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def real_embedder(models_cache: Path) -> FastEmbedEmbedder:
    embedder = FastEmbedEmbedder(EmbeddingModelConfig(precision="fp32"), models_cache)
    embedder.warm_up()
    return embedder


@pytest.fixture(scope="session")
def real_chat() -> Iterator[LlamaChatModel]:
    model = LlamaChatModel(ChatModelConfig(n_ctx=2048, n_threads=2))
    model.warm_up()
    yield model
    model.close()
