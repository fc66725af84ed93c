"""The search engines behind an online source, each turning a query into ``SearchResult``s.

    SearxngEngine   a SearXNG instance's JSON API (self-hostable: the private choice)
    DdgsEngine      the ``ddgs`` metasearch library (no key, no server of your own)
    HttpApiEngine   any HTTP search API: a request template and a response mapping (an in-site search,
                    an internal wiki, a search API with a key)

A ``site`` restriction (the paper's site-restricted search) is asked of the engine and checked on
every result's address.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import quote, urlencode, urljoin

from kimas_desktop.config import SourceConfig
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import SourceError
from web.address import host_of
from web.client import SafeClient

__all__ = ["DdgsEngine", "HttpApiEngine", "SearchEngine", "SearchResult", "SearxngEngine", "on_site"]

API_MAX_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class SearchResult:
    title: str
    url: str
    snippet: str
    date: str = ""


class SearchEngine(Protocol):
    def search(
        self, query: str, *, limit: int, timeout_s: float, cancel: CancelToken | None = None
    ) -> list[SearchResult]: ...


def on_site(url: str, site: str) -> bool:
    """``url`` is on ``site`` or one of its subdomains (always true without a site)."""
    if not site:
        return True
    host, site = host_of(url), site.lower().strip(".")
    return host == site or host.endswith("." + site)


def _site_query(query: str, site: str) -> str:
    return f"{query} site:{site}" if site else query


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _results(rows: list[SearchResult], site: str, limit: int) -> list[SearchResult]:
    seen: set[str] = set()
    out: list[SearchResult] = []
    for r in rows:
        if r.url.startswith(("http://", "https://")) and on_site(r.url, site) and r.url not in seen:
            seen.add(r.url)
            out.append(r)
    return out[:limit]


def _failed(english: str, code: str, **values: str) -> SourceError:
    """A source's failure: its English sentence, and the same as a code with plain values (the trace says
    it in the page's language)."""
    return SourceError(english, code=code, values=values)


