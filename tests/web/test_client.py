from __future__ import annotations

import time

import pytest

from kimas_desktop.control import CancelToken
from kimas_desktop.errors import Cancelled, SourceError, UnsafeAddressError
from tests.web_site import Site
from web.address import Origin
from web.client import SafeClient


def own(site: Site, host: str = "127.0.0.1") -> frozenset[Origin]:
    return frozenset({Origin("http", host, site.port)})


def get(site: Site, path: str, *, timeout_s: float = 5, max_bytes: int = 1 << 20, **kw: object) -> object:
    with_client = SafeClient(allowed=own(site))
    try:
        return with_client.request(
            "GET", f"{site.base}{path}", timeout_s=timeout_s, max_bytes=max_bytes, **kw
        )  # type: ignore[arg-type]
    finally:
        with_client.close()


def test_a_page_is_fetched_after_a_redirect(site: Site) -> None:
    got = get(site, "/to-article")
    assert got.url.endswith("/article") and got.status == 200  # type: ignore[attr-defined]
    assert got.content_type == "text/html" and b"Rhine" in got.body  # type: ignore[attr-defined]


def test_a_redirect_to_a_private_address_is_refused_before_connecting(site: Site) -> None:
    with pytest.raises(UnsafeAddressError, match=r"169\.254\.169\.254"):
        get(site, "/to-private")


def test_endless_redirects_end(site: Site) -> None:
    with pytest.raises(SourceError, match="redirects"):
        get(site, "/loop")
    assert 5 <= site.hits["/loop"] <= 7


def test_a_server_error_is_a_clear_error(site: Site) -> None:
    with pytest.raises(SourceError, match="HTTP 500"):
        get(site, "/broken")


def test_ten_megabytes_are_cut_at_the_limit(site: Site) -> None:
    got = get(site, "/huge", max_bytes=64 * 1024)
    assert got.truncated and len(got.body) == 64 * 1024  # type: ignore[attr-defined]


def test_a_slow_server_costs_no_more_than_the_time_limit(site: Site) -> None:
    t = time.monotonic()
    with pytest.raises(SourceError, match="did not answer within 1 s"):
        get(site, "/slow?s=5", timeout_s=1)
    assert time.monotonic() - t < 2.5


def test_only_the_allowed_private_host_is_reached(site: Site) -> None:
    client = SafeClient()  # configured on a public address: loopback stays refused
    with pytest.raises(UnsafeAddressError):
        client.request("GET", f"{site.base}/article", timeout_s=5, max_bytes=1024)
    assert site.hits["/article"] == 0


def test_a_cancelled_read_stops(site: Site) -> None:
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        get(site, "/huge", cancel=token)


def test_a_token_is_not_sent_to_the_host_a_redirect_names(site: Site) -> None:
    client = SafeClient(allowed=own(site) | own(site, "localhost"))
    target = f"http://localhost:{site.port}/article"
    got = client.request(
        "GET",
        f"{site.base}/redirect?to={target}",
        timeout_s=5,
        max_bytes=1 << 20,
        headers={"Authorization": "Bearer s3cret"},
    )
    client.close()
    assert got.url == target
    first, second = site.requests[-2:]
    assert first["headers"].get("Authorization") == "Bearer s3cret"
    assert "Authorization" not in second["headers"]
