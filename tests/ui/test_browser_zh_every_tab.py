"""Every tab in a Chinese browser finds no English (issue 60), as a user: the real app with the embedded
models on the opening of a Chinese seed paper, in headless Chromium with zh-CN at 1366×768.

After a real answer and a decline in the Chat tab, a file that fails to index dropped into the collection
(an indexing run that records a failed file) and a test set made and run on the Evaluation tab, each tab
(Chat, Knowledge, Evaluation, Settings) is read as a user sees it: its visible text and the placeholders of
its empty boxes may hold no run of three or more English words that is not a file name, a model name, a
path or code (``tests/ui/english.py``). On the Chat tab both answers' traces ("这个回答是如何得出的") are open
(issue 69), the labels of the chat's buttons (Gradio's copy button said "Copy message", its scroll-down
button "Scroll down": the chat is scrolled up to show it) hold no English phrase, and a citation opens in the viewer, whose own words are read the same way (the file's lines are the
document's). The waits do not depend on the page's language, so a page that still speaks English fails on
what it finds, not on a timeout. Screenshots go to ``test-artifacts/browser-zh-every-tab/``.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

import pytest

from tests.ui.chat.test_browser_zh_chat import DECLINED, LAPTOP, TRACE_INSIDE, _answered, _ask, open_traces
from tests.ui.english import english_runs
from tests.ui.patience import HANG_MS
from tests.ui.test_browser import CHROMIUM, ROOT, running_app
from tests.ui.test_browser_languages import indexed_paper
from ui.settings.words import CATALOG

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts" / "browser-zh-every-tab"
ANSWERED = "查询重写步骤是什么?"
BROKEN = "损坏的报告.pdf"  # not a PDF inside: it fails to index

# The model catalog's names as the Chinese page shows them ("BGE small English v1.5"): names, not English.
MODEL_NAMES = [re.split("[（(]", title)[0].strip() for title, _ in CATALOG.values() if title]
# The text a user sees on the open tab, the placeholders of its empty boxes, and the code it shows.
SEEN = """() => {
  const boxes = [...document.querySelectorAll('textarea, input[type=text]')]
    .filter((b) => b.offsetParent !== null && !b.value).map((b) => b.placeholder);
  const code = [...document.querySelectorAll('code')].map((c) => c.innerText);
  return {text: document.body.innerText + '\\n' + boxes.join('\\n'), code};
}"""
# The labels of the chat's buttons, shown or not yet (Gradio's copy, like and dislike buttons show on hover),
# and its tooltips (aria-label, title). Not the chat's box itself: Gradio 6.31 labels it "chatbot conversation"
# for screen readers in every language, outside its tables.
LABELS = """() => [...document.querySelectorAll('#chatbot button, #chatbot [title]')]
  .map((e) => e.getAttribute('aria-label') || e.getAttribute('title') || '')"""
ENGLISH_LABEL = re.compile(r"[A-Za-z]+(?: [A-Za-z]+)+")  # "Copy message": two words are a phrase here
COPY = "复制消息"  # Gradio's copy button, which its own zh-CN table leaves in English
SCROLL_DOWN = "滚动到底部"  # the chat's "Scroll down" button, shown when it is scrolled up (no Gradio key)
# The chat scrolled to its top, as a reader going back to the first answer: Gradio shows its scroll-down button.
SCROLL_UP = """() => { for (const box of document.querySelectorAll('#chatbot .bubble-wrap, #chatbot .panel-wrap')) {
  box.scrollTop = 0; box.dispatchEvent(new Event('scroll')); } }"""
# The Evaluation tab's line under its buttons has ended a job (made a set, or run it).
ENDED = "() => !!document.querySelector('#eval-progress [data-state=ended]')"


def _english(page: Any, where: str) -> list[str]:
    seen = page.evaluate(SEEN)
    return [f"{where}: {run}" for run in english_runs(seen["text"], [*seen["code"], *MODEL_NAMES])]


def _english_labels(page: Any, expect: Any) -> list[str]:
    page.evaluate(SCROLL_UP)
    expect(page.locator("#chatbot .scroll-down-button-container button")).to_be_visible()
    labels = page.evaluate(LABELS)
    english = [f"chat button: {label}" for label in labels if ENGLISH_LABEL.fullmatch(label)]
    return english + [
        f"chat button: no “{word}” among {sorted(set(labels))}"
        for word in (COPY, SCROLL_DOWN)
        if word not in labels
    ]


def _shoot_traces(page: Any) -> None:
    """A screenshot of each open trace (the chat scrolls inside its own box)."""
    insides = page.locator("#chatbot").get_by_text(TRACE_INSIDE)
    for i in range(insides.count()):
        insides.nth(i).scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"1a-trace-{i + 1}.png"))


def _viewer_english(context: Any, page: Any, expect: Any) -> list[str]:
    """A citation of the last answer opened in the viewer, as a reader clicks it: the viewer's own words (the
    file's lines are the document's, its name a file name)."""
    cited = page.locator("#chatbot details.kimas-citation").last
    cited.locator("summary").click()
    link = cited.locator("a.kimas-view")
    expect(link).to_be_visible()
    with context.expect_page() as opened:
        link.click()
    viewer = opened.value
    viewer.wait_for_load_state("load")
    viewer.screenshot(path=str(ARTIFACTS / "1b-viewer.png"), full_page=False)
    lines = viewer.locator(".line span:last-child").all_inner_texts()
    text = viewer.locator("body").inner_text()
    viewer.close()
    return [f"viewer: {run}" for run in english_runs(text, [line for line in lines if line.strip()])]


def _open_accordions(page: Any) -> None:
    """Open every closed accordion the open tab shows, so that its words are read too."""
    for label in page.locator("button.label-wrap:not(.open):visible").all():
        with contextlib.suppress(Exception):
            label.click(timeout=2_000)
    page.wait_for_timeout(500)


def _drop_a_broken_file(page: Any, expect: Any, broken: Path) -> None:
    """``broken`` dropped into the selected collection; back when the indexer is idle and the activity
    lists its failure (the "✗"/"⚠" icon and the file's name do not depend on the language)."""
    page.locator("#upload-files input[type=file]").set_input_files(str(broken))
    expect(page.locator("#activity")).to_contain_text("⚠")
    expect(page.locator("#index-progress [data-state=idle]")).to_be_visible()
    expect(page.locator("#document-list")).to_contain_text(BROKEN)


def _evaluate(page: Any, expect: Any) -> None:
    """A test set of 5 questions made, then run with one of them answered, as the buttons do."""
    size = page.locator("#eval-size input")
    size.fill("5")
    size.press("Tab")
    answers = page.locator("#eval-answers input")
    page.locator("#eval-make-set").click()
    page.wait_for_function(ENDED, timeout=HANG_MS)
    answers.fill("1")
    answers.press("Tab")
    page.locator("#eval-run").click()
    expect(page.locator("#eval-runs")).to_be_visible()
    page.wait_for_function(ENDED, timeout=HANG_MS)
    expect(page.locator("#eval-chart-0 svg")).to_be_visible()


def test_every_tab_in_a_chinese_browser_shows_no_english(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    data = indexed_paper(tmp_path)
    broken = tmp_path / BROKEN
    broken.write_bytes(b"%PDF-1.4\nthis is not a PDF body\n")
    found: list[str] = []
    with running_app(data, ARTIFACTS) as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        expect = sync_api.expect
        expect.set_options(timeout=HANG_MS)
        context = browser.new_context(locale="zh-CN", viewport=LAPTOP)
        page = context.new_page()

        def read(tab: str) -> None:
            _open_accordions(page)
            page.screenshot(path=str(ARTIFACTS / f"{tab}.png"), full_page=True)
            found.extend(_english(page, tab))

        try:
            page.goto(url, timeout=HANG_MS)
            expect(page.locator("#model-status")).to_contain_text("✓")
            _ask(page, ANSWERED)
            _answered(page, ANSWERED)
            _ask(page, DECLINED)
            _answered(page, DECLINED)
            open_traces(page)
            _shoot_traces(page)
            read("1-chat")
            found.extend(_english_labels(page, expect))
            found.extend(_viewer_english(context, page, expect))

            page.get_by_role("tab", name="知识库").click()
            _drop_a_broken_file(page, expect, broken)
            read("2-knowledge")

            page.get_by_role("tab", name="评估").click()
            _evaluate(page, expect)
            read("3-evaluation")

            page.get_by_role("tab", name="设置").click()
            expect(page.locator("#save-settings")).to_be_visible()
            read("4-settings")
        finally:
            with contextlib.suppress(Exception):
                page.screenshot(path=str(ARTIFACTS / "99-last.png"), full_page=True)
            browser.close()
    assert not found, "English on a zh-CN tab:\n" + "\n".join(dict.fromkeys(found))