def _json(
    client: SafeClient, method: str, url: str, timeout_s: float, cancel: CancelToken | None, **kw: Any
) -> Any:
    got = client.request(method, url, timeout_s=timeout_s, max_bytes=API_MAX_BYTES, cancel=cancel, **kw)
    host = host_of(url)
    if got.truncated:
        mb = str(API_MAX_BYTES // 2**20)
        raise _failed(f"{host}'s answer is over {mb} MB or too slow", "source_too_big", host=host, mb=mb)
    try:
        return json.loads(got.text())
    except ValueError:
        raise _failed(f"{host} did not answer with JSON", "source_not_json", host=host) from None
    except RecursionError:  # a JSON bomb: lists in lists, deeper than Python's stack
        raise _failed(f"{host}'s answer is nested too deeply to read", "source_too_deep", host=host) from None


class SearxngEngine:
    def __init__(self, client: SafeClient, base_url: str, *, site: str = "") -> None:
        self._client, self._base, self._site = client, base_url.rstrip("/"), site

    def search(
        self, query: str, *, limit: int, timeout_s: float, cancel: CancelToken | None = None
    ) -> list[SearchResult]:
        params = {"q": _site_query(query, self._site), "format": "json"}
        data = _json(self._client, "GET", f"{self._base}/search", timeout_s, cancel, params=params)
        rows = data.get("results") if isinstance(data, dict) else None
        if not isinstance(rows, list):
            host = host_of(self._base)
            raise _failed(f"{host} did not answer in SearXNG's JSON format", "source_not_searxng", host=host)
        found = [
            SearchResult(
                _text(r.get("title")),
                _text(r.get("url")),
                _text(r.get("content")),
                _text(r.get("publishedDate")),
            )
            for r in rows
            if isinstance(r, dict)
        ]
        return _results(found, self._site, limit)


class DdgsEngine:
    """The ``ddgs`` library talks to public search engines itself (its own HTTP client); the pages its
    results name are fetched by ``SafeClient`` like any other."""

    def __init__(self, *, site: str = "", region: str = "wt-wt", safesearch: str = "moderate") -> None:
        self._site, self._region, self._safesearch = site, region, safesearch

    def search(
        self, query: str, *, limit: int, timeout_s: float, cancel: CancelToken | None = None
    ) -> list[SearchResult]:
        from ddgs import DDGS  # only when the user enabled this source
        from ddgs.exceptions import DDGSException

        try:
            rows = DDGS(timeout=max(1, int(timeout_s))).text(
                _site_query(query, self._site),
                region=self._region,
                safesearch=self._safesearch,
                max_results=limit * 2,
            )
        except DDGSException as err:
            raise SourceError(
                f"the web search failed: {err}", code="source_search_failed", values={"error": str(err)}
            ) from None
        found = [
            SearchResult(_text(r.get("title")), _text(r.get("href")), _text(r.get("body")))
            for r in rows
            if isinstance(r, dict)
        ]
        return _results(found, self._site, limit)


def dig(data: Any, path: str) -> Any:
    """The value at a dotted path ("data.items", "hits.0.title"); None where it is missing."""
    for key in filter(None, path.split(".")):
        if isinstance(data, Mapping):
            data = data.get(key)
        elif isinstance(data, list) and key.isdigit() and int(key) < len(data):
            data = data[int(key)]
        else:
            return None
    return data


_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _expand_env(value: str) -> str:
    def one(m: re.Match[str]) -> str:
        if m.group(1) not in os.environ:
            name = m.group(1)
            raise _failed(f"the environment variable {name} is not set", "source_env_unset", name=name)
        return os.environ[m.group(1)]

    return _ENV.sub(one, value)


def _fill(template: Any, query: str) -> Any:
    """``template`` with "{query}" replaced in every string inside it."""
    if isinstance(template, str):
        return template.replace("{query}", query)
    if isinstance(template, dict):
        return {k: _fill(v, query) for k, v in template.items()}
    if isinstance(template, list):
        return [_fill(v, query) for v in template]
    return template


class HttpApiEngine:
    def __init__(self, client: SafeClient, spec: SourceConfig) -> None:
        self._client, self._spec = client, spec

    def _headers(self) -> dict[str, str]:
        headers = {k: _expand_env(v) for k, v in self._spec.headers.items()}
        if self._spec.token_env:
            token = os.environ.get(self._spec.token_env, "")
            if not token:
                name = self._spec.token_env
                english = f"the environment variable {name} (the API token) is not set"
                raise _failed(english, "source_token_unset", name=name)
            headers["Authorization"] = f"Bearer {token}"
        return headers

    def search(
        self, query: str, *, limit: int, timeout_s: float, cancel: CancelToken | None = None
    ) -> list[SearchResult]:
        s = self._spec
        url = s.base_url.replace("{query}", quote(query))
        kw: dict[str, Any] = {"headers": self._headers()}
        if s.method == "GET":  # added to the address's own query (httpx's params would replace it)
            extra = {**s.params, **({s.query_param: query} if "{query}" not in s.base_url else {})}
            url += ("&" if "?" in url else "?") + urlencode(extra) if extra else ""
        else:
            kw["json"] = _fill(s.json_body, query) if s.json_body else {s.query_param: query}
        data = _json(self._client, s.method, url, timeout_s, cancel, **kw)
        rows = dig(data, s.results_path)
        if not isinstance(rows, list):
            host, path = host_of(url), s.results_path
            if path:
                english = f"{host}'s answer has no list of results at '{path}'"
                raise _failed(english, "source_no_results_at", host=host, path=path)
            raise _failed(
                f"{host}'s answer has no list of results at the top", "source_no_results", host=host
            )
        found = [
            SearchResult(
                _text(dig(r, s.title_field)),
                urljoin(s.base_url, _text(dig(r, s.url_field))) if _text(dig(r, s.url_field)) else "",
                _text(dig(r, s.text_field)),
                _text(dig(r, s.date_field)) if s.date_field else "",
            )
            for r in rows
            if isinstance(r, Mapping)
        ]
        return _results(found, s.site, limit)  # a result needs an address to be cited
