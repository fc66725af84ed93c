"""End to end, as a user (issue 45): open Settings, see the model a local server serves, use it with one
click, ask, and the answer's trace names that model.

The real app (``launch.py``, real embedded models) runs with ``OLLAMA_HOST`` naming the port of a test
server on 127.0.0.1 that speaks Ollama's API (``tests/app/models/ollama_server.py``), and a home folder of
its own holding an LM Studio folder with the embedded GGUF (and the 0.5B Qwen instruct GGUF when
``bench/bigger_model.py`` has assembled it: the first start suggests it once). Nothing asks the server
before Settings is opened. Screenshots go to ``test-artifacts/browser-local-models/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.bigger_model import DEST as QWEN
from tests.app.models.model_folders import lm_studio_folder
from tests.app.models.ollama_server import ANSWER, CHAT_MODEL, Served, ollama_server
from tests.app.settings.test_first_start import QWEN_FILE
from tests.ui.patience import HANG_MS, open_until_visible
from tests.ui.test_browser import CHROMIUM, ROOT, running_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts" / "browser-local-models"
NOTE = "# Oven\n\nBake the loaf in a Dutch oven at 250 degrees Celsius.\n"
QUESTION = "At what temperature do you bake the loaf in a Dutch oven?"


@pytest.fixture
def served() -> Iterator[Served]:
    with ollama_server() as s:
        yield s


@pytest.fixture
def app_url(tmp_path: Path, served: Served) -> Iterator[str]:
    home = tmp_path / "home"
    lm_studio_folder(home)
    if QWEN.exists():  # a clearly better chat model on disk: the first start says so once
        (home / ".lmstudio" / "models" / QWEN_FILE).parent.mkdir(parents=True)
        (home / ".lmstudio" / "models" / QWEN_FILE).symlink_to(QWEN)
    env = {
        "OLLAMA_HOST": f"127.0.0.1:{served.port}",
        "OLLAMA_MODELS": str(home / "no-ollama-models"),
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
    }
    with running_app(tmp_path / "data", ARTIFACTS, env) as url:
        yield url


def test_open_settings_use_the_served_model_ask_and_the_trace_names_it(
    app_url: str, served: Served, tmp_path: Path
) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    note = tmp_path / "oven.md"
    note.write_text(NOTE, "utf-8")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        expect = sync_api.expect
        expect.set_options(timeout=HANG_MS)

        def shot(name: str) -> None:
            page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

        try:
            page.goto(app_url, timeout=HANG_MS)
            expect(page.locator("#model-status")).to_contain_text("Ready")
            if QWEN.exists():
                expect(page.locator("#first-start-text")).to_contain_text("qwen2.5-coder-0.5b-instruct")
                expect(page.locator("#first-start-use")).to_be_visible()
                shot("00-first-start-hint")
                page.reload()
                expect(page.locator("#model-status")).to_contain_text("Ready")
                expect(page.locator("#first-start-use")).to_be_hidden()  # said once
            page.get_by_role("tab", name="Knowledge").click()
            page.locator("#new-collection textarea, #new-collection input").first.fill("baking")
            page.locator("#create-collection").click()
            expect(page.locator("#collections")).to_contain_text("baking")
            page.locator("#upload-files input[type=file]").set_input_files(str(note))
            expect(page.locator("#collections")).to_contain_text("1 file")
            assert served.requests == []  # nothing asked the server while Settings was closed

            # 1. Opening Settings lists the served model with its facts, and the GGUF on disk.
            page.get_by_role("tab", name="Settings").click()
            expect(page.locator("#local-models-message")).to_contain_text("Found")
            row = page.locator(".kimas-local-model", has_text=CHAT_MODEL)
            expect(row).to_contain_text("Q4_K_M")
            expect(row).to_contain_text("131,072 tokens of context")
            on_disk = page.locator(".kimas-local-model", has_text="SmolLM2-135M-Instruct-Q4_1")
            expect(on_disk).to_contain_text("LM Studio folder")
            shot("01-models-on-this-computer")

            # 2. One click uses it: loaded, then ready, marked in use.
            row.get_by_role("button", name="Use").click()
            expect(page.locator("#local-use-message")).to_contain_text(f"Loading {CHAT_MODEL}")
            status = page.locator("#settings-model-status")
            expect(status).to_contain_text(f"Ready: chat model {CHAT_MODEL} at {served.base}/v1")
            expect(row).to_contain_text("in use")
            shot("02-in-use")

            # 3. Ask: the served model writes the answer and the trace names it.
            page.get_by_role("tab", name="Chat").click()
            question = page.locator("#question textarea, #question input").first
            question.fill(QUESTION)
            question.press("Enter")
            chat = page.locator("#chatbot")
            expect(chat).to_contain_text("How this answer was made")
            expect(chat).to_contain_text(ANSWER)  # the served model's words
            title = chat.get_by_text("How this answer was made").first
            open_until_visible(title, chat.get_by_text("Written by:").first)
            expect(chat).to_contain_text(f"Written by: openai/{CHAT_MODEL}")
            shot("03-answer")
        except Exception:
            shot("failure")
            raise
        finally:
            browser.close()
    assert served.chats() and {c["model"] for c in served.chats()} == {CHAT_MODEL}
