"""The Knowledge tab's file list names the collection as the user wrote it (not its internal id) and
opens each file in the viewer page, not as a raw file (issue 47). Real indexer and LanceDB, fake embedder."""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.desktop import DesktopApp
from app.knowledge.documents import Document
from kimas_desktop.config import parse_config
from tests.app.knowledge.test_documents import idle, open_app, wait_for
from tests.indexer.files import write
from ui.knowledge import documents_handlers as dh
from ui.knowledge import handlers
from ui.knowledge.documents_view import documents_html

NAME = "研究资料 2026"


@pytest.fixture
def desk(tmp_path: Path) -> Iterator[DesktopApp]:
    app = open_app(tmp_path / "data", parse_config({}))
    yield app
    app.close()


def test_the_list_names_the_collection_and_links_to_the_viewer(desk: DesktopApp, tmp_path: Path) -> None:
    created = handlers.create_collection(desk, NAME)
    assert created.ok, created.message
    cid = created.selected
    assert cid and cid != NAME  # the collection has an internal id of its own
    notes = write(tmp_path / "in" / "notes.md", "The plants are watered on Mondays.")
    handlers.upload(desk, cid, [str(notes)])
    assert wait_for(lambda: idle(desk) and len(desk.list_documents(cid)) == 1)

    view = dh.documents_view(desk, cid)
    assert f"1 file in <b>{NAME}</b>" in view.html
    assert f"<b>{cid}</b>" not in view.html
    assert "href='/kimas/view/" in view.html and "/kimas/source/" not in view.html


def test_a_file_the_viewer_does_not_show_opens_as_itself(tmp_path: Path) -> None:
    from app.knowledge.documents import Document

    picture = Document(str(tmp_path / "map.png"), "map.png", "indexed", "", 1, 1, 0.0, False)
    text = Document(str(tmp_path / "notes.md"), "notes.md", "indexed", "", 1, 1, 0.0, False)
    shown = documents_html("c", [picture, text], problems_only=False, total=2, title="Maps")
    assert "2 files in <b>Maps</b>" in shown
    assert "href='/kimas/source/" in shown and "map.png" in shown.split("/kimas/source/")[1][:60]
    assert "href='/kimas/view/" in shown and "notes.md" in shown.split("/kimas/view/")[1][:60]


def test_a_file_named_to_mislead_is_listed_with_its_hidden_characters_shown() -> None:
    """Issue 70: the list shows U+202E as ``\\u202e`` (raw, "invoice<U+202E>fdp.md" read "invoicedm.pdf") and
    tells the NFC and NFD spellings of one name apart, in its links and in its problem lines."""
    nfc, nfd = (unicodedata.normalize(form, "café.md") for form in ("NFC", "NFD"))
    docs = [
        Document(f"/d/{name}", name, "skipped", "unsupported", 0, 0, 0.0, False)
        for name in ("invoice\u202efdp.md", nfc, nfd)
    ]
    shown = html.unescape(documents_html("bills", docs, problems_only=False, total=3))
    links = re.findall(r"target='_blank' title='([^']*)'>([^<]*)</a>", shown)
    assert links == [
        ("/d/invoice\\u202efdp.md", "invoice\\u202efdp.md"),
        ("/d/café.md", "café.md"),
        ("/d/cafe\\u0301.md", "cafe\\u0301.md"),
    ]
    assert "invoice\u202e" not in shown.replace("data-path='/d/invoice\u202efdp.md'", "")
