"""``serve_api``: the OpenAI-compatible API (``app.tools.openai_api``) and MCP over streamable HTTP
(``app.tools.mcp_http``, at ``/mcp``) on their own port, as private as the UI.

The API's ASGI app is wrapped in the UI's own guards (``server.py``), outermost first:

0. ``SecurityHeaders``: no framing, no sniffing, a content policy on every response;
1. ``ClientGuard``: ``SameOriginGuard`` for programs. The ``Host`` must be this API's address (DNS
   rebinding gets 403). A request a browser page sends carries an ``Origin`` (or a ``Referer``): it must
   be this API's own address, whatever the method, or it gets 403 (so no other page can use the API,
   with or without CORS). A program (the ``openai`` client, curl) sends neither and passes to the token
   check (``app.tools.api_access``);
2. ``ApiBodyLimit``: a request body over the limit is refused with 413 before it is read.

No CORS layer: the API grants no other origin anything.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from starlette.types import ASGIApp, Scope

from app.chat.conversation import Conversation
from app.runtime import Runtime
from app.tools.api_models import ApiModels
from app.tools.api_token import ApiToken
from app.tools.client_chats import ClientChats
from app.tools.endpoints import MCP_PATH
from app.tools.knowledge import KnowledgeTools
from app.tools.mcp_http import McpHttp
from app.tools.openai_api import build_api
from kimas_desktop import __version__
from kimas_desktop.config import Config
from kimas_desktop.limits import MESSAGE_BYTES
from ui.server.request_limit import RequestSizeLimit
from ui.server.security_headers import SecurityHeaders
from ui.server.web_guard import SameOriginGuard, own_hosts

__all__ = ["ApiBodyLimit", "ClientGuard", "RunningApi", "serve_api", "start_api"]

log = logging.getLogger(__name__)

MAX_BODY_BYTES = MESSAGE_BYTES  # a long conversation is some hundred KB; embeddings of many texts a few MB


class ClientGuard(SameOriginGuard):
    """The UI's Host check for every request; its Origin/Referer check for every request from a page."""

    def refusal(self, scope: Scope) -> str | None:
        from_page = any(key in (b"origin", b"referer") for key, _ in scope.get("headers", ()))
        return super().refusal({**scope, "method": "POST" if from_page else "GET"})


class ApiBodyLimit(RequestSizeLimit):
    """``RequestSizeLimit`` with the API's sentence."""

    def _message(self) -> str:
        return f"Request over the API's limit of {self.max_bytes / 1_000_000:g} MB."


@dataclass
class RunningApi:
    url: str  # http://127.0.0.1:PORT/v1
    server: uvicorn.Server
    thread: threading.Thread
    models: ApiModels | None = None  # closed with the server when it was started with it
    tools: KnowledgeTools | None = None  # MCP's, likewise

    @property
    def mcp_url(self) -> str:
        return self.url.removesuffix("/v1") + MCP_PATH

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        for part in (self.models, self.tools):
            if part is not None:
                part.close()


def guarded(
    api: ASGIApp, port: int, allowed_hosts: Iterable[str] = (), max_bytes: int = MAX_BODY_BYTES
) -> ASGIApp:
    """``api`` behind the guards, outermost first (see the module's docstring)."""
    hosts = own_hosts(port, allowed_hosts)
    app: ASGIApp = ApiBodyLimit(api, max_bytes=max_bytes)
    app = ClientGuard(app, hosts=hosts)
    return SecurityHeaders(app)


def serve_api(
    api: ASGIApp, port: int, allowed_hosts: Iterable[str] = (), max_bytes: int = MAX_BODY_BYTES
) -> RunningApi:
    """Serve ``api`` on 127.0.0.1:``port`` in a background thread; ``OSError`` if it cannot start."""
    config = uvicorn.Config(
        guarded(api, port, allowed_hosts, max_bytes), host="127.0.0.1", port=port, log_level="warning",
        timeout_graceful_shutdown=5,
    )  # fmt: skip
    server = uvicorn.Server(config)  # off the main thread: it leaves signals to the app
    thread = threading.Thread(target=server.run, daemon=True, name="kimas-api")
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive():
            raise OSError(f"the API did not start on port {port}")
        if time.monotonic() > deadline:
            server.should_exit = True
            raise OSError(f"the API did not start on port {port} within 30 s")
        time.sleep(0.01)
    return RunningApi(f"http://127.0.0.1:{port}/v1", server, thread)


def start_api(
    runtime: Runtime,
    current: Callable[[], Config],
    config_file: Path,
    answering: Callable[[], AbstractContextManager[None]] = nullcontext,
    persist: Callable[[Conversation], None] | None = None,
) -> RunningApi | None:
    """``kimas serve``'s API and MCP on ``[server] api_port`` when ``[server] api`` is on (the token made
    on first use); None when it is off, or its port is taken (the app runs without it and the log says
    so). Their answers are written inside ``answering()``, as the Chat tab's are, and kept as chats by
    ``persist``."""
    server = current().server
    if not server.api:
        return None
    chats = ClientChats(persist)
    models = ApiModels(runtime, current, answering, chats)
    tools = KnowledgeTools(runtime, current, answering, chats)
    api = build_api(models, ApiToken(config_file).read, mcp=McpHttp(tools, __version__))
    try:
        running = serve_api(api, server.api_port, server.allowed_hosts)
    except OSError as err:
        log.warning(
            "the API is off: %s (is port %d taken? [server] api_port in config.toml)", err, server.api_port
        )
        models.close()
        tools.close()
        return None
    running.models, running.tools = models, tools
    return running
