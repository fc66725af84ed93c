"""``SecurityHeaders``: what a browser may do with each response of the app (an ASGI middleware).

Two promises, on top of ``SameOriginGuard`` (which decides who may ask at all):

- **No page of another site can show the app.** Every response (pages, API, queue, uploads, files, and
  the guards' own refusals) says ``X-Frame-Options: DENY`` and ``Content-Security-Policy:
  frame-ancestors 'none'``, so a foreign page cannot frame the app and trick clicks into it
  (clickjacking). Every response also says ``X-Content-Type-Options: nosniff``.
- **What a user opens from their folders is data, never code.** A file from a collection's folder
  (``/kimas/source/…``, the viewer's ``/kimas/view/…``, and Gradio's own ``/gradio_api/file=…``) gets
  ``FILE_POLICY``: ``sandbox``
  (no scripts, no forms, an origin of its own, so nothing in it can reach the app), and nothing it may
  load but its own images and styles. ``served_type`` picks how such a file is sent: types a browser
  only displays (PDF, raster images, audio, video) as themselves; anything that is text, markup or a
  script (HTML, SVG, XHTML, XML, JavaScript, …) as ``text/plain``, shown as its source; the rest as a
  download.

The app's own pages get ``PAGE_POLICY``: only what Gradio 6 needs (its inline page config and styles,
the ``js=`` hook it runs through ``new Function``, ``data:``/``blob:`` images, requests to itself), and
nothing from any other address.
"""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["FILE_POLICY", "PAGE_POLICY", "SecurityHeaders", "ServedType", "served_type"]

PAGE_POLICY = "; ".join(
    [
        "default-src 'self'",
        # Gradio's page config is an inline script; gr.HTML and the launch js= hook run through Function()
        "script-src 'self' 'unsafe-inline' 'unsafe-eval'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "media-src 'self' data: blob:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
FILE_POLICY = (
    "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; "
    "frame-ancestors 'none'"
)
# Where files from the user's folders are served (the viewer's pages too).
FILE_PATHS = ("/kimas/source/", "/kimas/view/", "/gradio_api/file=")

# What a browser shows without running anything in it on the app's origin.
_SHOWN_AS_IS = frozenset(
    {
        "application/pdf",
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/webp",
        "image/bmp",
        "image/avif",
        "audio/mpeg",
        "audio/ogg",
        "audio/wav",
        "audio/x-wav",
        "audio/flac",
        "video/mp4",
        "video/webm",
        "video/ogg",
    }
)
_TEXT_MARKS = ("text/", "message/", "/xml", "+xml", "javascript", "ecmascript", "/json", "+json")
# Markup and scripts by name too: the system's type table (the registry, on Windows) may say otherwise.
_TEXT_SUFFIXES = frozenset(
    ".html .htm .shtml .xhtml .xht .svg .svgz .xml .xsl .xslt .js .mjs .mht .mhtml .md .markdown .rst".split()
)
_PLAIN = "text/plain; charset=utf-8"


@dataclass(frozen=True)
class ServedType:
    """How a file from the user's folders is sent: its ``Content-Type`` and ``Content-Disposition``."""

    media_type: str
    disposition: str  # "inline" (shown in the tab) or "attachment" (downloaded)


def served_type(name: str) -> ServedType:
    """Shown as itself when a browser only displays that type; text, markup and scripts as plain text;
    anything else downloaded (never sniffed, never run)."""
    suffix = name[name.rfind(".") :].lower() if "." in name else ""
    guessed = (mimetypes.guess_type(name, strict=False)[0] or "").lower()
    if not guessed or suffix in _TEXT_SUFFIXES or any(m in guessed for m in _TEXT_MARKS):
        return ServedType(_PLAIN, "inline")
    if guessed in _SHOWN_AS_IS:
        return ServedType(guessed, "inline")
    return ServedType("application/octet-stream", "attachment")


def _with_headers(message: Message, path: str) -> Message:
    headers = [(bytes(key).lower(), bytes(value)) for key, value in message.get("headers", [])]
    names = {key for key, _ in headers}
    if b"x-frame-options" not in names:
        headers.append((b"x-frame-options", b"DENY"))
    if b"x-content-type-options" not in names:
        headers.append((b"x-content-type-options", b"nosniff"))
    policy = (FILE_POLICY if path.startswith(FILE_PATHS) else PAGE_POLICY).encode()
    if (b"content-security-policy", policy) not in headers:  # a route's own other policy holds too
        headers.append((b"content-security-policy", policy))
    return {**message, "headers": headers}


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = _with_headers(message, path)
            await send(message)

        await self.app(scope, receive, send_with_headers)
