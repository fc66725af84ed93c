"""Embedding and reranking on a server: ``RemoteEmbedder`` (``/embeddings``) and ``RemoteReranker`` (``/rerank``).

For teams whose folders outgrow a laptop. ``RemoteEmbedder`` speaks OpenAI's embeddings API
(``POST {base_url}/embeddings`` with ``{"model", "input": [...]}``), which llama.cpp's server
(``--embedding``), vLLM, Ollama, text-embeddings-inference and OpenAI itself accept. ``RemoteReranker``
speaks the Jina/Cohere rerank API (``POST {base_url}/rerank`` with ``{"model", "query", "documents"}`` →
``{"results": [{"index", "relevance_score"}]}``), which llama.cpp's server (``--reranking``), vLLM and
Infinity accept; a bare list of ``{"index", "score"}`` (text-embeddings-inference's reply) is read too.

Both send batches of ``batch_size`` texts, retry with backoff and raise only ``KimasError``s
(``http_retry``). The embedder normalizes the rows it gets (servers differ on that) and learns the
dimension from the first reply. Servers have no common tokenizer endpoint, so ``count_tokens``
approximates one token per 3 characters (over-counts English; chunks err on the small side).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from kimas_desktop.config import EmbeddingModelConfig, RerankConfig
from kimas_desktop.errors import ModelError
from kimas_desktop.protocols import Vector
from local_models.remote.http_retry import JsonClient

__all__ = ["RemoteEmbedder", "RemoteReranker"]

CHARS_PER_TOKEN = 3.0
_PROBE = "dimension probe"


class RemoteEmbedder:
    """An ``Embedder`` behind an OpenAI-compatible ``/embeddings`` endpoint (``embedding.backend = "openai"``)."""

    def __init__(
        self, cfg: EmbeddingModelConfig, *, transport: httpx.BaseTransport | None = None, retries: int = 3
    ) -> None:
        self._cfg = cfg
        self._http = _client(cfg, "embedding", transport, retries)
        self._dim: int | None = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return f"openai/{self._cfg.model or 'default'}@{self._cfg.base_url.rstrip('/')}"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self._request([_PROBE]).shape[1])
        return self._dim

    @property
    def max_tokens(self) -> int:
        return self._cfg.max_tokens

    def warm_up(self) -> None:
        _ = self.dim

    def close(self) -> None:
        self._http.close()

    def _request(self, texts: Sequence[str]) -> Vector:
        body: dict[str, Any] = {"input": list(texts), "encoding_format": "float"}
        if self._cfg.model:
            body["model"] = self._cfg.model
        reply = self._http.post("/embeddings", body)
        try:
            data = sorted(reply["data"], key=lambda row: int(row["index"]))
            rows = np.asarray([row["embedding"] for row in data], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as err:
            raise ModelError(f"The embedding server sent an unexpected reply: {str(reply)[:300]}") from err
        if rows.ndim != 2 or rows.shape[0] != len(texts):
            raise ModelError(
                f"The embedding server returned {rows.shape[0] if rows.ndim else 0} vectors for "
                f"{len(texts)} texts."
            )
        return rows

    def _embed(self, texts: Sequence[str]) -> Vector:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        size = self._cfg.batch_size
        parts = [self._request(texts[i : i + size]) for i in range(0, len(texts), size)]
        matrix = np.vstack(parts)
        with self._lock:
            if self._dim is None:
                self._dim = int(matrix.shape[1])
        if matrix.shape[1] != self._dim:
            raise ModelError(
                f"The embedding server changed its dimension from {self._dim} to {matrix.shape[1]}."
            )
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32)

    def embed_query(self, texts: Sequence[str]) -> Vector:
        return self._embed(texts)

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        return self._embed(texts)

    def count_tokens(self, text: str) -> int:
        return math.ceil(len(text) / CHARS_PER_TOKEN)

    def reads(self, text: str) -> bool:
        """A server's model is the user's choice: trusted with every script."""
        return True


class RemoteReranker:
    """A ``Reranker`` behind a ``/rerank`` endpoint (``rerank.backend = "http"``); one query, many texts."""

    def __init__(
        self,
        cfg: RerankConfig,
        *,
        batch_size: int = 32,
        transport: httpx.BaseTransport | None = None,
        retries: int = 3,
    ) -> None:
        self._cfg = cfg
        self._batch = batch_size
        self._http = _client(cfg, "rerank", transport, retries)

    @property
    def model_id(self) -> str:
        return f"rerank/{self._cfg.model or 'default'}@{self._cfg.base_url.rstrip('/')}"

    def warm_up(self) -> None:
        self.score("warm up", ["warm up"])

    def close(self) -> None:
        self._http.close()

    def _batch_scores(self, query: str, texts: Sequence[str]) -> list[float]:
        body: dict[str, Any] = {"query": query, "documents": list(texts), "top_n": len(texts)}
        if self._cfg.model:
            body["model"] = self._cfg.model
        reply = self._http.post("/rerank", body)
        results = reply.get("results", []) if isinstance(reply, dict) else reply
        scores: list[float | None] = [None] * len(texts)
        try:
            for row in results:
                value = row["relevance_score"] if "relevance_score" in row else row["score"]
                scores[int(row["index"])] = float(value)
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise ModelError(f"The rerank server sent an unexpected reply: {str(reply)[:300]}") from err
        if any(s is None for s in scores):
            raise ModelError(
                f"The rerank server scored {sum(s is not None for s in scores)} of {len(texts)} texts."
            )
        return [float(s) for s in scores if s is not None]

    def score(
        self, query: str, texts: Sequence[str], vectors: Sequence[Sequence[float] | None] = ()
    ) -> list[float]:
        """Scores on the server model's own scale; batches are scored against the same query by the same
        model, so they compare."""
        out: list[float] = []
        for i in range(0, len(texts), self._batch):
            out += self._batch_scores(query, texts[i : i + self._batch])
        return out


def _client(
    cfg: EmbeddingModelConfig | RerankConfig,
    section: str,
    transport: httpx.BaseTransport | None,
    retries: int,
) -> JsonClient:
    """The JSON client for the server at ``cfg.base_url``; ``section`` is the config section naming it."""
    return JsonClient(
        cfg.base_url,
        what=f"the {section} server",
        setting=f"{section}.base_url",
        api_key_env=cfg.api_key_env,
        timeout_s=cfg.timeout_s,
        retries=retries,
        transport=transport,
    )
