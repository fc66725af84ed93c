"""A page or a search answer that cannot be decoded or parsed is the source's own failure, never a crash
(issue 40, item 6): a charset that is none (idna, rot13) or unknown, and a JSON bomb. Real server on
127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest

from kimas_desktop.config import SourceConfig
from kimas_desktop.errors import SourceError
from tests.web_site import Site
from web.address import Origin
from web.client import SafeClient, decode
from web.engines import SearxngEngine
from web.pages import PageReader
from web.source import build_source

CHARSETS = ("idna", "rot13", "no-such-charset", "punycode", "utf-7")


def reader(site: Site, tmp_path: Path) -> PageReader:
    client = SafeClient(allowed=frozenset({Origin("http", "127.0.0.1", site.port)}))
    return PageReader(client, tmp_path / "pages", ttl_s=0, max_bytes=1 << 20)


@pytest.mark.parametrize("charset", CHARSETS)
@pytest.mark.parametrize("kind", ["text/plain", "text/html"])
def test_a_page_naming_a_bogus_charset_is_read_as_utf8(
    site: Site, tmp_path: Path, charset: str, kind: str
) -> None:
    """What a browser does with a label it does not know: the page is read in UTF-8, not refused."""
    page = reader(site, tmp_path).read(f"{site.base}/charset?cs={charset}&type={kind}", timeout_s=5)
    assert "300 million tonnes" in page.text


def test_decode_keeps_a_real_charset_and_replaces_what_is_not_one() -> None:
    assert decode("Düsseldorf".encode("latin-1"), "iso-8859-1") == "Düsseldorf"
    assert decode("上海 मुंबई".encode(), "idna") == "上海 मुंबई"
    assert decode(b"caf\xe9", "rot13") == "caf\ufffd"


def test_a_json_bomb_is_a_source_error(site: Site) -> None:
    client = SafeClient(allowed=frozenset({Origin("http", "127.0.0.1", site.port)}))
    with pytest.raises(SourceError, match="nested too deeply"):
        SearxngEngine(client, f"{site.base}/deep-json?n=200000&").search("x", limit=5, timeout_s=5)
    client.close()


def test_bogus_pages_among_the_results_keep_their_snippets_and_the_rest_is_read(
    site: Site, tmp_path: Path
) -> None:
    site.extra = [
        {"title": cs, "url": f"{site.base}/charset?cs={cs}&type=text/plain", "content": f"snippet {cs}"}
        for cs in CHARSETS
    ]
    spec = {"kind": "searxng", "enabled": True, "base_url": site.base, "max_pages": 10, "max_results": 10}
    source = build_source("web", SourceConfig.model_validate(spec), tmp_path)
    docs = source.search("rhine", timeout_s=2)
    source.close()
    read = {d.url for d in docs if d.page_read}
    assert f"{site.base}/article" in read
    assert all(f"{site.base}/charset?cs={cs}&type=text/plain" in read for cs in CHARSETS)
