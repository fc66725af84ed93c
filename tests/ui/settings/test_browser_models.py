"""End to end, as a user: pick a better chat model in Settings, download it, switch to it, ask.

The real app (``launch.py`` with the real embedded models) runs against a hub-layout server on
127.0.0.1 (``HF_ENDPOINT``; tests/local_models/hub_server.py). The server serves the real SmolLM2 GGUF
under the name of a catalog chat model that has no hash in the catalog; the server publishes the served
file's SHA-256 as the hub does, so the download is checked against it and shows as verified. It is
throttled so the progress is visible. Screenshots of every
step go to ``test-artifacts/browser-models/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from local_models.catalog.catalog import load_catalog
from tests.local_models import hub_server as hub_module
from tests.local_models.catalog.test_download import _gguf
from tests.ui.patience import HANG_MS
from tests.ui.test_browser import CHROMIUM, ROOT, running_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts" / "browser-models"
FACT = "# Greenhouse\n\nThe greenhouse door code is LILAC-HERON-77.\n"
QUESTION = "What is the greenhouse door code?"


def _stand_in() -> Any:
    """The first downloadable catalog chat model without a published hash."""
    for entry in load_catalog():
        if entry.role == "chat" and not entry.embedded and not entry.verified:
            return entry
    pytest.skip("every catalog chat model has a published hash: the SmolLM2 bytes cannot stand in")


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Any]]:
    entry = _stand_in()
    hub_module.throttle(monkeypatch, 0.02)  # about 12 MB/s: a 98 MB file takes some 8 s, long enough to watch
    with hub_module.hub_server({f"{entry.repo}/{entry.files[0]}": _gguf()}) as (url, _state):
        yield url, entry


@pytest.fixture
def app_url(tmp_path: Path, hub: tuple[str, Any]) -> Iterator[str]:
    with running_app(tmp_path / "data", ARTIFACTS, {"HF_ENDPOINT": hub[0]}) as url:
        yield url


def test_download_a_catalog_model_switch_to_it_and_ask(
    app_url: str, hub: tuple[str, Any], tmp_path: Path
) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    _, entry = hub
    notes = tmp_path / "greenhouse.md"
    notes.write_text(FACT, "utf-8")

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 1100})
        expect = sync_api.expect
        expect.set_options(timeout=HANG_MS)

        def shot(name: str) -> None:
            page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

        try:
            page.goto(app_url, timeout=HANG_MS)
            expect(page.locator("#model-status")).to_contain_text("Ready", timeout=HANG_MS)

            # Knowledge to ask about.
            page.get_by_role("tab", name="Knowledge").click()
            page.locator("#new-collection textarea, #new-collection input").first.fill("garden")
            page.locator("#create-collection").click()
            expect(page.locator("#collections")).to_contain_text("garden")
            page.locator("#upload-files input[type=file]").set_input_files(str(notes))
            expect(page.locator("#collections")).to_contain_text("1 file", timeout=HANG_MS)

            # 1. Settings shows the catalog: per role, size, RAM, what fits, installed or not.
            page.get_by_role("tab", name="Settings").click()
            catalog = page.locator("#model-catalog")
            expect(catalog).to_contain_text("Chat models")
            expect(catalog).to_contain_text("Embedding models")
            expect(catalog).to_contain_text("GB of RAM")
            row = catalog.locator(f"tr[data-model='{entry.name}']")
            expect(row).to_contain_text("not installed")
            expect(catalog.locator("tr[data-model='smollm2-135m-instruct']")).to_contain_text("in use")
            shot("01-catalog")

            # 2. Download it from the local hub server and watch the progress.
            pick = page.locator("#model-pick input")
            pick.click()
            pick.fill(entry.title)
            page.get_by_role("option", name=entry.title).first.click()
            page.locator("#download-model").click()
            downloads = page.locator("#model-downloads")
            expect(downloads.locator("[data-phase=downloading]")).to_contain_text(" of ", timeout=15_000)
            expect(downloads).to_contain_text("MB/s")
            expect(downloads).to_contain_text("left")
            shot("02-downloading")
            expect(downloads.locator("[data-phase=done]")).to_be_visible(timeout=HANG_MS)
            expect(row).to_contain_text("installed")
            expect(row).not_to_contain_text("unverified")  # checked against the hub's published SHA-256
            shot("03-downloaded")

            # 3. Switch to it: a visible loading state, then ready with the new file, saved.
            page.locator("#use-model").click()
            status = page.locator("#settings-model-status")
            expect(status).to_contain_text("Loading")
            shot("04-loading")
            expect(status).to_contain_text("Ready", timeout=HANG_MS)
            expect(status).to_contain_text(entry.files[0])
            expect(row).to_contain_text("in use", timeout=HANG_MS)
            shot("05-switched")

            # 4. Ask: the answer comes with the new model.
            page.get_by_role("tab", name="Chat").click()
            expect(page.locator("#model-status")).to_contain_text(entry.files[0])
            question = page.locator("#question textarea, #question input").first
            question.fill(QUESTION)
            question.press("Enter")
            expect(page.locator("#chatbot")).to_contain_text(QUESTION)
            citation = page.locator("#chatbot details.kimas-citation summary", has_text="greenhouse.md")
            expect(citation.first).to_be_visible(timeout=HANG_MS)
            expect(page.locator("#chatbot")).to_contain_text("LILAC-HERON-77")
            # The model has written its answer once the trace is there (the last message of a turn).
            expect(page.locator("#chatbot")).to_contain_text("How this answer was made", timeout=HANG_MS)
            bot = page.locator("#chatbot .message.bot, #chatbot [data-testid=bot]").first.inner_text()
            assert "Checking whether" not in bot and "Writing the answer" not in bot, bot
            shot("06-answer")
        except Exception:
            shot("failure")
            raise
        finally:
            browser.close()
