"""The Knowledge tab's buttons in a Chinese browser say how they went in Chinese (issue 60), as a user: the
real app on an empty data folder, in headless Chromium with zh-CN at 1366×768.

Re-index pressed before any collection exists ("Choose a collection first."), a collection created, created
again (its name is taken), a folder watched, the collection renamed, indexing paused and resumed, and the
remove button's confirmation: each sentence under the buttons (and the confirmation's label) holds Chinese
and no run of three or more English words (``tests/ui/english.py``), the names and paths it quotes
excepted. The waits wait for the message to change, not for its words, so a page that still speaks English
fails on what it finds. Screenshots go to ``test-artifacts/browser-zh-knowledge-actions/``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.ui.english import english_runs
from tests.ui.patience import HANG_MS
from tests.ui.test_browser import CHROMIUM, ROOT, running_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts" / "browser-zh-knowledge-actions"
LAPTOP = {"width": 1366, "height": 768}
NAME, RENAMED = "Handbook 手册", "员工手册"
_HAN = re.compile(r"[\u4e00-\u9fff]")
# The message under the buttons (its Markdown, not Gradio's "processing" timer beside it), once it says
# something other than ``before``.
CHANGED = """(before) => {
  const m = document.querySelector('#knowledge-message .prose');
  const text = m && !document.querySelector('#knowledge-message .eta-bar') ? m.innerText.trim() : '';
  return text && text !== before && !/processing/.test(text) ? text : null;
}"""


def _pressed(page: Any, button: str, before: str) -> str:
    page.locator(button).click()
    return str(page.wait_for_function(CHANGED, arg=before, timeout=HANG_MS).json_value())


def test_the_knowledge_buttons_speak_chinese_in_a_chinese_browser(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "ferry.md").write_text("# Ferry\n\nThe harbour ferry leaves at nine.\n", "utf-8")
    said: list[str] = []
    with running_app(tmp_path / "data", ARTIFACTS) as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        sync_api.expect.set_options(timeout=HANG_MS)
        page = browser.new_context(locale="zh-CN", viewport=LAPTOP).new_page()
        page.set_default_timeout(HANG_MS)
        try:
            page.goto(url, timeout=HANG_MS)
            page.get_by_role("tab", name="知识库").click()
            said.append(_pressed(page, "#reindex", ""))  # no collection yet
            page.locator("#new-collection textarea, #new-collection input").first.fill(NAME)
            said.append(_pressed(page, "#create-collection", said[-1]))
            page.locator("#new-collection textarea, #new-collection input").first.fill(NAME)
            said.append(_pressed(page, "#create-collection", said[-1]))  # taken
            page.locator("#new-collection textarea, #new-collection input").first.fill("")
            page.locator("#folder-path textarea, #folder-path input").first.fill(str(folder))
            said.append(_pressed(page, "#add-folder", said[-1]))
            page.locator("#collection-naming button.label-wrap").first.click()
            page.locator("#rename-collection-name textarea, #rename-collection-name input").first.fill(
                RENAMED
            )
            said.append(_pressed(page, "#rename-collection", said[-1]))
            said.append(_pressed(page, "#pause-indexing", said[-1]))
            said.append(_pressed(page, "#resume-indexing", said[-1]))
            page.locator("#remove").click()
            sync_api.expect(page.locator("#confirm-remove")).to_contain_text(RENAMED)
            said.append(page.locator("#confirm-remove").inner_text())
        finally:
            page.screenshot(path=str(ARTIFACTS / "knowledge-actions.png"), full_page=True)
            browser.close()
    assert len(said) == 8, said
    assert said[0] == "⚠ 请先选择一个知识库。" and RENAMED in said[4], said
    english = [run for text in said for run in english_runs(text, [NAME, RENAMED, str(folder)])]
    assert english == [], said
    assert all(_HAN.search(text.replace(NAME, "").replace(RENAMED, "")) for text in said), said
