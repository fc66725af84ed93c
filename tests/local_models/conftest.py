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


@pytest.fixture
def broken_model(tmp_path: Path, models_cache: Path) -> FastEmbedEmbedder:
    """A model directory whose model.onnx and tokenizer are not what they claim (a copy cut short)."""
    directory = tmp_path / "broken-model"
    directory.mkdir()
    (directory / "config.json").write_text('{"hidden_size": 384}')
    (directory / "model.onnx").write_bytes(b"\x08\x07" + bytes(range(256)) * 8)
    (directory / "tokenizer.json").write_text("{}")
    return FastEmbedEmbedder(EmbeddingModelConfig(path=str(directory)), models_cache)


@pytest.fixture(scope="session")
def real_chat() -> Iterator[LlamaChatModel]:
    model = LlamaChatModel(ChatModelConfig(n_ctx=2048, n_threads=2))
    model.warm_up()
    yield model
    model.close()
