"""A spreadsheet question in the browser (issue 43): a real .xlsx indexed by `kimas index`, the real app
(``launch.py``) with the embedded models, driven in Debian's Chromium. Asked "how many … in …?", the answer
shows the computed value, the operation in plain words and the rows it used with their row numbers, and
the link under it opens the workbook. (The file is indexed with `kimas index` rather than dropped on the
Knowledge tab: the upload itself is covered by the Knowledge tab's browser tests.) Screenshots go to
``test-artifacts/browser-tables/``."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import xlsxwriter

from tests.ui.chat.test_browser_conversations import CHROMIUM, ROOT, Server
from tests.ui.patience import HANG_MS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts" / "browser-tables"
ROWS = [
    ("Item", "Shelf", "Count"),
    ("nails", "Garage", 40),
    ("screws", "Attic", 12),
    ("hinges", "Garage", 7),
    ("bolts", "Cellar", 30),
]
QUESTION = "How many items are in the shelf Garage?"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    docs = tmp_path / "stock"
    docs.mkdir()
    book = xlsxwriter.Workbook(str(docs / "stock.xlsx"))
    sheet = book.add_worksheet("Stock")
    for r, row in enumerate(ROWS):
        sheet.write_row(r, 0, row)
    book.close()
    data = tmp_path / "data"
    cmd = [
        sys.executable,
        "-m",
        "cli.main",
        "index",
        str(docs),
        "--collection",
        "stock",
        "--data-dir",
        str(data),
    ]
    indexed = subprocess.run(
        [*cmd, "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )
    assert indexed.returncode == 0, indexed.stderr
    srv = Server(data, _port(), artifacts=ARTIFACTS)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()
        with contextlib.suppress(OSError):
            shutil.copy(data / "kimas.log", ARTIFACTS / "kimas.log")


def test_the_value_the_operation_and_the_rows_with_a_link_to_the_workbook(server: Server) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    expect = sync_api.expect
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.set_default_timeout(HANG_MS)
        try:
            page.goto(server.url)
            expect(page.locator("#model-status")).to_contain_text("Ready", timeout=HANG_MS)
            box = page.locator("#question textarea, #question input").first
            box.fill(QUESTION)
            box.press("Enter")
            chat = page.locator("#chatbot")
            table = chat.locator(".kimas-table-answer").first
            expect(table).to_be_visible(timeout=HANG_MS)
            expect(chat).to_contain_text("2 (computed from stock.xlsx, sheet Stock")
            expect(table).to_contain_text("Computed: rows where Shelf = Garage: 2")
            rows = table.locator("table.kimas-table-rows tr")
            expect(rows).to_have_count(3)  # the header and the two rows used
            expect(rows.nth(1)).to_contain_text("2")
            expect(rows.nth(1)).to_contain_text("nails")
            expect(rows.nth(2)).to_contain_text("hinges")
            assert rows.nth(2).locator("td").first.inner_text() == "4"  # hinges are on row 4 of the sheet
            page.screenshot(path=str(ARTIFACTS / "01-answered.png"), full_page=True)
            link = table.locator("a", has_text="Open stock.xlsx")
            href = link.get_attribute("href") or ""
            opened = page.request.get(server.url.rstrip("/") + href)
            assert opened.status == 200, (href, opened.status)
            assert opened.body()[:2] == b"PK"  # the workbook itself (a zip)
        finally:
            browser.close()
