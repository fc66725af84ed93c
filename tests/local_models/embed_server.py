"""A real embedding and rerank server on 127.0.0.1: OpenAI's ``/v1/embeddings`` and the Jina/Cohere
``/v1/rerank`` API, answered by a real local model (the embedded all-MiniLM-L6-v2 through fastembed,
and the fallback scorer over it). Tests start it in a thread; ``bench/remote_embed.py`` runs it as its
own process (``python -m tests.local_models.embed_server --port N``).

Faults a test switches on: ``fail_next`` (answer that many requests with HTTP 503) and ``delay_s``.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kimas_desktop.protocols import Embedder, Reranker
from tests.local_models.local_http import QuietHandler, StateServer, serving


@dataclass
class ServerState:
    embedder: Embedder
    reranker: Reranker
    fail_next: int = 0
    delay_s: float = 0.0
    batches: list[int] = field(default_factory=list)  # texts per request
    lock: threading.Lock = field(default_factory=threading.Lock)
    answering: int = 0  # requests being answered now
    idle: threading.Condition = field(default_factory=threading.Condition)

    def wait_idle(self, timeout_s: float = 600.0) -> bool:
        """Until no request is being answered (a slow request a client gave up on ends, and records its
        batch, within its own test, not in the next one's)."""
        with self.idle:
            return self.idle.wait_for(lambda: self.answering == 0, timeout_s)


class _Handler(QuietHandler):
    server: StateServer[ServerState]

    def _reply(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        state = self.server.state
        with state.idle:
            state.answering += 1
        try:
            self._answer(state)
        finally:
            with state.idle:
                state.answering -= 1
                state.idle.notify_all()

    def _answer(self, state: ServerState) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        with state.lock:
            failing = state.fail_next > 0
            state.fail_next -= failing
        if state.delay_s:
            time.sleep(state.delay_s)
        if failing:
            self._reply(503, {"error": "loading model"})
            return
        if self.path == "/v1/embeddings":
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            with state.lock:
                state.batches.append(len(texts))
            rows = state.embedder.embed_passages(texts)
            data = [{"object": "embedding", "index": i, "embedding": r.tolist()} for i, r in enumerate(rows)]
            data.reverse()  # the index, not the order, says which text a row belongs to
            self._reply(200, {"object": "list", "data": data, "model": body.get("model", "minilm")})
        elif self.path == "/v1/rerank":
            with state.lock:
                state.batches.append(len(body["documents"]))
            scores = state.reranker.score(body["query"], body["documents"])
            results = [{"index": i, "relevance_score": s} for i, s in enumerate(scores)]
            results.sort(key=lambda r: -float(r["relevance_score"]))  # servers reply best first
            self._reply(200, {"results": results})
        else:
            self._reply(404, {"error": f"no route {self.path}"})


@contextmanager
def embed_server(embedder: Embedder, reranker: Reranker) -> Iterator[tuple[str, ServerState]]:
    """``(base_url ending in /v1, state)`` of a running server; stopped on exit."""
    state = ServerState(embedder, reranker)
    with serving(StateServer(_Handler, state)) as url:
        yield f"{url}/v1", state


def main() -> None:
    from kimas_desktop.config import EmbeddingModelConfig
    from local_models import EmbeddingReranker, FastEmbedEmbedder

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cache", required=True)
    args = parser.parse_args()
    embedder = FastEmbedEmbedder(EmbeddingModelConfig(), Path(args.cache))
    embedder.warm_up()
    server = StateServer(_Handler, ServerState(embedder, EmbeddingReranker(embedder)), args.port)
    print("ready", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
