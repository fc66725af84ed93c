"""The remote embedder and reranker against a real server on 127.0.0.1 answering with a real model."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from kimas_desktop.config import EmbeddingModelConfig, RerankConfig
from kimas_desktop.errors import ModelError, ModelUnavailableError
from kimas_desktop.protocols import Embedder, Reranker
from local_models import (
    EmbeddingReranker,
    FastEmbedEmbedder,
    RemoteEmbedder,
    RemoteReranker,
    build_embedder,
    build_reranker,
)
from local_models.remote.http_retry import JsonClient
from local_models.resolve import resolve_embedding, resolve_reranker
from tests.local_models.contracts import QUESTION, UNRELATED, EmbedderContract, RerankerContract
from tests.local_models.embed_server import ServerState, embed_server


@pytest.fixture(scope="module")
def server(real_embedder: FastEmbedEmbedder) -> Iterator[tuple[str, ServerState]]:
    with embed_server(real_embedder, EmbeddingReranker(real_embedder)) as running:
        yield running


@pytest.fixture(autouse=True)
def healthy(request: pytest.FixtureRequest) -> None:
    if "server" in request.fixturenames:
        state: ServerState = request.getfixturevalue("server")[1]
        assert state.wait_idle()  # no request of an earlier test still being answered
        state.fail_next, state.delay_s = 0, 0.0
        state.batches.clear()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _embedder(base: str, **cfg: object) -> RemoteEmbedder:
    return RemoteEmbedder(EmbeddingModelConfig(backend="openai", base_url=base, **cfg))


@pytest.mark.slow
class TestRemoteEmbedder(EmbedderContract):
    @pytest.fixture
    def embedder(self, server: tuple[str, ServerState]) -> Embedder:
        return build_embedder(EmbeddingModelConfig(backend="openai", base_url=server[0]), Path("unused"))

    def test_same_vectors_as_in_process(
        self, server: tuple[str, ServerState], real_embedder: FastEmbedEmbedder
    ) -> None:
        texts = [QUESTION, UNRELATED, "hello world"]
        remote = _embedder(server[0]).embed_passages(texts)
        assert np.allclose(remote, real_embedder.embed_passages(texts), atol=1e-6)

    def test_batches_of_batch_size(self, server: tuple[str, ServerState]) -> None:
        embedder = _embedder(server[0], batch_size=16)
        assert embedder.embed_passages([f"text {i}" for i in range(40)]).shape == (40, 384)
        assert server[1].batches == [16, 16, 8]
        assert embedder.dim == 384  # learnt from the reply: no extra request
        assert server[1].batches == [16, 16, 8]

    def test_retries_a_server_that_is_starting(self, server: tuple[str, ServerState]) -> None:
        server[1].fail_next = 2
        assert _embedder(server[0]).embed_query([QUESTION]).shape == (1, 384)
        assert server[1].fail_next == 0

    def test_a_slow_server_times_out_with_a_sentence(self, server: tuple[str, ServerState]) -> None:
        server[1].delay_s = 1.5
        embedder = RemoteEmbedder(
            EmbeddingModelConfig(backend="openai", base_url=server[0], timeout_s=0.3), retries=0
        )
        with pytest.raises(ModelError, match="did not answer"):
            embedder.embed_query([QUESTION])
        assert server[1].wait_idle()  # the server's late answer lands in this test, not the next


@pytest.mark.slow
class TestRemoteReranker(RerankerContract):
    @pytest.fixture
    def reranker(self, server: tuple[str, ServerState]) -> Reranker:
        cfg = RerankConfig(backend="http", base_url=server[0])
        return build_reranker(cfg, _embedder("http://unused.invalid"), Path("unused"))

    def test_same_scores_as_in_process(
        self, server: tuple[str, ServerState], real_embedder: FastEmbedEmbedder
    ) -> None:
        texts = [UNRELATED, QUESTION, "install it"]
        remote = RemoteReranker(RerankConfig(backend="http", base_url=server[0]), batch_size=2)
        local = EmbeddingReranker(real_embedder)
        assert remote.score(QUESTION, texts) == pytest.approx(
            local.score(QUESTION, texts[:2]) + local.score(QUESTION, texts[2:]), abs=1e-6
        )
        # Batched as asked: no request over 2 texts, and more than one request. (Not the exact shape: a
        # retry on a busy machine, or a late request, adds a batch without changing any score.)
        assert server[1].batches and max(server[1].batches) <= 2 < sum(server[1].batches)


class TestLocalFallbackReranker(RerankerContract):
    @pytest.fixture
    def reranker(self) -> Reranker:
        from local_models.fake import HashEmbedder

        return EmbeddingReranker(HashEmbedder())


def test_a_server_that_is_down_is_a_clear_error_after_backoff() -> None:
    base = f"http://127.0.0.1:{_free_port()}/v1"  # nothing listens there
    waits: list[float] = []
    client = JsonClient(base, what="the embedding server", setting="embedding.base_url", sleep=waits.append)
    with pytest.raises(
        ModelUnavailableError, match=r"Cannot reach the embedding server .* embedding\.base_url"
    ):
        client.post("/embeddings", {"input": ["x"]})
    assert waits == [0.5, 1.0, 2.0]  # three retries, doubling
    start = time.monotonic()
    with pytest.raises(ModelUnavailableError, match=r"rerank\.base_url"):
        RemoteReranker(RerankConfig(backend="http", base_url=base), retries=0).score("q", ["a"])
    assert time.monotonic() - start < 2


def test_a_bad_request_is_not_retried() -> None:
    calls: list[int] = []

    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Reject(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            calls.append(1)
            self.send_response(400)
            self.send_header("Content-Length", "13")
            self.end_headers()
            self.wfile.write(b"bad model xyz")

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Reject)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        embedder = _embedder(f"http://127.0.0.1:{httpd.server_address[1]}/v1", model="xyz")
        with pytest.raises(ModelError, match="HTTP 400: bad model xyz"):
            embedder.embed_query(["x"])
        assert calls == [1]
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_constructors_are_cheap_and_resolve_says_where() -> None:
    cfg = EmbeddingModelConfig(backend="openai", base_url="https://embed.example.com/v1", model="bge-m3")
    embedder = build_embedder(cfg, Path("unused"))
    assert isinstance(embedder, RemoteEmbedder) and "bge-m3" in embedder.model_id
    origin = resolve_embedding(cfg, Path("unused"))
    assert (origin.kind, origin.network) == ("openai", True)
    local = resolve_reranker(RerankConfig(backend="http", base_url="http://127.0.0.1:8082/v1"), Path("x"))
    assert (local.kind, local.network) == ("http", False)
    with pytest.raises(ModelUnavailableError, match=r"embedding\.base_url is empty"):
        resolve_embedding(EmbeddingModelConfig(backend="openai"), Path("unused"))
