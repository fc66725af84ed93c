"""``SafeClient``: every HTTP request an online source makes.

Redirects are followed by hand so each hop's address is checked (``web.address``); the request's own
headers (a token, a key, a cookie the user configured) go only to the origin they were given for, and no
cookie a server sets is kept. A body is read up to a size limit and the whole request, redirects
included, ends by its deadline. Errors are ``SourceError`` with a sentence that names the host.
"""

from __future__ import annotations

import codecs
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import Any
from urllib.parse import urljoin

import httpx

from kimas_desktop.control import CancelToken
from kimas_desktop.errors import SourceError
from web.address import Origin, check_url, host_of, origin_of

__all__ = ["Fetched", "SafeClient", "decode"]

USER_AGENT = "KIMAs-Desktop/0.1 (a private knowledge assistant; one request per question)"
MAX_REDIRECTS = 5
# Codecs Python knows that are not a web page's character set (a browser ignores them too): decoding a
# page with them fails or turns it into something else.
NOT_A_CHARSET = frozenset({"idna", "punycode", "unicode-escape", "raw-unicode-escape", "utf-7"})


def decode(body: bytes, charset: str) -> str:
    """``body`` as text in the declared ``charset``, or UTF-8 when it names none, an unknown one, or no
    character set at all (idna, rot13); bytes that do not decode become U+FFFD."""
    try:
        if codecs.lookup(charset).name not in NOT_A_CHARSET:
            return body.decode(charset, errors="replace")
    except (LookupError, ValueError):  # unknown, not a text encoding, or (UnicodeError) a codec that fails
        pass
    return body.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class Fetched:
    url: str  # after redirects
    status: int
    content_type: str  # the media type, lower-cased, without parameters
    body: bytes
    truncated: bool  # the body was cut at the size limit
    encoding: str = ""  # the charset the server declared

    def text(self) -> str:
        return decode(self.body, self.encoding)


def _late(url: str, timeout_s: float) -> SourceError:
    host, seconds = host_of(url), f"{timeout_s:g}"
    english = f"{host} did not answer within {seconds} s"
    return SourceError(english, code="source_timeout", values={"host": host, "seconds": seconds})


class SafeClient:
    """One connection pool for one source. ``allowed``: private origins it may reach (its own)."""

    def __init__(self, *, allowed: frozenset[Origin] = frozenset()) -> None:
        self.allowed = allowed
        self._http: httpx.Client | None = None
        self._lock = threading.Lock()  # a source reads several pages at once

    def _client(self) -> httpx.Client:
        with self._lock:
            if self._http is None:
                self._http = httpx.Client(
                    follow_redirects=False,
                    headers={"User-Agent": USER_AGENT},
                    cookies=CookieJar(DefaultCookiePolicy(allowed_domains=[])),  # keeps none
                )
            return self._http

    def request(
        self,
        method: str,
        url: str,
        *,
        timeout_s: float,
        max_bytes: int,
        params: Mapping[str, str] | None = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
        cancel: CancelToken | None = None,
    ) -> Fetched:
        deadline = time.monotonic() + timeout_s
        for _hop in range(MAX_REDIRECTS + 1):
            check_url(url, allowed=self.allowed)
            left = deadline - time.monotonic()
            if left <= 0:
                raise _late(url, timeout_s)
            try:
                with self._client().stream(
                    method, url, params=params, json=json, headers=headers, timeout=httpx.Timeout(left)
                ) as r:
                    if r.is_redirect and "location" in r.headers:
                        before, url = url, urljoin(str(r.url), r.headers["location"])
                        if origin_of(url) != origin_of(before):
                            headers = None  # a token for one origin is never sent to another
                        if r.status_code == 303 or (r.status_code in (301, 302) and method != "GET"):
                            method, json = "GET", None
                        params = None  # the new location carries its own query
                        continue
                    if r.status_code >= 400:
                        raise SourceError(
                            f"{host_of(url)} answered HTTP {r.status_code}",
                            code="source_http",
                            values={"host": host_of(url), "status": str(r.status_code)},
                        )
                    body, truncated = _read(r, max_bytes, deadline, cancel)
                    kind = r.headers.get("content-type", "").split(";")[0].strip().lower()
                    return Fetched(str(r.url), r.status_code, kind, body, truncated, r.charset_encoding or "")
            except httpx.TimeoutException:
                raise _late(url, timeout_s) from None
            except (httpx.HTTPError, httpx.InvalidURL) as err:
                host, kind = host_of(url), type(err).__name__
                raise SourceError(
                    f"{host} could not be reached: {kind}",
                    code="source_unreachable",
                    values={"host": host, "error": kind},
                ) from None
        raise SourceError(
            f"{host_of(url)}: more than {MAX_REDIRECTS} redirects",
            code="source_redirects",
            values={"host": host_of(url), "n": str(MAX_REDIRECTS)},
        )

    def close(self) -> None:
        with self._lock:
            http, self._http = self._http, None
        if http is not None:
            http.close()


def _read(
    r: httpx.Response, max_bytes: int, deadline: float, cancel: CancelToken | None
) -> tuple[bytes, bool]:
    parts: list[bytes] = []
    size = 0
    for piece in r.iter_bytes():
        if cancel is not None:
            cancel.raise_if_cancelled()
        parts.append(piece)
        size += len(piece)
        if size >= max_bytes:
            return b"".join(parts)[:max_bytes], True
        if time.monotonic() > deadline:
            return b"".join(parts), True  # what arrived in time
    return b"".join(parts), False
