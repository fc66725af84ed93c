from __future__ import annotations

from typing import Any

import pytest

from kimas_desktop.config import SourceConfig
from kimas_desktop.errors import SourceError
from tests.web_site import Site
from web.address import Origin
from web.client import SafeClient
from web.engines import DdgsEngine, HttpApiEngine, SearxngEngine, dig, on_site


def local(site: Site) -> SafeClient:
    """A client that may reach the test server's origin (a private one, as the source's own)."""
    return SafeClient(allowed=frozenset({Origin("http", "127.0.0.1", site.port)}))


def test_searxng_results_and_the_query_sent(site: Site) -> None:
    found = SearxngEngine(local(site), site.base).search("rhine freight", limit=5, timeout_s=5)
    assert [r.title for r in found] == ["Rhine shipping", "Slow page", "Elsewhere"]
    assert found[0].url == f"{site.base}/article" and found[0].snippet == "Freight on the Rhine."
    assert site.requests[-1]["query"] == {"q": "rhine freight", "format": "json"}


def test_a_site_restriction_is_asked_for_and_checked() -> None:
    assert on_site("https://docs.example.org/a", "example.org")
    assert on_site("https://example.org/a", "example.org")
    assert not on_site("https://badexample.org/a", "example.org")
    assert not on_site("https://example.org.evil.net/a", "example.org")


def test_searxng_site_restriction(site: Site) -> None:
    found = SearxngEngine(local(site), site.base, site="other.example.net").search(
        "rhine", limit=5, timeout_s=5
    )
    assert [r.url for r in found] == ["https://other.example.net/x"]
    assert site.requests[-1]["query"]["q"] == "rhine site:other.example.net"


def test_an_answer_in_another_format_is_a_clear_error(site: Site) -> None:
    with pytest.raises(SourceError, match="JSON"):
        HttpApiEngine(local(site), api(site, base_url=f"{site.base}/not-json")).search(
            "x", limit=5, timeout_s=5
        )
    with pytest.raises(SourceError, match="SearXNG's JSON format"):
        SearxngEngine(local(site), f"{site.base}/api").search("x", limit=5, timeout_s=5)
    with pytest.raises(SourceError, match="did not answer within"):
        HttpApiEngine(local(site), api(site, base_url=f"{site.base}/slow-search?s=3")).search(
            "x", limit=5, timeout_s=0.5
        )


def api(site: Site, **over: Any) -> SourceConfig:
    spec: dict[str, Any] = {
        "kind": "http",
        "enabled": True,
        "base_url": f"{site.base}/api/find",
        "query_param": "term",
        "params": {"lang": "en"},
        "results_path": "data.hits",
        "title_field": "name",
        "url_field": "link.href",
        "text_field": "summary",
        "date_field": "when",
    }
    return SourceConfig.model_validate({**spec, **over})


def test_an_api_with_its_own_response_shape(site: Site) -> None:
    found = HttpApiEngine(local(site), api(site)).search("barges", limit=5, timeout_s=5)
    assert len(found) == 1  # the result without an address is dropped: nothing to cite
    (r,) = found
    assert (r.title, r.url, r.snippet, r.date) == (
        "Rhine barges",
        f"{site.base}/article",
        "Barge freight.",
        "2020-01-02",
    )
    assert site.requests[-1]["query"] == {"term": "barges", "lang": "en"}


def test_a_post_api_with_a_token_from_the_environment(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIKI_TOKEN", "s3cret")
    monkeypatch.setenv("WIKI_TENANT", "team-a")
    spec = api(
        site,
        method="POST",
        json_body={"search": {"text": "{query}", "size": 5}},
        headers={"X-Tenant": "${WIKI_TENANT}"},
        token_env="WIKI_TOKEN",
    )
    HttpApiEngine(local(site), spec).search("barges", limit=5, timeout_s=5)
    sent = site.requests[-1]
    assert sent["body"] == {"search": {"text": "barges", "size": 5}}
    assert sent["headers"]["Authorization"] == "Bearer s3cret" and sent["headers"]["X-Tenant"] == "team-a"


def test_a_missing_token_says_which_variable(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_SUCH_TOKEN", raising=False)
    with pytest.raises(SourceError, match="NO_SUCH_TOKEN"):
        HttpApiEngine(local(site), api(site, token_env="NO_SUCH_TOKEN")).search("x", limit=5, timeout_s=5)
    assert not site.requests  # nothing was sent without it


def test_a_wrong_results_path_names_it(site: Site) -> None:
    with pytest.raises(SourceError, match=r"'data\.items'"):
        HttpApiEngine(local(site), api(site, results_path="data.items")).search("x", limit=5, timeout_s=5)


def test_the_query_in_the_address_is_encoded(site: Site) -> None:
    spec = api(site, base_url=f"{site.base}/api/find?term={{query}}", params={})
    HttpApiEngine(local(site), spec).search("rhine & ruhr", limit=5, timeout_s=5)
    assert site.requests[-1]["query"] == {"term": "rhine & ruhr"}


def test_dig() -> None:
    data = {"a": {"b": [{"c": 1}, {"c": 2}]}}
    assert dig(data, "a.b.1.c") == 2 and dig(data, "a.x") is None and dig(data, "") == data


def test_ddgs_results_are_mapped_and_its_failure_is_a_source_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """No search engine is reachable here: the library's own call is replaced, our mapping is tested."""
    from ddgs import ddgs as library
    from ddgs.exceptions import DDGSException

    rows = [
        {"title": "Rhine", "href": "https://en.wikipedia.org/wiki/Rhine", "body": "A river."},
        {"title": "Elsewhere", "href": "https://example.com/rhine", "body": "Off site."},
        {"title": "Not a page", "href": "javascript:void(0)", "body": ""},
    ]
    asked: list[str] = []

    def text(self: object, query: str, **kw: Any) -> list[dict[str, str]]:
        asked.append(query)
        return rows

    monkeypatch.setattr(library.DDGS, "text", text)
    found = DdgsEngine(site="wikipedia.org").search("rhine", limit=5, timeout_s=5)
    assert [r.url for r in found] == ["https://en.wikipedia.org/wiki/Rhine"] and asked == [
        "rhine site:wikipedia.org"
    ]

    def fail(self: object, query: str, **kw: Any) -> list[dict[str, str]]:
        raise DDGSException("No results found.")

    monkeypatch.setattr(library.DDGS, "text", fail)
    with pytest.raises(SourceError, match="web search failed"):
        DdgsEngine().search("rhine", limit=5, timeout_s=5)


def test_a_source_needs_an_address_where_its_kind_does() -> None:
    with pytest.raises(ValueError, match="needs an address"):
        SourceConfig.model_validate({"kind": "searxng"})
    assert SourceConfig.model_validate({"kind": "ddgs"}).enabled is False  # off until the user turns it on
