"""Issue 71, as a user in Debian's Chromium: the real app with the real embedded models while llama.cpp is
still compiling beside it. A question gets the quote and its sources in the model's place ("Your documents
say: …"), and the page says the chat model is being prepared; when the build says it is done, the page
says the model is ready with no restart and no reload. The loaded model is the embedded one, which writes
no answer of its own (issue 69): the same question gets the quote, and the page says once why; Regenerate
lets it write.

The app runs through a small launcher (the rig, like the fake compiler of ``tests/test_install_llama_build.py``):
``local_models.llama_installed`` answers from a flag file the test creates when "the build" has installed
llama.cpp, and the app follows a status file in the test's folder rather than the venv's. Everything else is
the product: ``launch.py``, the stand-in chat model, the status line, the real SmolLM2 once "installed".
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui.outside import outside_requests
from tests.ui.patience import HANG_MS, wait_for_page
from tests.ui.test_browser import CHROMIUM, FACT_PAGE_1, FACT_PAGE_2, NOTES, QUESTION, _free_port, _pdf

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / "test-artifacts" / "browser-while-llama-builds"

LAUNCHER = """
import runpy, sys
from pathlib import Path
flag, status = Path(sys.argv.pop(1)), Path(sys.argv.pop(1))
import local_models
local_models.llama_installed = flag.exists  # what build_chat_model asks: is llama.cpp installed now?
from app.desktop import DesktopApp
from app.runtime import Runtime
from app.settings.config_store import ConfigStore
import cli.serve_cmd as serve
serve.build_app = lambda paths, config: DesktopApp(
    Runtime(paths, config), ConfigStore(paths.config_file, config), status
)
sys.argv[0] = "launch.py"
runpy.run_path("launch.py", run_name="__main__")
"""


def write_status(path: Path, state: str, **fields: object) -> None:
    data = {"state": state, "pid": os.getpid(), "started": time.time(), "updated": time.time()}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({**data, "log": str(path.with_suffix(".log")), **fields}), "utf-8")
    tmp.replace(path)


@contextlib.contextmanager
def app_while_building(tmp: Path, flag: Path, status: Path) -> Iterator[str]:
    port, log = _free_port(), ARTIFACTS / "server.log"
    launcher = tmp / "launch_while_building.py"
    launcher.write_text(LAUNCHER, "utf-8")
    env = {
        **os.environ,
        "GRADIO_ANALYTICS_ENABLED": "False",
        "PYTHONUNBUFFERED": "1",
        "PYTHONPATH": str(ROOT),
    }
    args = [sys.executable, str(launcher), str(flag), str(status), "--port", str(port)]
    with log.open("w") as out:
        proc = subprocess.Popen(
            [*args, "--data-dir", str(tmp / "data")], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env
        )
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_for_page(proc, url, log)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def test_a_question_while_llama_cpp_builds_gets_the_quote_and_after_the_build_the_models_answer(
    tmp_path: Path,
) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    docs = tmp_path / "handbook"
    docs.mkdir()
    (docs / "notes.md").write_text(NOTES, "utf-8")
    _pdf(docs / "heliotrope.pdf", [FACT_PAGE_1, FACT_PAGE_2])
    flag, status = tmp_path / "llama-installed", tmp_path / "kimas-llama-build.json"
    write_status(status, "compiling", step=60, steps=193, left_s=300.0)
    expect = sync_api.expect
    expect.set_options(timeout=HANG_MS)
    with app_while_building(tmp_path, flag, status) as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.set_default_timeout(HANG_MS)
        external = outside_requests(page)
        try:
            page.goto(url)
            status_line = page.locator("#model-status")
            expect(status_line).to_contain_text("Preparing the chat model")
            expect(status_line).to_contain_text("31% done")
            page.get_by_role("tab", name="Knowledge").click()
            page.locator("#new-collection textarea, #new-collection input").first.fill("handbook")
            page.locator("#create-collection").click()
            expect(page.locator("#collections")).to_contain_text("handbook")
            page.locator("#upload-folder input[type=file]").set_input_files(str(docs))
            expect(page.locator("#collections")).to_contain_text("2 files")
            expect(page.locator("#index-progress [data-state=idle]")).to_be_visible()

            # While the build runs: the quote, its sources, and the notice; the model writes nothing.
            page.get_by_role("tab", name="Chat").click()
            question = page.locator("#question textarea, #question input").first
            question.fill(QUESTION)
            question.press("Enter")
            chat = page.locator("#chatbot")
            expect(chat.locator(".kimas-quotes").first).to_contain_text("PURPLE-OTTER-42")
            cited = chat.locator("details.kimas-citation summary", has_text="heliotrope.pdf")
            expect(cited.first).to_be_visible()
            expect(chat).to_contain_text("How this answer was made")  # the answer is complete
            expect(chat).to_contain_text("Your documents say")  # the quote in the model's place
            expect(status_line).to_contain_text("Preparing the chat model")
            page.screenshot(path=str(ARTIFACTS / "01-quote-while-building.png"), full_page=True)

            # The build installs llama.cpp and says so: the model loads, no reload of the page.
            flag.touch()
            write_status(status, "done")
            expect(status_line).to_contain_text("Ready")
            page.get_by_role("button", name="New chat").click()
            question.fill(QUESTION)
            question.press("Enter")
            expect(chat.locator(".kimas-quotes").first).to_contain_text("PURPLE-OTTER-42")
            expect(chat).to_contain_text("How this answer was made")
            expect(cited.first).to_be_visible()
            # The loaded model is the embedded one, which writes no answer of its own (issue 69): the quote
            # is the answer, not repeated as text, and the chat says so once.
            expect(chat).to_contain_text("choose a bigger model in Settings")
            assert "Your documents say" not in chat.inner_text()
            page.screenshot(path=str(ARTIFACTS / "02-model-after-build.png"), full_page=True)
            # Regenerate lets it write, as the user asked: the quote answer moves to the earlier answers.
            page.locator("#regenerate").click()
            expect(chat.locator(".kimas-earlier").first).to_be_visible()
            expect(chat).to_contain_text("How this answer was made")
            expect(chat).not_to_contain_text("choose a bigger model in Settings")
            page.screenshot(path=str(ARTIFACTS / "03-model-writes-on-regenerate.png"), full_page=True)
            assert not external, f"the page made requests beyond 127.0.0.1: {external}"
        finally:
            with contextlib.suppress(Exception):
                page.screenshot(path=str(ARTIFACTS / "99-last.png"), full_page=True)
            browser.close()
