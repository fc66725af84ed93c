"""``McpHttp``: the MCP server (``mcp_server``) over streamable HTTP, for the running app's API port.

The official SDK's session manager in stateless mode: each POST is one JSON-RPC exchange on a transport
of its own (no session to keep, no stream left open), its tools run on worker threads. ``openai_api``
mounts ``endpoint`` at ``/mcp`` inside the API, so MCP shares the API's port, token, rate limit, off switch
and the guards around it (Host/Origin, body size, security headers: ``ui.server.api_server``). The SDK's
own Host/Origin check is off: ``ClientGuard`` makes the same check in front of every route, with the
addresses the user allowed."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp

from app.tools.knowledge import KnowledgeTools
from app.tools.mcp_server import build_server

__all__ = ["McpHttp"]


class McpHttp:
    """MCP over streamable HTTP on ``tools``; serve ``endpoint`` while ``running()`` is entered (once)."""

    def __init__(self, tools: KnowledgeTools, version: str = "") -> None:
        self.tools = tools
        server = build_server(tools, version)
        server.streamable_http_app(
            stateless_http=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self._manager = server.session_manager
        self.endpoint: ASGIApp = StreamableHTTPASGIApp(self._manager)

    def running(self) -> AbstractAsyncContextManager[None]:
        """The session manager's task group: the server's lifespan."""
        return self._manager.run()
