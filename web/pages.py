"""``PageReader``: a result page's main text, as the source's documents.

HTML goes through trafilatura's main-text extraction (no scripts, no markup, no links: text only);
plain text is kept as it is (in its declared charset, or UTF-8 when that is not one); anything else (PDF,
images, binaries) is skipped. A page that cannot be decoded or parsed is a ``SourceError``: the result
keeps its snippet. Pages are cached on disk
for ``ttl_s`` so a repeated question does not fetch them again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from kimas_desktop.control import CancelToken
from kimas_desktop.errors import SourceError
from web.client import Fetched, SafeClient

__all__ = ["Page", "PageReader"]

TEXT_TYPES = ("text/plain", "text/markdown")
HTML_TYPES = ("text/html", "application/xhtml+xml")


@dataclass(frozen=True)
class Page:
    url: str  # after redirects
    title: str
    text: str
    date: str
    fetched_at: float


class PageReader:
    def __init__(self, client: SafeClient, cache_dir: Path | None, *, ttl_s: float, max_bytes: int) -> None:
        self._client = client
        self._cache_dir = cache_dir
        self._ttl_s = ttl_s
        self._max_bytes = max_bytes

    def read(self, url: str, *, timeout_s: float, cancel: CancelToken | None = None) -> Page:
        cached = self._cached(url)
        if cached is not None:
            return cached
        fetched = self._client.request(
            "GET", url, timeout_s=timeout_s, max_bytes=self._max_bytes, cancel=cancel
        )
        page = extract(fetched)
        self._keep(url, page)
        return page

    def _path(self, url: str) -> Path | None:
        if self._cache_dir is None or self._ttl_s <= 0:
            return None
        return self._cache_dir / f"{hashlib.sha256(url.encode('utf-8')).hexdigest()[:32]}.json"

    def _cached(self, url: str) -> Page | None:
        path = self._path(url)
        if path is None or not path.is_file():
            return None
        try:
            page = Page(**json.loads(path.read_text("utf-8")))
        except (OSError, ValueError, TypeError):
            return None  # a damaged entry is fetched again and overwritten
        return page if time.time() - page.fetched_at < self._ttl_s else None

    def _keep(self, url: str, page: Page) -> None:
        path = self._path(url)
        if path is None:
            return
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs a fetch
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(asdict(page), out)
            os.replace(tmp, path)


def extract(fetched: Fetched) -> Page:
    """The main text of a fetched page (``SourceError`` for a kind of file we do not read)."""
    now = time.time()
    if fetched.content_type in TEXT_TYPES:
        text = fetched.text().strip()
        if not text:
            raise SourceError(f"no text at {fetched.url[:120]}")
        return Page(fetched.url, "", text, "", now)
    if fetched.content_type not in HTML_TYPES and fetched.content_type:
        raise SourceError(f"{fetched.url[:120]} is {fetched.content_type}, not a web page")
    import trafilatura  # heavy imports, only when a page is read
    from lxml.etree import LxmlError

    try:
        doc = trafilatura.bare_extraction(
            fetched.body,
            url=fetched.url,
            with_metadata=True,
            include_comments=False,
            include_links=False,
            include_images=False,
            include_tables=True,
        )
    except (LookupError, ValueError, RecursionError, LxmlError) as err:  # a charset, markup too deep…
        raise SourceError(f"{fetched.url[:120]} could not be read ({type(err).__name__})") from None
    text = "" if doc is None or isinstance(doc, dict) else (doc.text or "").strip()
    if doc is None or isinstance(doc, dict) or not text:
        raise SourceError(f"no readable text at {fetched.url[:120]}")
    return Page(fetched.url, doc.title or "", text, doc.date or "", now)
