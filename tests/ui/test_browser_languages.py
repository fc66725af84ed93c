"""A Chinese reader's first question (issue 42), as a user: the real app with the embedded models, driven in
Chromium with the browser's language set to zh-CN.

A folder holding the opening of one of the Chinese seed papers is indexed with ``kimas index``, then the app
starts on it. The page's labels come in Chinese, a Chinese question gets the Chinese sentence that answers it
as the quote, and the app's own words around the answer (the quote's heading, the sources) are Chinese too. The same page in en-US keeps its
English labels.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ui.patience import HANG_MS
from tests.ui.test_browser import CHROMIUM, ROOT, running_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts" / "browser-zh"
PAPER = ROOT.parent / "shared" / "papers" / "agentic-rag-pattern.zh.txt"
QUESTION = "智能Agent RAG 模式这篇文章的作者是谁?"  # bench/chinese_questions.json, pattern-3
ANSWER = "张长旺"


def indexed_paper(tmp_path: Path) -> Path:
    """A data dir whose collection "papers" holds the opening of the Chinese seed paper (``kimas index``)."""
    folder = tmp_path / "papers"
    folder.mkdir()
    opening = PAPER.read_text("utf-8").splitlines()[:12]
    (folder / "agentic-rag-pattern.zh.txt").write_text("\n".join(opening) + "\n", "utf-8")
    data = tmp_path / "data"
    cmd = [sys.executable, "-m", "cli.main", "index", str(folder), "--collection", "papers", "--data-dir"]
    subprocess.run([*cmd, str(data), "--quiet"], cwd=ROOT, check=True, timeout=900)
    return data


def test_a_chinese_question_in_a_chinese_browser(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    data = indexed_paper(tmp_path)
    with running_app(data, ARTIFACTS) as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        expect = sync_api.expect
        expect.set_options(timeout=HANG_MS)
        try:
            english = browser.new_context(locale="en-US").new_page()
            english.goto(url, timeout=HANG_MS)
            expect(english.locator("#send")).to_have_text("Send")
            expect(english.get_by_role("tab", name="Knowledge")).to_be_visible()

            page = browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 1000}).new_page()
            page.goto(url, timeout=HANG_MS)
            expect(page.locator("#send")).to_have_text("发送")
            expect(page.get_by_role("tab", name="知识库")).to_be_visible()
            expect(page.locator("#model-status")).to_contain_text("就绪", timeout=HANG_MS)
            question = page.locator("#question textarea").first
            expect(question).to_have_attribute("placeholder", "询问你的文档…")
            question.fill(QUESTION)
            question.press("Enter")
            quote = page.locator("#chatbot .kimas-quotes").first
            expect(quote).to_contain_text(ANSWER, timeout=HANG_MS)
            # the app's own words around the answer follow the question: the quote's heading, the sources
            expect(page.locator("#chatbot .kimas-quote-label").first).to_have_text(
                re.compile("来自你的文档|你的文档中最接近的段落")
            )
            citation = page.locator("#chatbot details.kimas-citation summary", has_text="agentic-rag-pattern")
            expect(citation.first).to_be_visible(timeout=HANG_MS)
            expect(page.locator("#chatbot")).to_contain_text(re.compile("来源|你的文档没有说明|最接近的段落"))
            page.screenshot(path=str(ARTIFACTS / "zh-answer.png"), full_page=True)
        finally:
            with contextlib.suppress(Exception):
                page.screenshot(path=str(ARTIFACTS / "zh-last.png"), full_page=True)
            browser.close()
