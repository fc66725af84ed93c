"""``/kimas/view/…`` (issue 46) when the parser worker that draws a PDF page stalls: the route answers
with the reason and a link to the original file, and the next page view works."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.chat import viewer_pdf
from app.chat.served_files import SourceRegistry
from tests.app.chat.test_viewer import SENTENCE, write_pdf
from ui.markup import VIEW_ROUTE, viewer_url
from ui.server.viewer_route import add_viewer_route


def _workers() -> list[psutil.Process]:
    return [
        p
        for p in psutil.Process().children(recursive=True)
        if "indexer.parse.worker" in " ".join(p.cmdline())
    ]


def test_a_page_the_worker_cannot_draw_says_why_and_the_next_view_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(viewer_pdf, "PAGE_TIMEOUT_S", 5.0)  # the page's time limit, short for the test
    pdf = write_pdf(tmp_path / "h.pdf", [["Overview"], ["Launch details", SENTENCE]])
    registry = SourceRegistry(lambda: [tmp_path])
    registry.remember([str(pdf)])
    app = FastAPI()
    add_viewer_route(app, registry, VIEW_ROUTE)
    client = TestClient(app)
    before = set(_workers())
    try:
        assert "page 1 of 2" in client.get(viewer_url(str(pdf), 1).split("#")[0]).text
        (worker,) = set(_workers()) - before
        worker.suspend()  # pdfium hangs on the next page
        url = viewer_url(str(pdf), 2, None, SENTENCE).split("#")[0]
        reply = client.get(url, follow_redirects=False)
        assert reply.status_code == 200
        assert "This page could not be drawn: the parser timed out after 5 s" in reply.text
        assert "the original file</a>" in reply.text and "data:image/png" not in reply.text
        again = client.get(url).text
        assert "page 2 of 2" in again and "data:image/png;base64," in again and "id='kimas-hit'" in again
    finally:
        for process in set(_workers()) - before:
            process.kill()
