"""What a browser page fetched from beyond this computer (fonts, CDNs, analytics): the app must fetch
nothing but 127.0.0.1 (and data:/blob: URLs it makes itself)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit


def outside_requests(page: Any) -> list[str]:
    """A list that fills with every request ``page`` makes beyond 127.0.0.1, from now on."""
    external: list[str] = []

    def seen(request: Any) -> None:
        url = urlsplit(request.url)
        if url.scheme not in ("data", "blob") and url.hostname != "127.0.0.1":
            external.append(request.url)

    page.on("request", seen)
    return external
