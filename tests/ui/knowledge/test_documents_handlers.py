"""Document manager handlers without a browser, on the real indexer and LanceDB (fake embedder)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.desktop import DesktopApp
from kimas_desktop.config import parse_config
from tests.app.knowledge.test_documents import found, idle, open_app, wait_for
from tests.indexer.files import write
from ui.knowledge import documents_handlers as dh
from ui.knowledge import handlers


@pytest.fixture
def desk(tmp_path: Path) -> Iterator[DesktopApp]:
    app = open_app(tmp_path / "data", parse_config({}))
    yield app
    app.close()


def test_folder_upload_list_filter_and_remove(desk: DesktopApp, tmp_path: Path) -> None:
    temp = tmp_path / "gradio-temp"
    files = [
        write(temp / "1" / "README.md", "The alpha module is named PERIWINKLE."),
        write(temp / "2" / "README.md", "The beta module is named TANGERINE."),
    ]
    (temp / "3").mkdir()
    (temp / "3" / "scan.pdf").write_bytes(b"%PDF-1.4 not really")
    files.append(temp / "3" / "scan.pdf")
    relative = json.dumps(["proj/a/README.md", "proj/b/README.md", "proj/scan.pdf"])
    action = handlers.upload(desk, "docs", [str(f) for f in files], relative)
    assert "3 new file(s) copied into 'docs'" in action.message and "Renamed" not in action.message
    assert wait_for(lambda: idle(desk) and len(desk.list_documents("docs")) == 3)

    view = dh.documents_view(desk, "docs")
    assert [label for label, _ in view.choices] == ["proj/a/README.md", "proj/b/README.md", "⚠ proj/scan.pdf"]
    assert "3 files in <b>docs</b>" in view.html and "⚠ failed" in view.html
    assert view.html.count("<tr data-path=") == 3 and "href='/kimas/view/" in view.html
    problems = dh.documents_view(desk, "docs", dh.PROBLEMS_ONLY)
    assert [label for label, _ in problems.choices] == ["⚠ proj/scan.pdf"] and "1 of 3 files" in problems.html

    after = dh.act(desk, "dismiss", "docs", problems.selected, dh.PROBLEMS_ONLY)
    assert "dismissed" in after.message and after.choices == []
    assert "No problems: every file is indexed." in after.html

    alpha = view.choices[0][1]
    after = dh.act(desk, "remove", "docs", alpha)
    assert "removed from 'docs'" in after.message and alpha not in {p for _, p in after.choices}
    assert found(desk, "docs", "PERIWINKLE") == [] and not Path(alpha).exists()
    assert "⚠" in dh.act(desk, "remove", "docs", None).message  # nothing chosen


def test_without_the_folder_paths_an_upload_is_flat(desk: DesktopApp, tmp_path: Path) -> None:
    f = write(tmp_path / "t" / "notes.md", "Plants are watered on Mondays.")
    handlers.upload(desk, "docs", [str(f)], "not json")
    assert (desk.knowledge.uploads_root / "docs" / "notes.md").is_file()


def test_the_chosen_file_shows_its_card_and_outline(desk: DesktopApp, tmp_path: Path) -> None:
    guide = write(
        tmp_path / "t" / "guide.md",
        "# Orchard guide\n\nThis guide tells new volunteers how the orchard grows its apples.\n\n"
        "## Soil\n\nThe orchard stands on sandy loam that drains quickly after rain.\n\n"
        "## Water\n\nWater comes from the mill pond through a drip line along each row.\n",
    )
    notes = write(tmp_path / "t" / "notes.md", "Bees visit the orchard in April when the blossom opens.")
    handlers.upload(desk, "docs", [str(guide), str(notes)], "not json")
    assert wait_for(lambda: idle(desk) and len(desk.list_documents("docs")) == 2)

    view = dh.documents_view(desk, "docs")  # the first file is chosen: guide.md
    assert view.html.count("class='kimas-doc-card'") == 1
    assert "<b>Orchard guide</b> <small>(document card, language: en)</small>" in view.html
    assert "This guide tells new volunteers how the orchard grows its apples." in view.html
    assert "Outline (3 headings)" in view.html and ">Soil <small>(line 5)</small>" in view.html
    other = dh.documents_view(desk, "docs", dh.SHOW_ALL, view.choices[1][1])
    assert "<b>notes</b>" in other.html and "Orchard guide" not in other.html


def test_a_spreadsheet_card_shows_its_sheets_columns_kinds_and_rows(desk: DesktopApp, tmp_path: Path) -> None:
    from tests.indexer.tables.workbooks import xlsx_bytes

    book = tmp_path / "t" / "budget.xlsx"
    book.parent.mkdir(parents=True)
    sheets = {
        "Costs": [["Costs in 2024"], [], ["Item", "Amount"], ["rent", 700], ["power", 90]],
        "Staff": [["Name", "Since"], ["Ann", "2021-04-01"]],
    }
    book.write_bytes(xlsx_bytes(sheets))
    handlers.upload(desk, "docs", [str(book)], "not json")
    assert wait_for(lambda: idle(desk) and len(desk.list_documents("docs")) == 1)
    view = dh.documents_view(desk, "docs")
    assert "Tables (2)" in view.html
    assert "<b>Costs</b>: 2 rows <small>(header on row 3)</small>; Item <small>(text)</small>, " in view.html
    assert "Amount <small>(number)</small>" in view.html
    assert "<b>Staff</b>: 1 row <small>(header on row 1)</small>; Name <small>(text)</small>, " in view.html
    assert "Since <small>(date)</small>" in view.html


def test_the_timer_draws_the_file_each_page_picked_last(
    desk: DesktopApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The timer's tick sends the picker's value as it was when sent: answered after the person picked
    another file, it put the old file and its card back for good (issue 72: seen under load in the browser
    test). The page's own last pick wins while it is listed; else what the tick sent."""
    import gradio as gr

    from ui.knowledge.documents_tab import Picks, timed_view

    files = [write(tmp_path / "t" / name, f"The {name} file is here.") for name in ("alpha.md", "beta.md")]
    handlers.upload(desk, "docs", [str(f) for f in files], "not json")
    assert wait_for(lambda: idle(desk) and len(desk.list_documents("docs")) == 2)
    alpha, beta = (path for _, path in dh.documents_view(desk, "docs").choices)
    picks = Picks(pages=2)
    page, other = (gr.Request(session_hash=f"page-{n}", headers={}) for n in (1, 2))

    def drawn(request: gr.Request) -> str | None:
        view = timed_view(desk, picks, "docs", dh.SHOW_ALL, alpha, request)
        assert view is not None
        return view.selected

    assert drawn(page) == alpha  # nothing picked yet: the first file
    picks.remember("page-1", beta)
    view = timed_view(desk, picks, "docs", dh.SHOW_ALL, alpha, page)  # a tick sent before the pick
    assert view is not None and view.selected == beta
    assert "<b>beta</b>" in view.html and "<b>alpha</b>" not in view.html
    assert drawn(other) == alpha  # each page its own

    picks.remember("page-1", str(tmp_path / "removed.md"))  # no longer listed: what the tick sent
    assert drawn(page) == alpha
    reads: list[str] = []
    list_documents = desk.list_documents
    monkeypatch.setattr(desk, "list_documents", lambda c: reads.append(c) or list_documents(c))
    view = timed_view(desk, picks, "docs", dh.SHOW_ALL, beta, page)
    assert view is not None and view.selected == beta and reads == ["docs"]  # the files read once a tick

    listed = dh.documents_view

    def picked_meanwhile(*args: object, **kwargs: object) -> dh.DocumentsView:
        picks.remember("page-1", beta)  # the page's own event, while the timer reads the files
        return listed(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(dh, "documents_view", picked_meanwhile)
    assert timed_view(desk, picks, "docs", dh.SHOW_ALL, alpha, page) is None  # that event draws them
    picks.remember("page-2", beta)
    picks.remember("page-3", beta)  # the oldest page is forgotten
    assert picks.last("page-1") is None and picks.last("page-3") == beta
