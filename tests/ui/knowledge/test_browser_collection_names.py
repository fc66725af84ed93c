"""End to end at 1366×768, as a new user on a laptop (issue 46): the question box is in view without
scrolling the page on first launch and after an answer with its quote, sources and trace; a collection
named "研究资料 2026" is created, renamed and stops watching one of its two folders (its file leaves the
collection, the other stays); a refused name stays in its field with the reason beside it. The real app
(real embedded models) in headless Chromium; screenshots go to ``test-artifacts/browser/``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.patience import HANG_MS
from tests.ui.test_browser import ARTIFACTS, CHROMIUM, App, app  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LAPTOP = {"width": 1366, "height": 768}
NAME = "研究资料 2026"
RENAMED = "Forschung & 研究 2027"


def _fits(page: object) -> None:
    """The question box is in the window and the page itself does not scroll."""
    from playwright.sync_api import expect

    expect(page.locator("#question textarea").first).to_be_in_viewport(ratio=1)  # type: ignore[attr-defined]
    high, window = page.evaluate(  # type: ignore[attr-defined]
        "[document.documentElement.scrollHeight, window.innerHeight]"
    )
    assert high <= window + 1, (high, window)


def test_a_laptop_screen_and_a_collection_named_in_any_text(app: App, tmp_path: Path) -> None:  # noqa: F811
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    kept, dropped = tmp_path / "kept", tmp_path / "dropped"
    for folder, text in ((kept, "The harbour ferry leaves at nine."), (dropped, "The tram depot is red.")):
        folder.mkdir()
        (folder / f"{folder.name}.md").write_text(f"# {folder.name}\n\n{text}\n", "utf-8")

    def shot(page: object, name: str) -> None:
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"))  # type: ignore[attr-defined]

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport=LAPTOP)
        page.set_default_timeout(HANG_MS)
        expect = sync_api.expect
        expect.set_options(timeout=HANG_MS)
        message = page.locator("#knowledge-message")
        listed = page.locator("#collections")
        try:
            page.goto(app.url)
            _fits(page)
            shot(page, "46-1366-first-launch")

            page.get_by_role("tab", name="Knowledge").click()
            new_name = page.locator("#new-collection textarea, #new-collection input").first
            new_name.fill(NAME)
            page.locator("#create-collection").click()
            expect(message).to_contain_text(f"Collection '{NAME}' created")
            expect(listed).to_contain_text(NAME)
            expect(page.locator("#collection-select input")).to_have_value(NAME)
            new_name.fill(f" {NAME} ")
            page.locator("#create-collection").click()
            expect(message).to_contain_text(f"⚠ There is already a collection named '{NAME}'")
            expect(new_name).to_have_value(f" {NAME} ")  # refused: the field keeps what was typed

            for folder in (kept, dropped):
                page.locator("#folder-path textarea, #folder-path input").first.fill(str(folder))
                page.locator("#add-folder").click()
                expect(message).to_contain_text(f"Watching {folder} for '{NAME}'")
            expect(listed).to_contain_text("2 files ·", timeout=HANG_MS)

            page.locator("#collection-naming").get_by_text("Rename, or stop watching a folder").click()
            page.locator("#rename-collection-name textarea, #rename-collection-name input").first.fill(
                RENAMED
            )
            page.locator("#rename-collection").click()
            expect(message).to_contain_text(f"Collection '{NAME}' is now named '{RENAMED}'")
            expect(listed).to_contain_text(RENAMED)
            expect(listed).not_to_contain_text(NAME)
            expect(page.locator("#collection-select input")).to_have_value(RENAMED)

            page.locator("#watched-folders input").click()
            page.get_by_role("option", name=str(dropped)).click()
            page.locator("#unwatch-folder").click()
            expect(message).to_contain_text(f"No longer watching {dropped} for '{RENAMED}'")
            expect(listed).to_contain_text("1 file ·", timeout=HANG_MS)
            expect(listed).not_to_contain_text(str(dropped))
            expect(listed).to_contain_text(str(kept))
            assert (dropped / "dropped.md").exists()
            shot(page, "46-1366-collection-renamed-unwatched")

            page.get_by_role("tab", name="Chat").click()
            question = page.locator("#question textarea").first
            question.fill("When does the harbour ferry leave?")
            question.press("Enter")
            chat = page.locator("#chatbot")
            expect(chat.get_by_text("How this answer was made")).to_have_count(1, timeout=HANG_MS)
            expect(chat).not_to_contain_text("Writing the answer", timeout=HANG_MS)
            _fits(page)
            shot(page, "46-1366-after-an-answer")
        except Exception:
            shot(page, "46-1366-failure")
            raise
        finally:
            browser.close()
