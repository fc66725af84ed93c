"""A spreadsheet dropped on the Knowledge tab, then asked about (issue 43's browser acceptance): the real app
(``launch.py``, embedded models) in Debian's headless Chromium, started on an empty data dir. The .xlsx is
uploaded through the Knowledge tab's file drop (not indexed from the command line); once the collection is
indexed, "how many … in …?" in the Chat tab shows the computed value, the operation in plain words, the
rows it used with their row numbers, and a link that serves the workbook itself. Every wait is on the
page's state (texts, the indexing state), none on a fixed sleep. Screenshots go to
``test-artifacts/browser-tables-upload/``."""

from __future__ import annotations

from pathlib import Path

import pytest
import xlsxwriter

from tests.ui.patience import HANG_MS
from tests.ui.test_browser import CHROMIUM, ROOT, running_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts" / "browser-tables-upload"
ROWS = [
    ("Item", "Shelf", "Count"),
    ("nails", "Garage", 40),
    ("screws", "Attic", 12),
    ("hinges", "Garage", 7),
    ("bolts", "Cellar", 30),
]
QUESTION = "How many items are in the shelf Garage?"


def _workbook(path: Path) -> None:
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Stock")
    for r, row in enumerate(ROWS):
        sheet.write_row(r, 0, row)
    book.close()


def test_a_dropped_workbook_is_answered_with_value_operation_rows_and_link(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    _workbook(tmp_path / "stock.xlsx")
    expect = sync_api.expect
    expect.set_options(timeout=HANG_MS)
    with running_app(tmp_path / "data", ARTIFACTS) as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.set_default_timeout(HANG_MS)
        try:
            page.goto(url)
            page.get_by_role("tab", name="Knowledge").click()
            page.locator("#new-collection textarea, #new-collection input").first.fill("stock")
            page.locator("#create-collection").click()
            expect(page.locator("#collections")).to_contain_text("stock")
            page.locator("#upload-files input[type=file]").set_input_files(str(tmp_path / "stock.xlsx"))
            expect(page.locator("#knowledge-message")).to_contain_text("1 new file(s) copied into 'stock'")
            expect(page.locator("#collections")).to_contain_text("1 file")
            expect(page.locator("#index-progress [data-state=idle]")).to_be_visible()
            page.screenshot(path=str(ARTIFACTS / "01-uploaded.png"), full_page=True)

            page.get_by_role("tab", name="Chat").click()
            expect(page.locator("#model-status")).to_contain_text("Ready")
            box = page.locator("#question textarea, #question input").first
            box.fill(QUESTION)
            box.press("Enter")
            chat = page.locator("#chatbot")
            table = chat.locator(".kimas-table-answer").first
            expect(table).to_be_visible()
            expect(chat).to_contain_text(
                "2 (computed from stock.xlsx, sheet Stock: rows where Shelf = Garage: 2"
            )
            expect(table).to_contain_text("Computed: rows where Shelf = Garage: 2")
            rows = table.locator("table.kimas-table-rows tr")
            expect(rows).to_have_count(3)  # the header and the two rows used
            expect(rows.nth(1)).to_contain_text("nails")
            expect(rows.nth(2)).to_contain_text("hinges")
            assert [rows.nth(i).locator("td").first.inner_text() for i in (1, 2)] == ["2", "4"]  # sheet rows
            page.screenshot(path=str(ARTIFACTS / "02-answered.png"), full_page=True)
            href = table.locator("a", has_text="Open stock.xlsx").get_attribute("href") or ""
            opened = page.request.get(url.rstrip("/") + href)
            assert opened.status == 200, (href, opened.status)
            assert opened.body() == (tmp_path / "stock.xlsx").read_bytes()  # the uploaded workbook itself
        finally:
            browser.close()
