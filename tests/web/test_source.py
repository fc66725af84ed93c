from __future__ import annotations

import time
from pathlib import Path

from kimas_desktop.config import SourceConfig
from kimas_desktop.protocols import OnlineSource
from tests.web_site import Site
from web.source import build_source


def searxng(site: Site, **over: object) -> SourceConfig:
    return SourceConfig.model_validate({"kind": "searxng", "enabled": True, "base_url": site.base, **over})


def test_results_are_read_as_pages_and_a_slow_page_keeps_its_snippet(site: Site, tmp_path: Path) -> None:
    source = build_source("web", searxng(site, max_pages=3), tmp_path)
    assert isinstance(source, OnlineSource)
    t = time.monotonic()
    docs = source.search("rhine freight", timeout_s=2.0)
    took = time.monotonic() - t
    source.close()
    assert took < 3.0  # the 5 s page is not waited for
    by_url = {d.url: d for d in docs}
    article = by_url[f"{site.base}/article"]
    assert article.page_read and "300 million tonnes" in article.text and article.source == "web"
    slow = by_url[f"{site.base}/slow"]
    assert not slow.page_read and slow.text == "A page that answers late."
    # The off-site result names a public host nobody can reach here: it keeps its snippet.
    assert by_url["https://other.example.net/x"].text == "Off site."
    assert any("time limit" in p for p in source.problems)


def test_building_a_source_opens_no_connection(site: Site, tmp_path: Path) -> None:
    source = build_source("web", searxng(site), tmp_path)
    source.close()
    assert not site.requests


def test_a_second_question_reads_cached_pages(site: Site, tmp_path: Path) -> None:
    source = build_source("web", searxng(site, max_pages=1), tmp_path)
    source.search("rhine", timeout_s=3)
    source.search("rhine again", timeout_s=3)
    source.close()
    assert site.hits["/search"] == 2 and site.hits["/article"] == 1
