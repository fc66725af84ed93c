"""The online retrieval agent's own logic, on a scripted source (the real sources are tested in tests/web
and, through the pipeline, in tests/kimas_desktop/test_pipeline_online.py)."""

from __future__ import annotations

import time

from kimas_desktop.control import CancelToken
from kimas_desktop.errors import SourceError
from kimas_desktop.retrieval.online import OnlineAgent, passages
from kimas_desktop.types import OnlineDocument

TEXT = "The Rhine carries freight. " * 40


class Scripted:
    name = "web"

    def __init__(self, docs: list[OnlineDocument] | None = None, error: str = "") -> None:
        self.docs, self.error, self.asked = docs or [], error, []  # type: ignore[var-annotated]

    def search(
        self, query: str, *, timeout_s: float, cancel: CancelToken | None = None
    ) -> list[OnlineDocument]:
        self.asked.append(query)
        if self.error:
            raise SourceError(self.error)
        return self.docs

    def close(self) -> None:
        pass


def doc(url: str, text: str, read: bool = True) -> OnlineDocument:
    return OnlineDocument("web", url, "Title", text, 1.0e9, page_read=read)


def test_pages_become_passages_of_whole_sentences() -> None:
    parts = passages(TEXT)
    assert len(parts) > 1 and all(len(p) <= 600 for p in parts)
    assert all(p.endswith("freight.") for p in parts)


def test_the_same_passage_at_two_addresses_is_kept_once_and_the_query_is_keywords() -> None:
    source = Scripted(
        [
            doc("https://a.example/x", "Barges moved 300 million tonnes."),
            doc("https://b.example/y", "Barges  moved 300 million tonnes."),
            doc("https://c.example/z", "Low water raises costs.", read=False),
        ]
    )
    result = OnlineAgent(source, 5).retrieve("How many tonnes did the barges move?")
    assert source.asked == ["tonnes barges move"]
    assert [h.chunk.source for h in result.hits] == ["https://a.example/x", "https://c.example/z"]
    assert (result.results, result.pages_read, result.error) == (3, 2, "")
    assert result.hits[0].chunk.collection == "web" and result.hits[0].chunk.online


def test_a_failing_source_is_an_empty_result_with_its_reason() -> None:
    result = OnlineAgent(Scripted(error="the web search failed: offline"), 5).retrieve("rhine")
    assert result.hits == () and result.error == "the web search failed: offline"


class Stuck(Scripted):
    """A source that overruns its own time limit (the round must not wait for it)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def search(
        self, query: str, *, timeout_s: float, cancel: CancelToken | None = None
    ) -> list[OnlineDocument]:
        time.sleep(4)
        return []


def test_sources_started_together_are_waited_for_together_each_within_its_limit() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from kimas_desktop.config import SourceConfig
    from kimas_desktop.retrieval.online import OnlineSources

    spec = SourceConfig(kind="ddgs", enabled=True, use="always", timeout_s=0.5)
    with ThreadPoolExecutor(4) as pool:
        sources = OnlineSources([(Stuck("a"), spec), (Stuck("b"), spec)], pool)
        t = time.monotonic()
        outcomes = sources.start("rhine").join()
        took = time.monotonic() - t
    assert took < 2.5  # each limit (0.5 s + 1 s grace) counts from the start, not after the other's wait
    assert [o.result.error for o in outcomes if o.result] == ["no answer within the time limit"] * 2
