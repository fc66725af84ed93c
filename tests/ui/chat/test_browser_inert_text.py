"""Text from documents is data (issue 69), in Chromium: ``$…$``, ``$$…$$``, ``\\(x\\)``, backticks, ``<b>``,
``|`` and underscores show as the characters they are wherever the page prints a document's text.

- The real app on an indexed folder holding a note with those characters (and a ``$`` and underscores in
  its file name) answers a question about it: the quote, the sources (the cited sentence, the whole
  chunk), the trace's evidence, the viewer's lines and the conversation's title show the file's own
  characters, and none of the app's markup (``kimas-citation``, ``kimas-evidence``) shows as text.
- The chat's renderer, in a Chatbot set up as the app's, shows a model answer that copies such text as
  those characters, with its [n] marker and its unsupported sentence still drawn as the app's markup;
  ``ui.markup.esc`` and ``esc_html`` keep the same text inert in a Markdown that renders ``$$…$$`` as LaTeX.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ui.patience import HANG_MS, open_until_visible
from tests.ui.test_browser import CHROMIUM, ROOT, running_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts" / "browser-inert-text"
FILE_NAME = "fit_model $v2$ notes.txt"
SENTENCE = (
    "The damping factor α_min of the `fit_model` solver is $\\alpha = 0.65$ for <b>bold</b> steps, "
    "its energy is $$E = m c^2$$ and its rate is \\(x\\) per step."
)
DOC = (
    "Damping in the fit_model solver\n\n"
    f"{SENTENCE}\n\n"
    "| option | default |\n|---|---|\n| max_iter | 200 |\n| tol_abs | $10^{-6}$ |\n"
)
FLAT = " ".join(DOC.split())  # the document's words on one line, as the quote and the trace show them
QUESTION = "What is the damping factor α_min of the `fit_model` solver?"


def _skip_without_browser() -> Any:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    return sync_api


def _indexed(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / FILE_NAME).write_text(DOC, "utf-8")
    data = tmp_path / "data"
    cmd = [sys.executable, "-m", "cli.main", "index", str(folder), "--collection", "notes", "--data-dir"]
    subprocess.run([*cmd, str(data), "--quiet"], cwd=ROOT, check=True, timeout=900)
    return data


def _verbatim(shown: str) -> None:
    """``shown`` (one line) is a piece of the document, character for character."""
    assert shown.strip() and shown in FLAT, f"not the document's characters: {shown!r}"


def test_document_text_shows_as_its_characters_in_the_app(tmp_path: Path) -> None:
    sync_api = _skip_without_browser()
    data = _indexed(tmp_path)
    with running_app(data, ARTIFACTS) as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        expect = sync_api.expect
        expect.set_options(timeout=HANG_MS)
        context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(HANG_MS)
        try:
            page.goto(url)
            expect(page.locator("#model-status")).to_contain_text("Ready")
            question = page.locator("#question textarea").first
            question.fill(QUESTION)
            question.press("Enter")
            chat = page.locator("#chatbot")
            trace_title = chat.get_by_text("How this answer was made").first
            expect(trace_title).to_be_visible()  # the answer is done
            page.screenshot(path=str(ARTIFACTS / "01-answer.png"), full_page=True)

            # The quote: the document's sentence, formulas, tags and backticks as written.
            quote = chat.locator("blockquote.kimas-quote").first.inner_text()
            assert quote.startswith("“") and quote.endswith("”"), quote
            _verbatim(quote[1:-1])
            assert "$$E = m c^2$$" in quote and "<b>bold</b>" in quote and "`fit_model`" in quote, quote

            # The sources: the file's name, the cited sentence, and the whole chunk when opened.
            names = chat.locator("details.kimas-citation summary b").all_inner_texts()
            assert names and set(names) == {FILE_NAME}, names
            summaries = chat.locator("details.kimas-citation summary").all_inner_texts()
            cited_sentences = [s.split(" — “", 1)[1] for s in summaries if " — “" in s]  # the sources'
            assert cited_sentences, summaries
            for sentence in cited_sentences:
                _verbatim(sentence.removesuffix("”"))
            cited = chat.locator("details.kimas-citation").last
            cited.locator("summary").click()
            chunk = cited.locator(".kimas-chunk").inner_text()
            assert chunk in DOC and SENTENCE in chunk, chunk

            # The viewer: the file's lines, each as written.
            with context.expect_page() as opened:
                cited.locator("a.kimas-view").click()
            viewer = opened.value
            viewer.wait_for_load_state("load")
            expect(viewer.locator("header b")).to_have_text(FILE_NAME)
            lines = viewer.locator(".line span:last-child").all_inner_texts()
            assert lines[: DOC.count("\n")] == DOC.rstrip("\n").split("\n"), lines
            hit = viewer.locator(".line.hit span:last-child").all_inner_texts()  # the cited words found
            assert hit == [SENTENCE], hit
            viewer.screenshot(path=str(ARTIFACTS / "02-viewer.png"), full_page=True)
            viewer.close()

            # The trace: the evidence is a link named by the file, its text the document's.
            open_until_visible(
                trace_title, chat.get_by_text("Evidence the quote was chosen from")
            )  # the quote
            evidence = chat.locator("li", has=page.locator("a.kimas-evidence")).first
            expect(evidence.locator("a.kimas-evidence")).to_have_text(FILE_NAME)
            _verbatim(evidence.inner_text().split(" — ", 1)[1].removesuffix("…"))
            page.screenshot(path=str(ARTIFACTS / "03-trace.png"), full_page=True)

            # No markup of the app shows as text; the answer, which copies the document (the model's
            # words or the quote in their place), draws none of its backticks, tags or formulas.
            shown = chat.inner_text()
            assert "kimas-" not in shown and "</" not in shown.replace("</b>", ""), shown
            assert chat.locator(".katex, .latex-block").count() == 0
            answer = chat.locator(".message.bot, [data-testid=bot]").first
            assert answer.locator("p code, p b:text('bold'), p strong:text('bold')").count() == 0, (
                answer.inner_html()
            )
            # The conversation's title: the question as typed.
            expect(page.locator("#conversation-list")).to_contain_text(QUESTION)
        finally:
            with contextlib.suppress(Exception):
                page.screenshot(path=str(ARTIFACTS / "99-last.png"), full_page=True)
            browser.close()


# A model's answer that copies the document: its first sentence backed by source 1, its second not.
BACKED = "The factor α_min of `fit_model` is $\\alpha = 0.65$ for <b>bold</b> steps | 1_000 runs."
UNBACKED = "Its energy is $$E = m c^2$$ at \\(x\\) per *step*."
ANSWER = f"{BACKED} {UNBACKED}"


def _turn() -> Any:
    from app.chat.conversation import Turn
    from kimas_desktop.types import Chunk, Citation, Quote, SentenceSupport

    chunk = Chunk("c1", "notes", f"/docs/{FILE_NAME}", DOC, line_start=1, line_end=DOC.count("\n"))
    at = DOC.index(SENTENCE)
    support = (
        SentenceSupport(BACKED, 0, len(BACKED), True, 0.9, 0.9, 1),
        SentenceSupport(UNBACKED, len(BACKED) + 1, len(ANSWER), False, 0.1, 0.1, None),
    )
    return Turn(
        QUESTION,
        answer=ANSWER,
        state="done",
        support=support,
        quotes=(Quote(1, chunk, at, at + len(SENTENCE), SENTENCE, 0.9),),
        citations=(Citation(1, chunk, SENTENCE, at, at + len(SENTENCE)),),
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def _served() -> Iterator[str]:
    import gradio as gr

    from app.chat.conversation import Conversation
    from ui.chat.layout import LATEX_DELIMITERS
    from ui.chat.render import chat_messages
    from ui.markup import esc, esc_html
    from ui.server.server import ServeLimits, serve

    messages: Any = chat_messages(Conversation(turns=[_turn()]))  # what the app's handlers give its Chatbot
    with gr.Blocks(analytics_enabled=False) as demo:
        gr.Chatbot(messages, elem_id="chatbot", latex_delimiters=LATEX_DELIMITERS)  # set as the app's
        gr.Markdown(esc(DOC), elem_id="escaped")  # Gradio's default: $$…$$ is LaTeX, a line break a space
        gr.Markdown(esc_html(DOC), elem_id="escaped-html")
    running = serve(demo, _free_port(), ServeLimits(), launch={"ssr_mode": False, "mcp_server": False})
    try:
        yield running.url
    finally:
        running.close()


def test_an_answer_copying_document_text_shows_its_characters_and_the_apps_marks() -> None:
    sync_api = _skip_without_browser()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with _served() as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.set_default_timeout(HANG_MS)
        expect = sync_api.expect
        try:
            page.goto(url)
            chat = page.locator("#chatbot")
            answer = chat.locator("p", has=page.locator(".kimas-unsupported"))
            expect(answer).to_have_count(1)
            page.screenshot(path=str(ARTIFACTS / "10-rendered-answer.png"), full_page=True)
            # The answer's characters, the [1] after the backed sentence, the flag after the other one.
            assert answer.inner_text() == f"{BACKED}[1] {UNBACKED}⚠"
            expect(answer.locator(".kimas-unsupported")).to_have_text(UNBACKED)
            expect(answer.locator("sup.kimas-marker a")).to_have_attribute("href", "#kimas-src-1-1")
            assert chat.locator("blockquote.kimas-quote").inner_text() == f"“{SENTENCE}”"
            assert "kimas-" not in chat.inner_text()
            assert page.locator(".katex, .latex-block").count() == 0
            # Escaped text stays text in a Markdown that renders LaTeX.
            assert " ".join(page.locator("#escaped .md").inner_text().split()) == FLAT
            assert page.locator("#escaped-html .md").inner_text().strip() == DOC.strip()
        finally:
            with contextlib.suppress(Exception):
                page.screenshot(path=str(ARTIFACTS / "19-last.png"), full_page=True)
            browser.close()
