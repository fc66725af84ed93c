"""The Chat tab in a Chinese browser finds no English (issue 60), as a user: the real app with the embedded
models on the opening of a Chinese seed paper, in headless Chromium with zh-CN at 1366×768.

The tab is read as it first shows (an empty chat), after a search that matches no conversation, and after
a real answer (the quote, with the embedded model, and the note that says so once: issue 69), a decline,
an answer the model writes on Regenerate stopped by a new question, and one stopped by the Stop button. Its
visible text (and the question box's placeholder) may hold no run of three or more English words that is
not a file name, a model name, a path or code (``tests/ui/english.py``). The waits do not depend on the
page's language, so on a page that still speaks English the test fails on what it finds, not on a timeout.
Screenshots go to ``test-artifacts/browser-zh-chat/``. After the answer and the decline, their traces
("这个回答是如何得出的") are opened and read too (issue 69).

What the model wrote is its own free text, which differs with the tokens a CPU's arithmetic picks (issue 72:
"lines 1-2" copied from the prompt on a Zen 5 EPYC): the sentences of the stored answers are taken out
before the page is read, so this test asserts the app's own words.
``tests/kimas_desktop/answer/test_writer_echo.py`` checks the model's text with a scripted model instead.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

import pytest

from app.chat.store import FILE_NAME, ConversationStore
from tests.ui.english import english_runs
from tests.ui.patience import HANG_MS, open_until_visible
from tests.ui.test_browser import CHROMIUM, ROOT, running_app
from tests.ui.test_browser_languages import indexed_paper
from ui.chat.said import said_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts" / "browser-zh-chat"
LAPTOP = {"width": 1366, "height": 768}
ANSWERED = "查询重写步骤是什么?"  # the model answers, in Chinese
DECLINED = "这篇文章发表在哪一年的哪一期杂志上?"  # the paper does not say
LONG = "作者是谁?"  # the model writes on and on (on Regenerate: issue 69): time to stop it
NEXT = "搜索引擎返回什么?"
WRITING = re.compile("words so far|已写")  # the answer's pace line: the model is writing

# The text a user sees on the Chat tab, the placeholders of its empty boxes, and the code it shows.
SEEN = """() => {
  const tab = document.querySelector('#chat-main').closest('[role=tabpanel]') || document.body;
  const boxes = [...tab.querySelectorAll('textarea, input[type=text]')]
    .filter((b) => b.offsetParent !== null && !b.value).map((b) => b.placeholder);
  const code = [...document.querySelectorAll('code')].map((c) => c.innerText);
  return {text: document.body.innerText + '\\n' + boxes.join('\\n'), code};
}"""
LAST_ANSWER_DONE = """() => {
  const rows = document.querySelectorAll('#chatbot .message-row');
  const last = rows[rows.length - 1];
  return !!last && last.classList.contains('bot-row') && !!last.querySelector('.thought');
}"""


_SENTENCE = re.compile(r"[^\n.!?。！？]+[.!?。！？]*")


def _model_said(data: Path) -> list[str]:
    """The sentences the model wrote in the stored answers (the app's own words are not in them)."""
    path = data / FILE_NAME
    if not path.is_file():
        return []
    store = ConversationStore(path)
    said: list[str] = []
    for summary in store.list():
        conv = store.load(summary.id)
        for turn in conv.turns if conv is not None else ():
            said += [s.text.strip() for s in turn.support]  # the model's checked sentences
            if turn.state == "stopped":  # what the model wrote before it was stopped
                said += [s.group().strip() for s in _SENTENCE.finditer(turn.answer) if s.group().strip()]
    return said


def _english(page: Any, where: str, data: Path) -> list[str]:
    seen = page.evaluate(SEEN)
    allowed = [*seen["code"], *_model_said(data)]
    return [f"{where}: {run}" for run in english_runs(seen["text"], allowed)]


TRACE_TITLE = "这个回答是如何得出的"
# A heading every trace of an answer from the documents holds, in either language: the wait does not depend on
# the trace's language, so a trace that still speaks English fails on what it says. The evidence's heading
# says what became of it (given to the model, the quote chosen from it, or found: issue 69).
EVIDENCE = ("tr evidence", "tr evidence quote", "tr evidence found")
TRACE_INSIDE = re.compile(
    "|".join(re.escape(said_in(k, lang).strip("*")) for k in EVIDENCE for lang in ("zh", "en"))
)


def open_traces(page: Any) -> None:
    """Open each answer's trace, in order, so that its words are on the page."""
    chat = page.locator("#chatbot")
    titles = chat.get_by_text(TRACE_TITLE)
    for i in range(titles.count()):
        open_until_visible(titles.nth(i), chat.get_by_text(TRACE_INSIDE).nth(i))


def _ask(page: Any, question: str) -> None:
    box = page.locator("#question textarea").first
    box.fill(question)
    box.press("Enter")


def _answered(page: Any, question: str) -> None:
    """``question`` is on the page and its answer ended with its trace (the last part drawn)."""
    page.locator("#chatbot .message-row.user-row", has_text=question).last.wait_for(timeout=HANG_MS)
    page.wait_for_function(LAST_ANSWER_DONE, timeout=HANG_MS)


def _write_long(page: Any) -> None:
    """Ask ``LONG`` and let the embedded model write: its answer is the quote (issue 69), and Regenerate
    lets it write, as the user asked; wait until it does, or two minutes: on some CPUs (a Zen 3 EPYC) the
    model's greedy answer is one short sentence, ended before its pace line is seen."""
    _ask(page, LONG)
    _answered(page, LONG)
    page.locator("#regenerate").click()
    with contextlib.suppress(Exception):  # Playwright's TimeoutError
        page.locator("#chatbot .message-row.bot-row").last.get_by_text(WRITING).wait_for(timeout=120_000)


def test_the_chat_tab_in_a_chinese_browser_shows_no_english(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    data = indexed_paper(tmp_path)
    found: list[str] = []
    with running_app(data, ARTIFACTS) as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        expect = sync_api.expect
        expect.set_options(timeout=HANG_MS)
        page = browser.new_context(locale="zh-CN", viewport=LAPTOP).new_page()

        def shot(name: str) -> None:
            page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

        try:
            # 1. The empty chat, once the models are loaded and the timer has drawn the status line.
            page.goto(url, timeout=HANG_MS)
            expect(page.locator("#model-status")).to_contain_text("✓")
            expect(page.locator("#chat-list-note")).not_to_be_empty()
            shot("01-empty-chat")
            found += _english(page, "empty chat", data)

            # 2. A real answer, a decline.
            _ask(page, ANSWERED)
            _answered(page, ANSWERED)
            _ask(page, DECLINED)
            _answered(page, DECLINED)
            open_traces(page)
            shot("02-answer-and-decline")
            found += _english(page, "answer and decline", data)

            # 3. In a new chat (a follow-up is answered otherwise), an answer stopped by the next question.
            answers = page.locator("#chatbot .message-row.bot-row")
            page.locator("#new-chat").click()
            expect(answers).to_have_count(0)
            _write_long(page)
            _ask(page, NEXT)
            # The first answer stopped (已停止), or ended first where the model is brief.
            _answered(page, NEXT)
            shot("03-stopped-by-a-question")
            found += _english(page, "stopped by a question", data)

            # 4. In a new chat, an answer stopped by the Stop button.
            page.locator("#new-chat").click()
            expect(answers).to_have_count(0)
            _write_long(page)
            page.locator("#stop").click()
            page.wait_for_function(LAST_ANSWER_DONE, timeout=HANG_MS)  # stopped, or ended first (step 3)
            page.wait_for_timeout(1_000)  # the stopped stream's last redraw
            shot("04-stopped")
            found += _english(page, "stopped", data)

            # 5. A search that matches no conversation.
            search = page.locator("#chat-search textarea").first
            search.fill("zzzz")
            expect(page.locator("#conversation-list label")).to_have_count(0)
            expect(page.locator("#chat-list-note")).not_to_be_empty()
            shot("05-no-match")
            found += _english(page, "search", data)
        finally:
            with contextlib.suppress(Exception):
                shot("99-last")
            browser.close()
    assert not found, "English on the zh-CN Chat tab:\n" + "\n".join(dict.fromkeys(found))
