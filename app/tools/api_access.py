"""Who may use the OpenAI-compatible API, and how often (ASGI middlewares in front of its routes).

- ``BearerAuth``: every request carries the API's token (``Authorization: Bearer …``), else 401.
- ``RateLimit``: each client address gets ``per_minute`` requests a minute (a token bucket that
  refills evenly, so a burst up to ``per_minute`` passes), else 429 with ``Retry-After``. It sits in
  front of ``BearerAuth``: guessing the token is rate limited too.

The Host/Origin checks and the body size limit are the UI's own guards, put around the whole API by
``ui.server.api_server``. Refusals are OpenAI-shaped JSON errors (``{"error": {"message", "type",
"code"}}``), so an OpenAI client shows their sentence.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

from app.tools.api_token import token_matches

__all__ = ["BearerAuth", "RateLimit", "send_error"]

log = logging.getLogger(__name__)


async def send_error(
    send: Send, status: int, message: str, kind: str, headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    body = json.dumps({"error": {"message": message, "type": kind, "code": kind}}).encode()
    head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": [*head, *headers]})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def client_of(scope: Scope) -> str:
    client = scope.get("client")
    return f"{client[0]}:{client[1]}" if client else "unknown client"


class BearerAuth:
    """401 for a request without the token ``token()`` returns (read per request: a renewed token holds
    at once)."""

    def __init__(self, app: ASGIApp, token: Callable[[], str]) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or token_matches(self.token(), _header(scope, b"authorization")):
            await self.app(scope, receive, send)
            return
        log.warning(
            "api: refused %s %r from %s: no valid token", scope["method"], scope["path"], client_of(scope)
        )
        await send_error(
            send,
            401,
            "A bearer token is needed: run `kimas token` and send it as 'Authorization: Bearer <token>'.",
            "invalid_api_key",
            ((b"www-authenticate", b"Bearer"),),
        )


class TokenBucket:
    """``per_minute`` requests a minute per key, refilled evenly; thread-safe."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self._clock = clock
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}  # key: (tokens left, when last counted)

    def take(self, key: str) -> float:
        """0 when ``key`` may go now (one token taken); else the seconds until it may."""
        now = self._clock()
        rate = self.per_minute / 60.0
        with self._lock:
            left, then = self._buckets.get(key, (float(self.per_minute), now))
            left = min(float(self.per_minute), left + (now - then) * rate)
            if left >= 1.0:
                self._buckets[key] = (left - 1.0, now)
                return 0.0
            self._buckets[key] = (left, now)
            return (1.0 - left) / rate


class RateLimit:
    """429 once a client address has used its requests of the minute."""

    def __init__(self, app: ASGIApp, per_minute: int) -> None:
        self.app = app
        self.bucket = TokenBucket(per_minute)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        wait = self.bucket.take(client[0] if client else "")
        if wait == 0.0:
            await self.app(scope, receive, send)
            return
        log.warning("api: refused %r from %s: over %d requests a minute", scope["path"], client_of(scope),
                    self.bucket.per_minute)  # fmt: skip
        retry = str(max(1, math.ceil(wait))).encode()
        message = (
            f"Too many requests: at most {self.bucket.per_minute} a minute. Try again in {retry.decode()} s."
        )
        await send_error(send, 429, message, "rate_limit_exceeded", ((b"retry-after", retry),))
