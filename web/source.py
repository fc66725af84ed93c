"""``WebSource``: an online knowledge source as the core sees it (``OnlineSource``).

It asks its engine, then reads the pages of the best results in parallel; whatever has not arrived by
the source's time limit is dropped (a result whose page was not read keeps its snippet). A source
reaches only its own origin and the public http(s) pages its results name (``SafeClient``).

An answer the engine cannot read (a charset that is none, JSON nested past the stack, a bad address) is a
``SourceError`` here, as is a page that cannot be read (its result keeps its snippet): one bad source or
page never fails the answer. Bugs (``TypeError``, ``AttributeError``…) and cancellation pass through.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path

from kimas_desktop.config import SourceConfig
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import SourceError
from kimas_desktop.types import OnlineDocument
from web.address import host_of, origin_of
from web.client import SafeClient
from web.engines import DdgsEngine, HttpApiEngine, SearchEngine, SearchResult, SearxngEngine
from web.pages import Page, PageReader

__all__ = ["WebSource", "build_source"]

log = logging.getLogger(__name__)

# What a hostile or broken server's answer can raise while it is decoded or parsed (UnicodeError and
# json's JSONDecodeError are ValueErrors): the source, or the page, is dropped with the reason.
UNREADABLE = (LookupError, ValueError, RecursionError)


def unreadable(where: str, err: BaseException) -> SourceError:
    kind = type(err).__name__
    return SourceError(
        f"{where}: the answer could not be read ({kind}: {str(err)[:120]})",
        code="source_unreadable",
        values={"where": where, "error": kind},
    )


class WebSource:
    def __init__(
        self, name: str, engine: SearchEngine, reader: PageReader, spec: SourceConfig, client: SafeClient
    ) -> None:
        self._name, self._engine, self._reader, self._spec, self._client = name, engine, reader, spec, client
        self._pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix=f"source-{name}")
        self.problems: list[str] = []  # the last search's pages that could not be read (also logged)

    @property
    def name(self) -> str:
        return self._name

    def search(
        self, query: str, *, timeout_s: float, cancel: CancelToken | None = None
    ) -> list[OnlineDocument]:
        deadline = time.monotonic() + timeout_s
        try:
            results = self._engine.search(
                query, limit=self._spec.max_results, timeout_s=timeout_s, cancel=cancel
            )
        except UNREADABLE as err:
            raise unreadable(self._name, err) from None
        pages, self.problems = self._read(results[: self._spec.max_pages], deadline, cancel)
        for problem in self.problems:
            log.info("source %s: %s", self._name, problem)
        now = time.time()
        return [self._document(r, pages.get(r.url), now) for r in results]

    def _read(
        self, results: list[SearchResult], deadline: float, cancel: CancelToken | None
    ) -> tuple[dict[str, Page], list[str]]:
        """The pages read by ``deadline``, and why the others were not (one list per call: a source
        serves several questions at once)."""
        problems: list[str] = []
        left = deadline - time.monotonic()
        if not results or left <= 0:
            return {}, problems
        futures: dict[Future[Page], str] = {
            self._pool.submit(self._reader.read, r.url, timeout_s=left, cancel=cancel): r.url for r in results
        }
        pages: dict[str, Page] = {}
        pending = set(futures)
        while pending:
            if cancel is not None:
                cancel.raise_if_cancelled()
            done, pending = wait(
                pending, timeout=max(0.0, min(0.2, deadline - time.monotonic())), return_when=FIRST_COMPLETED
            )
            for f in done:
                try:
                    pages[futures[f]] = f.result()
                except SourceError as err:
                    problems.append(str(err))
                except UNREADABLE as err:
                    problems.append(str(unreadable(host_of(futures[f]), err)))
            if time.monotonic() >= deadline:
                problems += [f"{host_of(futures[f])}: not read within the time limit" for f in pending]
                break
        return pages, problems

    def _document(self, result: SearchResult, page: Page | None, now: float) -> OnlineDocument:
        if page is None:
            return OnlineDocument(self._name, result.url, result.title, result.snippet, now, result.date)
        return OnlineDocument(
            self._name,
            result.url,
            result.title or page.title,
            page.text,
            page.fetched_at,
            result.date or page.date,
            True,
        )

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._client.close()


ENGINES: dict[str, Callable[[SafeClient, SourceConfig], SearchEngine]] = {
    "searxng": lambda client, spec: SearxngEngine(client, spec.base_url, site=spec.site),
    "ddgs": lambda client, spec: DdgsEngine(site=spec.site),
    "http": HttpApiEngine,
}


def build_source(name: str, spec: SourceConfig, cache_dir: Path | None) -> WebSource:
    """The source ``spec`` describes; opens no connection. A source configured on a private address
    (an internal API) may reach that origin (scheme, host and port); every other private one stays
    refused."""
    own = origin_of(spec.base_url)
    client = SafeClient(allowed=frozenset({own}) if own else frozenset())
    engine = ENGINES[spec.kind](client, spec)
    reader = PageReader(
        client,
        cache_dir / name if cache_dir is not None else None,
        ttl_s=spec.cache_minutes * 60,
        max_bytes=spec.max_page_kb * 1024,
    )
    return WebSource(name, engine, reader, spec, client)
