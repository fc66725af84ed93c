"""Chat without documents (issue 45) as a user meets it, in Debian's Chromium at 1366×768: the real app
(``launch.py``) with the real embedded models and no collection yet.

A question asked from the documents says there is no knowledge yet and offers the model alone, without
switching; one click asks the model alone, whose reply is labelled as not from your documents and cites
nothing. A new chat starts from the documents; choosing "the model alone" and asking gives a labelled
reply; a reload shows the chat in the same mode. Screenshots go to ``test-artifacts/browser-model-alone/``.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ui.chat.test_browser_conversations import CHROMIUM, ROOT, Server, _free_port
from tests.ui.patience import HANG_MS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts" / "browser-model-alone"
LABEL_START = "Not from your documents"
Q1 = "What is the capital of France?"
Q2 = "What colour is the sky on a clear day?"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    data = tmp_path / "data"
    srv = Server(data, _free_port(), artifacts=ARTIFACTS)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()
        with contextlib.suppress(OSError):
            shutil.copy(data / "kimas.log", ARTIFACTS / "kimas.log")


def test_switch_to_the_model_alone_ask_and_see_the_label(server: Server) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    expect = sync_api.expect
    expect.set_options(timeout=HANG_MS)

    def shot(page: Any, name: str) -> None:
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"))

    def ask(page: Any, text: str) -> None:
        box = page.locator("#question textarea, #question input").first
        expect(box).to_have_value("")
        box.fill(text)
        box.press("Enter")
        expect(page.locator("#chatbot")).to_contain_text(text)

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.set_default_timeout(HANG_MS)
        chat = page.locator("#chatbot")
        mode = page.locator("#answer-mode")
        try:
            page.goto(server.url)
            expect(page.locator("#model-status")).to_contain_text("Ready")
            expect(mode.locator("input[value='documents']")).to_be_checked()
            box = page.locator("#question textarea, #question input").first
            expect(box).to_have_attribute("placeholder", "Ask about your documents…")

            # 1. No collection yet: the reply says so and offers the model alone; nothing is switched.
            ask(page, Q1)
            offer = page.locator("#ask-model-alone")
            expect(offer).to_be_visible()
            expect(chat).to_contain_text("You can also ask the model alone")
            expect(mode.locator("input[value='documents']")).to_be_checked()
            shot(page, "01-no-knowledge-offer")

            # 2. One click: the model alone answers the same question, labelled, citing nothing.
            offer.click()
            expect(mode.locator("input[value='model']")).to_be_checked()
            expect(box).to_have_attribute("placeholder", "Ask the model alone (not your documents)…")
            expect(chat).to_contain_text(LABEL_START)
            expect(chat).to_contain_text("How this answer was made")  # its trace: the answer has ended
            expect(chat).not_to_contain_text("You can also ask the model alone")
            expect(offer).to_be_hidden()
            expect(chat.locator("details.kimas-citation")).to_have_count(0)
            shot(page, "02-model-alone-answer")

            # 3. A new chat answers from the documents; switch it to the model alone and ask.
            page.locator("#new-chat").click()
            expect(chat).not_to_contain_text(Q1)
            expect(mode.locator("input[value='documents']")).to_be_checked()
            expect(box).to_have_attribute("placeholder", "Ask about your documents…")
            mode.locator("label", has_text="the model alone").click()
            expect(mode.locator("input[value='model']")).to_be_checked()
            ask(page, Q2)
            expect(chat).to_contain_text(LABEL_START)
            expect(chat).to_contain_text("How this answer was made")
            expect(chat).not_to_contain_text("There is no knowledge to answer from yet")
            shot(page, "03-switched-and-asked")

            # 4. A reload shows the same chat in the same mode, its answer still labelled.
            page.reload()
            expect(chat).to_contain_text(Q2)
            expect(chat).to_contain_text(LABEL_START)
            expect(mode.locator("input[value='model']")).to_be_checked()
            expect(offer).to_be_hidden()
            shot(page, "04-after-reload")
        finally:
            browser.close()
