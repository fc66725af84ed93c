"""``RequestSizeLimit``: a request body larger than the limit is refused before it is stored (ASGI).

A declared ``Content-Length`` over the limit is answered 413 before a byte of the body is read. A body
sent without one (chunked) is counted as it streams: at the limit, reading the body fails with
``RequestTooLarge``, a multipart parse error, so Gradio's upload parser deletes the files it had begun
(on a plain disconnect it leaves them in its cache) and answers 413 itself; any other route gets our 413.
Gradio's own per-file limit (``max_file_size``) applies inside the request. After either refusal the
connection is closed, or the server would read and drop the rest of the body.
"""

from __future__ import annotations

import contextlib
import logging

from python_multipart.exceptions import MultipartParseError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["RequestSizeLimit", "RequestTooLarge"]

log = logging.getLogger(__name__)


class RequestTooLarge(MultipartParseError):
    """The body went over the limit (Gradio's parser turns "maximum allowed size" into a 413)."""


class RequestSizeLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _message(self) -> str:
        return (
            f"Upload over the maximum allowed size of {self.max_bytes / 1_000_000:g} MB in one request "
            "(server.max_upload_request_mb in config.toml)."
        )

    async def _refuse(self, send: Send) -> None:
        body = (self._message() + "\n").encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        for key, value in scope.get("headers", ()):
            if key == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                log.warning("refused %r: Content-Length %s over the upload limit", path, value.decode())
                await self._refuse(send)
                return
        seen = 0
        over = False
        started = False  # the app began a response we pass on
        dropped = False  # the app's response to the refused body, replaced by ours

        async def counted() -> Message:
            nonlocal seen, over
            if over:
                raise RequestTooLarge(self._message())
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    over = True
                    log.warning("refused %r: body over the upload limit after %d bytes", path, seen)
                    raise RequestTooLarge(self._message())
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started, dropped
            if message["type"] == "http.response.start":
                if over and message["status"] != 413:
                    dropped = True
                    return
                if message["status"] == 413:  # close rather than read the rest of the body
                    message = {**message, "headers": [*message.get("headers", []), (b"connection", b"close")]}
                started = True
            elif dropped:
                return
            await send(message)

        with contextlib.suppress(RequestTooLarge):
            await self.app(scope, counted, guarded_send)
        if over and not started:
            await self._refuse(send)
