"""``serve``: the Gradio app on http://127.0.0.1:PORT, behind the guards that keep it private.

Gradio's ``launch()`` builds its own web app and gives no place for a layer in front of it, so the app is
mounted (``gr.mount_gradio_app``, Gradio's documented way) on an outer FastAPI app that we serve with
uvicorn on 127.0.0.1. The outer app holds, outermost first:

0. ``SecurityHeaders``: on every response, no framing by other pages, no sniffing, a content policy
   (files from the user's folders sandboxed; see ``ui/server/security_headers.py``);
1. ``SameOriginGuard``: the ``Host`` must be this app's address, changes must come from its own page;
2. ``RequestSizeLimit``: an upload request larger than the limit is refused before it is stored;
3. an empty ``CORSMiddleware``: no other origin is granted anything. Gradio adds its own CORS layer,
   which grants any ``localhost``/``127.0.0.1`` origin; it stands back when the parent app has a
   ``CORSMiddleware`` (``gradio.route_utils.CustomCORSMiddleware.parent_configures_cors``).

Gradio's ``max_file_size`` bounds each file of an upload.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import gradio as gr
import uvicorn
from fastapi import FastAPI
from gradio.http_server import Server
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware

from ui.server.request_limit import RequestSizeLimit
from ui.server.security_headers import SecurityHeaders
from ui.server.web_guard import SameOriginGuard, own_hosts

__all__ = ["Running", "ServeLimits", "serve"]

_MB = 1_000_000


@dataclass(frozen=True)
class ServeLimits:
    """Who may use the app and how much one upload may carry (``[server]`` in config.toml)."""

    allowed_hosts: tuple[str, ...] = ()  # extra addresses besides 127.0.0.1, localhost and [::1]
    max_upload_file_mb: float = 200.0
    max_upload_request_mb: float = 1000.0


@dataclass
class Running:
    url: str
    app: FastAPI
    server: Server
    demo: gr.Blocks

    def close(self) -> None:
        self.server.close()
        self.server.thread.join(10)
        self.demo._queue.close()


def build_outer_app(
    demo: gr.Blocks,
    port: int,
    limits: ServeLimits,
    routes: Iterable[Callable[[FastAPI], None]] = (),
    launch: dict[str, Any] | None = None,
) -> FastAPI:
    """The outer app: guards, our own ``routes`` (added before Gradio takes ``/``), then Gradio."""
    outer = FastAPI(
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
        middleware=[
            Middleware(SecurityHeaders),
            Middleware(SameOriginGuard, hosts=own_hosts(port, limits.allowed_hosts)),
            Middleware(RequestSizeLimit, max_bytes=int(limits.max_upload_request_mb * _MB)),
            Middleware(CORSMiddleware, allow_origins=[]),
        ],
    )
    for add in routes:
        add(outer)
    mounted: FastAPI = gr.mount_gradio_app(
        outer,
        demo,
        path="/",
        server_name="127.0.0.1",
        server_port=port,
        max_file_size=int(limits.max_upload_file_mb * _MB),
        **(launch or {}),
    )
    return mounted


def serve(
    demo: gr.Blocks,
    port: int,
    limits: ServeLimits,
    routes: Iterable[Callable[[FastAPI], None]] = (),
    launch: dict[str, Any] | None = None,
) -> Running:
    """Serve ``demo`` on 127.0.0.1:``port`` in a background thread; raises ``OSError`` if it cannot."""
    outer = build_outer_app(demo, port, limits, routes, launch)
    server = Server(uvicorn.Config(outer, host="127.0.0.1", port=port, log_level="warning"))
    server.thread = _start(server)
    return Running(f"http://127.0.0.1:{port}/", outer, server, demo)


def _start(server: Server) -> threading.Thread:
    thread = threading.Thread(target=server.run, daemon=True, name="kimas-http")
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive():
            raise OSError(f"the web server did not start on port {server.config.port}")
        if time.monotonic() > deadline:
            server.should_exit = True
            raise OSError(f"the web server did not start on port {server.config.port} within 30 s")
        time.sleep(0.01)
    return thread
