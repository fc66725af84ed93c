"""``/kimas/view/…`` (issue 46): a cited file at the passage, under the same guard as ``/kimas/source``.

Over HTTP against a real FastAPI app with the app's security headers, the real ``SourceRegistry`` and
real files: only a shown file inside a collection opens; every word of the file is escaped; the page,
lines and cited words of the query are honoured and anything else in them is ignored."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.middleware import Middleware

from app.chat.served_files import SourceRegistry
from tests.app.chat.test_viewer import SENTENCE, write_pdf
from ui.markup import VIEW_ROUTE, viewer_url
from ui.server.security_headers import FILE_POLICY, SecurityHeaders
from ui.server.viewer_route import add_viewer_route

NOTES = "# Notes\n\n<script>alert('x')</script>\n\nThe office plants are\nwatered on Mondays by Dana.\n"


@pytest.fixture
def served(tmp_path: Path) -> tuple[TestClient, Path, SourceRegistry]:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.md").write_text(NOTES, "utf-8")
    write_pdf(folder / "h.pdf", [["Overview <b>bold</b>"], ["Launch details", SENTENCE]])
    (folder / "page.html").write_text("<p>Odalys Crane</p><script>alert(1)</script>", "utf-8")
    (tmp_path / "secret.md").write_text("the secret", "utf-8")
    registry = SourceRegistry(lambda: [folder])
    app = FastAPI(middleware=[Middleware(SecurityHeaders)])
    add_viewer_route(app, registry, VIEW_ROUTE)
    return TestClient(app), folder, registry


def _get(client: TestClient, url: str):  # type: ignore[no-untyped-def]
    return client.get(url.split("#")[0], follow_redirects=False)


def test_a_text_file_is_escaped_and_opens_at_the_cited_lines(
    served: tuple[TestClient, Path, SourceRegistry],
) -> None:
    client, folder, registry = served
    notes = str(folder / "notes.md")
    registry.remember([notes])
    url = viewer_url(notes, None, (5, 6), "The office plants are watered on Mondays by Dana.")
    assert url.endswith("#kimas-hit")
    reply = _get(client, url)
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/html")
    assert reply.headers.get_list("content-security-policy") == [FILE_POLICY]
    assert reply.headers["x-content-type-options"] == "nosniff"
    page = reply.text
    assert "<script" not in page and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    hit = re.findall(r"<div class='line (\w*)'( id='kimas-hit')?><span class='no'>(\d+)</span>", page)
    assert [(kind, n) for kind, at, n in hit if kind] == [("hit", "5"), ("hit", "6")]
    assert [n for kind, at, n in hit if at] == ["5"]


def test_a_pdf_opens_at_its_page_with_the_sentence_marked(
    served: tuple[TestClient, Path, SourceRegistry],
) -> None:
    client, folder, registry = served
    pdf = str(folder / "h.pdf")
    registry.remember([pdf])
    page = _get(client, viewer_url(pdf, 2, None, SENTENCE)).text
    assert "page 2 of 2" in page and "data:image/png;base64," in page
    assert re.search(r"<div class='box' id='kimas-hit' style='left:[\d.]+%;top:[\d.]+%", page)
    assert "<mark>The launch code of Project Heliotrope is PURPLE-OTTER-42.</mark>" in page
    assert "previous page" in page and "next page" not in page
    first = _get(client, viewer_url(pdf, 1)).text
    assert "page 1 of 2" in first and "Overview &lt;b&gt;bold&lt;/b&gt;" in first and "<b>bold" not in first


@pytest.mark.parametrize(
    "query", ["page=abc&lines=1-x", "page=-3&lines=9999999999-1", "page=1e9&q=" + "x" * 5000]
)
def test_odd_parameters_are_ignored(served: tuple[TestClient, Path, SourceRegistry], query: str) -> None:
    client, folder, registry = served
    notes, pdf = str(folder / "notes.md"), str(folder / "h.pdf")
    registry.remember([notes, pdf])
    for path in (notes, pdf):
        base = viewer_url(path).split("#")[0]
        assert _get(client, f"{base}?{query}").status_code == 200


def test_only_a_shown_file_inside_a_collection_opens(served: tuple[TestClient, Path, SourceRegistry]) -> None:
    client, folder, registry = served
    outside = str(folder.parent / "secret.md")
    registry.remember([outside])
    refused = _get(client, viewer_url(outside))
    assert refused.status_code == 404 and "secret" not in refused.text
    assert refused.headers.get_list("content-security-policy") == [FILE_POLICY]
    assert _get(client, viewer_url(str(folder / "notes.md"))).status_code == 404  # never shown
    assert _get(client, f"{VIEW_ROUTE}/0000/..%2F..%2Fetc%2Fpasswd").status_code == 404


def test_a_file_the_viewer_does_not_show_goes_to_the_file_itself(
    served: tuple[TestClient, Path, SourceRegistry],
) -> None:
    client, folder, registry = served
    html_file = str(folder / "page.html")
    registry.remember([html_file])
    reply = _get(client, viewer_url(html_file, None, (1, 1), "Odalys Crane"))
    assert reply.status_code == 303 and reply.headers["location"].startswith("/kimas/source/")
    assert "<script" not in reply.text
