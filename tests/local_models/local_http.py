"""What the test HTTP servers share: a quiet HTTP/1.1 handler, a server holding the test's state,
and running one on 127.0.0.1 in a daemon thread."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Generic, TypeVar

S = TypeVar("S")


class QuietHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass


class StateServer(ThreadingHTTPServer, Generic[S]):
    daemon_threads = True

    def __init__(self, handler: type[BaseHTTPRequestHandler], state: S, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), handler)
        self.state = state


@contextmanager
def serving(server: ThreadingHTTPServer) -> Iterator[str]:
    """``http://127.0.0.1:<port>`` while ``server`` serves in a thread; shut down and closed on exit."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
