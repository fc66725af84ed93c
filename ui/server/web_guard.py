"""``SameOriginGuard``: only this computer's own pages can use the app (an ASGI middleware).

A web page the user visits elsewhere must not drive the app. Two checks, before any route runs:

- **Host.** Every request (page, API, queue, uploads, source links, websockets) must name this app's own
  address in its ``Host`` header: ``127.0.0.1:PORT``, ``localhost:PORT``, ``[::1]:PORT`` or an address the
  user configured. A DNS-rebinding page (``evil.example`` pointed at 127.0.0.1) sends its own name, so it
  is refused: the browser treats it as same-origin, this check does not.
- **Origin.** A request that can change something (any method but GET/HEAD/OPTIONS, and websockets)
  must come from a page of this same address: its ``Origin`` (or, without one, its ``Referer``) must be
  ``http://<one of those addresses>``. Another local web page (``http://localhost:9999``) is refused.

Anything else gets a 403 with a short sentence, and one line in the log saying why. CORS grants nothing:
the app's own page is same-origin and needs none (``server.py`` gives Gradio's CORS layer an empty list).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["SameOriginGuard", "own_hosts"]

log = logging.getLogger(__name__)

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def own_hosts(port: int, extra: Iterable[str] = ()) -> frozenset[str]:
    """The ``Host`` values that name this app: loopback names with ``port``, plus configured ones.

    A configured entry without a port gets ``port``; entries are compared lower-cased.
    """
    hosts = {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"}
    for entry in extra:
        entry = entry.strip().lower()
        if not entry:
            continue
        has_port = entry.rsplit(":", 1)[-1].isdigit() and not entry.endswith("]")
        hosts.add(entry if has_port else f"{entry}:{port}")
    return frozenset(h.lower() for h in hosts)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _origin_host(value: str) -> str | None:
    """``host:port`` of an ``http://`` origin or referer, or None when it is not one."""
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "ws") or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{host}:{port or 80}".lower()


class SameOriginGuard:
    def __init__(self, app: ASGIApp, hosts: frozenset[str]) -> None:
        self.app = app
        self.hosts = hosts

    def refusal(self, scope: Scope) -> str | None:
        """Why ``scope`` is refused, or None when it may pass."""
        host = (_header(scope, b"host") or "").lower()
        if host not in self.hosts:
            return f"Host {host!r} is not this app's address"
        changes = scope["type"] == "websocket" or scope.get("method", "GET") not in _SAFE_METHODS
        if not changes:
            return None
        origin = _header(scope, b"origin")
        if origin is not None:
            if _origin_host(origin) not in self.hosts:
                return f"Origin {origin!r} is not this app's page"
            return None
        referer = _header(scope, b"referer")
        if referer is None:
            return "a change without an Origin or Referer header"
        if _origin_host(referer) not in self.hosts:
            return f"Referer {referer!r} is not this app's page"
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        why = self.refusal(scope)
        if why is None:
            await self.app(scope, receive, send)
            return
        log.warning("refused %s %r: %s", scope.get("method", "WEBSOCKET"), scope.get("path", ""), why)
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = b"Forbidden: KIMAs answers only its own pages at its own address on this computer.\n"
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
