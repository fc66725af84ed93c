"""``ToolsAccess``: what the Settings tab shows and changes of the ways other tools reach the app: the
``kimas mcp`` command line, the addresses of the OpenAI-compatible API and of MCP over HTTP, their switch
(``[server] api``: the running app follows it within a second, ``ui.server.api_switch``) and their token.
``ApiStatus`` is what the running app could do: the port it could not open, which the state then says; a
switch in Settings waits (a few seconds at most) until the running app has tried the new setting, so the
sentence it shows is already true."""

from __future__ import annotations

import threading

from app.outcomes import Said
from app.settings.config_store import ConfigStore
from app.tools.api_token import ApiToken
from app.tools.endpoints import Endpoints, endpoints

__all__ = ["ApiStatus", "ToolsAccess"]


class ApiStatus:
    """The port ``kimas serve`` could not open for the API and MCP (another program holds it), else None;
    and the setting ``[server] api``/``api_port`` it last followed (None until an app follows them)."""

    def __init__(self) -> None:
        self.refused_port: int | None = None
        self._tried: tuple[bool, int] | None = None
        self._changed = threading.Condition()

    def tried(self, on: bool, port: int, refused: bool) -> None:
        """The running app has followed ``on`` at ``port`` (``refused``: the port was taken)."""
        with self._changed:
            self.refused_port = port if refused else None
            self._tried = (on, port)
            self._changed.notify_all()

    def wait_tried(self, on: bool, port: int, timeout_s: float) -> None:
        """Until the running app has followed this setting (at once when no app follows them)."""
        with self._changed:
            if self._tried is not None:
                self._changed.wait_for(lambda: self._tried == (on, port), timeout_s)


class ToolsAccess:
    def __init__(self, store: ConfigStore, status: ApiStatus | None = None) -> None:
        self._store = store
        self._status = status or ApiStatus()

    def endpoints(self) -> Endpoints:
        return endpoints(self._store.current)

    def switch(self, on: bool, wait_s: float = 5.0) -> str:
        """Turn the API and MCP over HTTP on or off (saved to the config file); the sentence to show, once
        the running app has tried it (``wait_s`` at most: it follows the file within a second)."""
        self._store.update(lambda cur: cur.updated(server={**cur.server.model_dump(), "api": on}))
        self._status.wait_tried(on, self._store.current.server.api_port, wait_s)
        return self.state()

    def state(self) -> str:
        """Whether the API and MCP over HTTP are served, and where (English)."""
        return self.said_state().english

    def said_state(self) -> Said:
        """``state`` as a code ("api_off", "api_on" with the port), for the UI to word."""
        if not self.endpoints().api_on:
            return Said("The API and MCP over HTTP are **off**: no port is open for them.", "api_off")
        port = self._store.current.server.api_port
        if self._status.refused_port == port:
            return Said(
                f"The API and MCP over HTTP are **on** in the settings but **not served**: port {port} on "
                f"127.0.0.1 is in use (another KIMAs, or another program). Set another `api_port` under "
                f"[server] in {self._store.path}; the app follows it within a second.",
                "api_port_taken",
                {"port": port, "path": str(self._store.path)},
            )
        return Said(
            f"The API and MCP over HTTP are **on** at 127.0.0.1:{port} (this computer only), for programs "
            "that send the token.",
            "api_on",
            {"port": port},
        )

    def token(self) -> str:
        """The bearer token (made now if there is none yet); ``kimas token`` prints the same."""
        return ApiToken(self._store.path).read()
