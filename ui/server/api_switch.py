"""``ApiSwitch``: the API and MCP over HTTP served as the config says, now.

``kimas serve`` starts them through ``sync`` (before it prints their address), then ``follow`` checks the
app's config once a second: switched off in Settings, the server stops and its port closes; switched on,
it starts; a new ``api_port`` or ``allowed_hosts`` restarts it there. A start that fails (the port is
taken) is logged once, kept in ``ApiStatus`` for the Settings tab, and tried again only when those settings
change."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from app.settings.tools_access import ApiStatus
from kimas_desktop.config import Config
from ui.server.api_server import RunningApi

__all__ = ["ApiSwitch"]

log = logging.getLogger(__name__)

Wanted = tuple[int, tuple[str, ...]] | None  # (port, allowed hosts) when on; None when off


def _wanted(config: Config) -> Wanted:
    server = config.server
    return (server.api_port, tuple(server.allowed_hosts)) if server.api else None


class ApiSwitch:
    """``start()`` serves the API under the config as it is then (None when it cannot)."""

    def __init__(
        self,
        start: Callable[[], RunningApi | None],
        current: Callable[[], Config],
        every_s: float = 1.0,
        status: ApiStatus | None = None,
    ) -> None:
        self._start = start
        self.status = status or ApiStatus()
        self._current = current
        self._every_s = every_s
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._serving: Wanted = None
        self.running: RunningApi | None = None

    def sync(self) -> RunningApi | None:
        """Start, stop or move the server to match the config; the server running now (or None)."""
        with self._lock:
            config = self._current()
            wanted = _wanted(config)
            if wanted != self._serving:
                self._serve(wanted)
            refused = wanted is not None and self.running is None
            self.status.tried(config.server.api, config.server.api_port, refused)
            return self.running

    def _serve(self, wanted: Wanted) -> None:
        if self.running is not None:
            log.info("api: stopping %s", self.running.url)
            self.running.close()
            self.running = None
        self._serving = wanted
        if wanted is not None:
            self.running = self._start()
            if self.running is not None:
                log.info("api: serving %s and %s", self.running.url, self.running.mcp_url)

    def follow(self) -> None:
        """Keep following the config on a background thread until ``close``."""
        self._thread = threading.Thread(target=self._loop, daemon=True, name="kimas-api-switch")
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self._every_s):
            try:
                self.sync()
            except Exception:  # a failed start or stop must not end the following
                log.exception("api: could not follow the settings")

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)
        with self._lock:
            if self.running is not None:
                self.running.close()
                self.running = None
