from __future__ import annotations

from pathlib import Path

import pytest

from kimas_desktop.errors import SourceError
from tests.web_site import Site
from web.address import Origin
from web.client import SafeClient
from web.pages import PageReader


def reader(site: Site, tmp_path: Path, ttl_s: float = 600, max_bytes: int = 2 << 20) -> PageReader:
    return PageReader(
        SafeClient(allowed=frozenset({Origin("http", "127.0.0.1", site.port)})),
        tmp_path / "pages",
        ttl_s=ttl_s,
        max_bytes=max_bytes,
    )


def test_the_main_text_is_kept_and_scripts_menus_are_not(site: Site, tmp_path: Path) -> None:
    page = reader(site, tmp_path).read(f"{site.base}/article", timeout_s=5)
    assert "300 million tonnes" in page.text
    assert "EVIL-SCRIPT-TEXT" not in page.text and "fetch(" not in page.text
    assert "<p>" not in page.text and "color: red" not in page.text
    assert page.title == "Rhine shipping"


def test_a_page_read_again_comes_from_the_cache_until_it_expires(site: Site, tmp_path: Path) -> None:
    r = reader(site, tmp_path)
    first = r.read(f"{site.base}/article", timeout_s=5)
    again = r.read(f"{site.base}/article", timeout_s=5)
    assert again == first and site.hits["/article"] == 1
    reader(site, tmp_path, ttl_s=0).read(f"{site.base}/article", timeout_s=5)  # caching off: fetched
    assert site.hits["/article"] == 2


def test_a_damaged_cache_entry_is_fetched_again(site: Site, tmp_path: Path) -> None:
    r = reader(site, tmp_path)
    r.read(f"{site.base}/article", timeout_s=5)
    for f in (tmp_path / "pages").iterdir():
        f.write_text("{not json")
    assert "Rhine" in r.read(f"{site.base}/article", timeout_s=5).text
    assert site.hits["/article"] == 2


def test_plain_text_is_read_and_a_pdf_is_not_taken_for_a_page(site: Site, tmp_path: Path) -> None:
    assert (
        reader(site, tmp_path).read(f"{site.base}/plain", timeout_s=5).text
        == "Plain notes about the Rhine delta."
    )
    with pytest.raises(SourceError, match="application/pdf"):
        reader(site, tmp_path).read(f"{site.base}/file.pdf", timeout_s=5)


def test_a_huge_page_is_read_up_to_its_limit(site: Site, tmp_path: Path) -> None:
    page = reader(site, tmp_path, max_bytes=256 * 1024).read(f"{site.base}/huge", timeout_s=10)
    assert "river" in page.text and len(page.text) < 300 * 1024
