"""A test HTTP server on 127.0.0.1 that speaks the parts of Ollama's API KIMAs uses: ``GET /api/tags``,
``POST /api/show``, and the OpenAI-compatible ``GET /v1/models`` and ``POST /v1/chat/completions``
(streamed or not). Its answers are what Ollama 0.6+ returns; it records every request it gets."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHAT_MODEL = "llama3.2:3b"
EMBED_MODEL = "nomic-embed-text:latest"
ANSWER = "Bake the loaf at 250 degrees Celsius [1]."

TAGS = {
    "models": [
        {
            "name": CHAT_MODEL,
            "model": CHAT_MODEL,
            "size": 2019393189,
            "digest": "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
            "details": {
                "format": "gguf",
                "family": "llama",
                "families": ["llama"],
                "parameter_size": "3.2B",
                "quantization_level": "Q4_K_M",
            },
        },
        {
            "name": EMBED_MODEL,
            "model": EMBED_MODEL,
            "size": 274302450,
            "digest": "0a109f422b47e3a30ba2b10eca18548e944e8a23073ee3f3e947efcf3c45e59f",
            "details": {
                "format": "gguf",
                "family": "nomic-bert",
                "families": ["nomic-bert"],
                "parameter_size": "137M",
                "quantization_level": "F16",
            },
        },
    ]
}
SHOW = {
    CHAT_MODEL: {
        "capabilities": ["completion", "tools"],
        "model_info": {"general.architecture": "llama", "llama.context_length": 131072},
    },
    EMBED_MODEL: {
        "capabilities": ["embedding"],
        "model_info": {"general.architecture": "nomic-bert", "nomic-bert.context_length": 2048},
    },
}


@dataclass
class Served:
    base: str  # http://127.0.0.1:PORT
    port: int
    requests: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)  # method, path, body

    def chats(self) -> list[dict[str, Any]]:
        return [body for method, path, body in self.requests if path == "/v1/chat/completions"]


def _handler(served: Served) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length") or 0)
            data = json.loads(self.rfile.read(length) or b"{}")
            return data if isinstance(data, dict) else {}

        def do_GET(self) -> None:
            served.requests.append(("GET", self.path, {}))
            if self.path == "/api/tags":
                self._send(200, TAGS)
            elif self.path == "/v1/models":
                data = [{"id": m["name"], "object": "model", "owned_by": "library"} for m in TAGS["models"]]
                self._send(200, {"object": "list", "data": data})
            else:
                self._send(404, {"error": "404 page not found"})

        def do_POST(self) -> None:
            body = self._body()
            served.requests.append(("POST", self.path, body))
            if self.path == "/api/show" and body.get("model") in SHOW:
                self._send(200, SHOW[body["model"]])
            elif self.path == "/v1/chat/completions":
                self._chat(body)
            else:
                self._send(404, {"error": "404 page not found"})

        def _chat(self, body: dict[str, Any]) -> None:
            if body.get("model") != CHAT_MODEL:
                self._send(404, {"error": {"message": f"model {body.get('model')!r} not found"}})
                return
            text = "{}" if body.get("response_format") else ANSWER
            if not body.get("stream"):
                message = {"role": "assistant", "content": text}
                self._send(200, {"model": CHAT_MODEL, "choices": [{"index": 0, "message": message}]})
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for word in text.split(" "):
                chunk = {"choices": [{"index": 0, "delta": {"content": word + " "}}]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")

    return Handler


@contextmanager
def ollama_server() -> Iterator[Served]:
    """The server on a free port of 127.0.0.1, for the ``with`` block."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(Served("", 0)))
    port = int(httpd.server_address[1])
    served = Served(f"http://127.0.0.1:{port}", port)
    httpd.RequestHandlerClass = _handler(served)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@contextmanager
def static_server(routes: dict[str, Any]) -> Iterator[int]:
    """A server on a free port of 127.0.0.1 answering ``GET route`` with its JSON (404 otherwise): the
    listing APIs of LM Studio, llama.cpp's server or vLLM, as they answer. Yields the port."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            found = self.path in routes
            data = json.dumps(routes[self.path] if found else {"error": "Unexpected endpoint"}).encode()
            self.send_response(200 if found else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(httpd.server_address[1])
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()
