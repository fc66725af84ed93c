"""``ToolsAccess``: what the Settings tab shows and changes of the ways other tools reach the app: the
``kimas mcp`` command line, the addresses of the OpenAI-compatible API and of MCP over HTTP, their switch
(``[server] api``: the running app follows it within a second, ``ui.server.api_switch``) and their token."""

from __future__ import annotations

from app.outcomes import Said
from app.settings.config_store import ConfigStore
from app.tools.api_token import ApiToken
from app.tools.endpoints import Endpoints, endpoints

__all__ = ["ToolsAccess"]


class ToolsAccess:
    def __init__(self, store: ConfigStore) -> None:
        self._store = store

    def endpoints(self) -> Endpoints:
        return endpoints(self._store.current)

    def switch(self, on: bool) -> str:
        """Turn the API and MCP over HTTP on or off (saved to the config file); the sentence to show."""
        self._store.update(lambda cur: cur.updated(server={**cur.server.model_dump(), "api": on}))
        return self.state()

    def state(self) -> str:
        """Whether the API and MCP over HTTP are served, and where (English)."""
        return self.said_state().english

    def said_state(self) -> Said:
        """``state`` as a code ("api_off", "api_on" with the port), for the UI to word."""
        if not self.endpoints().api_on:
            return Said("The API and MCP over HTTP are **off**: no port is open for them.", "api_off")
        port = self._store.current.server.api_port
        return Said(
            f"The API and MCP over HTTP are **on** at 127.0.0.1:{port} (this computer only), for programs "
            "that send the token.",
            "api_on",
            {"port": port},
        )

    def token(self) -> str:
        """The bearer token (made now if there is none yet); ``kimas token`` prints the same."""
        return ApiToken(self._store.path).read()
