"""A Chinese spreadsheet question in the browser (issue 57): a real .xlsx with Chinese headers (物品, 位置,
数量) indexed by `kimas index` with the multilingual embedder named in the config first (as after the
"Use the multilingual embedding model" click: `kimas index` does not pick it for a library of spreadsheets
alone, since it samples the languages of documents, not of tables; on MiniLM, which reads no Chinese, the
search goes by words alone and "车库里" finds no row holding "车库"), the real app (``launch.py``) with the
embedded models, driven in Debian's Chromium. Asked "车库里一共有多少件物品？" in the Chat tab, the answer
shows the computed 47 (the 数量 of the garage's three rows, summed; 车库 found inside 车库里) and the three
rows it used. Screenshots go to ``test-artifacts/browser-tables-zh/``."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER
from tests.indexer.tables.workbooks import xlsx_bytes
from tests.ui.chat.test_browser_conversations import CHROMIUM, ROOT, Server
from tests.ui.patience import HANG_MS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts" / "browser-tables-zh"
ROWS = [
    ("物品", "位置", "数量"),
    ("自行车", "车库", 2),
    ("工具箱", "车库", 5),
    ("轮胎", "车库", 40),
    ("沙发", "客厅", 1),
    ("书", "客厅", 30),
    ("灯", "卧室", 3),
]
QUESTION = "车库里一共有多少件物品？"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    docs = tmp_path / "家"
    docs.mkdir()
    (docs / "家里的东西.xlsx").write_bytes(xlsx_bytes({"物品": ROWS}))
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(f'[embedding]\nname = "{MULTILINGUAL_EMBEDDER}"\n', "utf-8")
    cmd = [
        sys.executable,
        "-m",
        "cli.main",
        "index",
        str(docs),
        "--collection",
        "home",
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


def test_a_chinese_question_shows_the_computed_number_and_its_rows(server: Server) -> None:
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
            page.screenshot(path=str(ARTIFACTS / "01-answered.png"), full_page=True)
            expect(chat).to_contain_text("47")
            expect(table).to_contain_text("位置 = 车库")
            rows = table.locator("table.kimas-table-rows tr")
            expect(rows).to_have_count(4)  # the header and the garage's three rows
            for i, (thing, _, count) in enumerate(ROWS[1:4], start=1):
                expect(rows.nth(i)).to_contain_text(thing)
                expect(rows.nth(i)).to_contain_text(str(count))
        finally:
            browser.close()
