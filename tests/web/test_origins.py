"""A source reaches its own origin (scheme, host and port) and public pages, nothing else of the local
machine or network; its token and cookies never follow a redirect to another origin (issue 40, item 5).
Real servers on 127.0.0.1, two of them on two ports."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kimas_desktop.config import SourceConfig
from kimas_desktop.errors import SourceError, UnsafeAddressError
from tests.web_site import Site, serve_site
from web.address import Origin, check_url, origin_of
from web.client import SafeClient
from web.source import build_source


def origins(*sites: Site) -> frozenset[Origin]:
    found = {origin_of(s.base) for s in sites}
    return frozenset(o for o in found if o is not None)


@pytest.fixture
def other() -> Iterator[Site]:
    """A second service on the same machine, on another port."""
    with serve_site() as s:
        yield s


@pytest.mark.parametrize(
    "url",
    [
        "http://[64:ff9b::7f00:1]/",  # NAT64 (RFC 6052) of 127.0.0.1
        "http://[64:ff9b::a00:1]:8080/",  # NAT64 of 10.0.0.1
        "http://[64:ff9b::a9fe:a9fe]/",  # NAT64 of 169.254.169.254, the cloud metadata service
        "http://[64:ff9b:1::a00:1]/",  # local-use NAT64 (RFC 8215): an operator's own network
        "http://[2002:7f00:1::]/",  # 6to4 of 127.0.0.1
        "http://[2002:a00:1::1]/",  # 6to4 of 10.0.0.1
        "http://[::127.0.0.1]/",  # IPv4-compatible 127.0.0.1
        "http://[::10.1.2.3]/",  # IPv4-compatible 10.1.2.3
        "http://[::ffff:10.1.2.3]/",  # IPv4-mapped 10.1.2.3
        "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",  # Teredo, client 127.0.0.1
    ],
)
def test_ipv6_forms_of_private_ipv4_addresses_are_refused(url: str) -> None:
    with pytest.raises(UnsafeAddressError):
        check_url(url)


def test_ipv6_forms_of_public_ipv4_addresses_pass() -> None:
    check_url("http://[64:ff9b::808:808]/")  # NAT64 of 8.8.8.8
    check_url("http://[2002:808:808::1]/")  # 6to4 of 8.8.8.8


def test_an_origin_is_scheme_host_and_port() -> None:
    assert origin_of("http://127.0.0.1/a") == origin_of("HTTP://127.0.0.1:80/b?c")
    assert origin_of("http://127.0.0.1:18901/") != origin_of("http://127.0.0.1:18902/")
    assert origin_of("http://wiki.internal/") != origin_of("https://wiki.internal/")
    assert origin_of("http://[::1/") is None and origin_of("mailto:x@example.org") is None


def api(site: Site, url: str) -> SourceConfig:
    spec = {
        "kind": "http",
        "enabled": True,
        "base_url": url,
        "query_param": "term",
        "results_path": "data.hits",
        "title_field": "name",
        "url_field": "link.href",
        "text_field": "summary",
        "token_env": "KIMAS_TEST_TOKEN",
        "headers": {"X-Api-Key": "k3y"},
    }
    return SourceConfig.model_validate(spec)


def test_a_redirect_to_another_port_is_refused_and_carries_no_token(
    site: Site, other: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's example shape: a source on http://127.0.0.1:<A>/… redirects to 127.0.0.1:<B>."""
    monkeypatch.setenv("KIMAS_TEST_TOKEN", "s3cret")
    source = build_source("wiki", api(site, f"{site.base}/redirect?to={other.base}/api/find"), tmp_path)
    with pytest.raises(SourceError):
        source.search("rhine", timeout_s=5)
    source.close()
    assert site.requests[0]["headers"].get("Authorization") == "Bearer s3cret"  # its own origin has it
    assert not other.requests  # refused before connecting: nothing reached the other port


def test_a_result_on_another_port_is_not_read(site: Site, other: Site, tmp_path: Path) -> None:
    site.extra = [{"title": "Next door", "url": f"{other.base}/article", "content": "A snippet."}]
    spec = SourceConfig.model_validate(
        {"kind": "searxng", "enabled": True, "base_url": site.base, "max_pages": 5}
    )
    source = build_source("web", spec, tmp_path)
    docs = source.search("rhine", timeout_s=2)
    source.close()
    assert not other.requests
    (next_door,) = [d for d in docs if d.url == f"{other.base}/article"]
    assert not next_door.page_read and next_door.text == "A snippet."
    assert any("refused" in p for p in source.problems)


def test_a_change_of_port_drops_the_token_and_the_cookie(site: Site, other: Site) -> None:
    """Both origins allowed (as two public servers would be): the redirect is followed, but what was
    meant for the first origin, its token, key and cookie, does not go to the second."""
    client = SafeClient(allowed=origins(site, other))
    got = client.request(
        "GET",
        f"{site.base}/cookie-redirect?to={other.base}/article",
        timeout_s=5,
        max_bytes=1 << 20,
        headers={"Authorization": "Bearer s3cret", "X-Api-Key": "k3y"},
    )
    client.close()
    assert got.url == f"{other.base}/article"
    first, second = site.requests[-1]["headers"], other.requests[-1]["headers"]
    assert first.get("Authorization") == "Bearer s3cret" and first.get("X-Api-Key") == "k3y"
    assert not {"Authorization", "X-Api-Key", "Cookie"} & set(second)


def test_no_cookie_a_server_sets_is_sent_back(site: Site) -> None:
    client = SafeClient(allowed=origins(site))
    client.request("GET", f"{site.base}/cookie-redirect?to=/article", timeout_s=5, max_bytes=1 << 20)
    client.close()
    assert "Cookie" not in site.requests[-1]["headers"]
