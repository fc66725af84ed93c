from __future__ import annotations

import pytest

from kimas_desktop.errors import SourceError, UnsafeAddressError
from web.address import Origin, check_url, host_of


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://example.org/x",
        "javascript:alert(1)",
        "http://127.0.0.1:8080/",
        "http://localhost/admin",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.1.2.3/",
        "http://192.168.0.1/",
        "http://100.64.0.1/",  # carrier-grade NAT
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",  # IPv4-mapped loopback
        "http://0.0.0.0/",
        "http:///no-host",
    ],
)
def test_private_and_non_web_addresses_are_refused(url: str) -> None:
    with pytest.raises(UnsafeAddressError):
        check_url(url)


def test_a_public_address_passes() -> None:
    check_url("https://93.184.215.14/page")  # an address literal: resolving it needs no network
    check_url("http://[2606:4700:4700::1111]/")


def test_the_sources_own_private_origin_is_allowed_and_no_other() -> None:
    own = frozenset({Origin("http", "127.0.0.1", 9), Origin("http", "wiki.internal", 8080)})
    check_url("http://127.0.0.1:9/search", allowed=own)
    check_url("http://wiki.internal:8080/api", allowed=own)
    for elsewhere in ("http://127.0.0.2:9/", "http://127.0.0.1:10/", "https://127.0.0.1:9/"):
        with pytest.raises(UnsafeAddressError):  # another host, port or scheme of the same machine
            check_url(elsewhere, allowed=own)


def test_an_unresolvable_name_is_a_source_error() -> None:
    with pytest.raises(SourceError) as err:
        check_url("http://no-such-host.invalid/")
    assert not isinstance(err.value, UnsafeAddressError)


def test_host_of() -> None:
    assert host_of("https://Docs.Example.org:8443/a?b") == "docs.example.org"
    assert host_of("http://[::1]:80/") == "::1"
    assert host_of("http://[::1/") == ""  # an unclosed bracket is no host, not a ValueError
