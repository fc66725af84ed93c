"""The Chat tab in a Japanese and in a Hindi browser speaks their language (issue 60), as a user: the real app
with the embedded models on the opening of a Chinese seed paper, in headless Chromium with ja-JP, then
hi-IN, at 1366×768.

The Chat tab's fixed labels (the tabs, the buttons, the question box's placeholder, the answer-source
choice, the note under the buttons), the status line and the sidebar's note are read in each language, and
the empty chat may hold no run of three or more English words (``tests/ui/english.py``). A Japanese question
gets the chat's own lines in Japanese ("この回答ができるまで"). The other tabs are English in these two
languages (``ui.i18n.column``). Screenshots go to ``test-artifacts/browser-ja-hi-chat/``.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

from tests.ui.chat.test_browser_zh_chat import LAPTOP, LAST_ANSWER_DONE, SEEN
from tests.ui.english import english_runs
from tests.ui.patience import HANG_MS
from tests.ui.test_browser import CHROMIUM, ROOT, running_app
from tests.ui.test_browser_languages import indexed_paper
from ui.words_hi import HINDI
from ui.words_ja import JAPANESE

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts" / "browser-ja-hi-chat"
QUESTION_JA = "この記事の著者は誰ですか?"  # kana: the chat's lines are said in Japanese


def _labels_in(page: Any, expect: Any, words: dict[str, str]) -> list[str]:
    """The Chat tab's fixed labels and the server's words on the empty chat are ``words``'; what English
    the empty chat shows."""
    expect(page.get_by_role("tab", name=words["tab_chat"])).to_be_visible()
    expect(page.get_by_role("tab", name=words["tab_knowledge"])).to_be_visible()
    expect(page.locator("#send")).to_have_text(words["send"])
    expect(page.locator("#new-chat")).to_have_text(words["new_chat"])
    expect(page.locator("#stop")).to_have_text(words["stop"])
    expect(page.locator("#regenerate")).to_have_text(words["regenerate"])
    expect(page.locator("#question textarea").first).to_have_attribute(
        "placeholder", words["ask_placeholder"]
    )
    expect(page.locator("#chat-search textarea").first).to_have_attribute(
        "placeholder", words["search_chats"]
    )
    mode = page.locator("#answer-mode")
    expect(mode).to_contain_text(words["mode_documents"])
    expect(mode).to_contain_text(words["mode_model"])
    expect(page.locator("#send-note")).to_contain_text(words["send_note"].split("**")[0])
    ready = words["model_ready"].split("{")[0]  # "準備完了：", "तैयार: "
    expect(page.locator("#model-status")).to_contain_text(ready.strip())
    expect(page.locator("#chat-list-note")).to_contain_text(words["chats_none"].strip("_"))
    seen = page.evaluate(SEEN)
    return english_runs(seen["text"], seen["code"])


def test_the_chat_tab_in_a_japanese_and_a_hindi_browser(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    data = indexed_paper(tmp_path)
    found: list[str] = []
    with running_app(data, ARTIFACTS) as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        expect = sync_api.expect
        expect.set_options(timeout=HANG_MS)
        page: Any = None
        try:
            for locale, words in (("hi-IN", HINDI), ("ja-JP", JAPANESE)):
                page = browser.new_context(locale=locale, viewport=LAPTOP).new_page()
                page.goto(url, timeout=HANG_MS)
                expect(page.locator("#model-status")).to_contain_text("✓")
                found += [f"{locale}: {run}" for run in _labels_in(page, expect, words)]
                page.screenshot(path=str(ARTIFACTS / f"{locale}-empty-chat.png"), full_page=True)

            # the Japanese page: a Japanese question, the chat's own lines around its answer in Japanese
            box = page.locator("#question textarea").first
            box.fill(QUESTION_JA)
            box.press("Enter")
            page.wait_for_function(LAST_ANSWER_DONE, timeout=HANG_MS)
            expect(page.locator("#chatbot .thought").last).to_contain_text(JAPANESE["how made"])
            page.screenshot(path=str(ARTIFACTS / "ja-JP-answer.png"), full_page=True)
        finally:
            if page is not None:
                with contextlib.suppress(Exception):
                    page.screenshot(path=str(ARTIFACTS / "99-last.png"), full_page=True)
            browser.close()
    assert not found, "English on the Chat tab:\n" + "\n".join(dict.fromkeys(found))
