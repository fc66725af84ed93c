"""The Knowledge tab on a laptop screen (1366×768), as a new user opens it (issue 47): choosing or creating
a collection, dropping files or a folder, watching a folder and the collection's file list are all in the
window without scrolling the page, on first open and once a collection holds files; a file in the list
opens in the viewer page (``/kimas/view``), not as a raw file. The Evaluation tab's Run and the Settings
tab's Save are in the window on their first open. The real app (real embedded models) in
headless Chromium; screenshots go to ``test-artifacts/browser/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.ui.patience import HANG_MS
from tests.ui.test_browser import ARTIFACTS, CHROMIUM, App, app  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LAPTOP = {"width": 1366, "height": 768}
MAIN_CONTROLS = (
    "#collection-select input",
    "#new-collection input, #new-collection textarea",
    "#create-collection",
    "#upload-folder",
    "#upload-files",
    "#folder-path input, #folder-path textarea",
    "#add-folder",
    "#documents-filter",  # the file list's head: the list itself follows it
)


def _in_window(page: Any, selector: str) -> None:
    """``selector`` is drawn wholly inside the window (called once the page shows what it waits for: the
    layout is settled, so its boxes are read once, not waited on)."""
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not shown"
    inside = box["y"] >= 0 and box["y"] + box["height"] <= LAPTOP["height"] + 1
    assert inside and box["x"] >= 0 and box["x"] + box["width"] <= LAPTOP["width"] + 1, (selector, box)


def _in_window_without_scrolling(page: Any) -> None:
    """Every main control is wholly in the window, the page scrolled to its top (as a tab opens)."""
    assert page.evaluate("window.scrollY") == 0
    for selector in MAIN_CONTROLS:
        _in_window(page, selector)


def test_the_knowledge_tab_fits_a_laptop_screen(app: App, tmp_path: Path) -> None:  # noqa: F811
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    folder = tmp_path / "handbook"
    folder.mkdir()
    for name, text in (("ferry", "The harbour ferry leaves at nine."), ("tram", "The tram depot is red.")):
        (folder / f"{name}.md").write_text(f"# {name}\n\n{text}\n", "utf-8")

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport=LAPTOP)
        page.set_default_timeout(HANG_MS)
        expect = sync_api.expect
        expect.set_options(timeout=HANG_MS)
        try:
            page.goto(app.url)
            page.get_by_role("tab", name="Knowledge").click()
            expect(page.locator("#document-list")).to_contain_text("Choose a collection")
            _in_window_without_scrolling(page)
            _in_window(page, "#document-list p")
            page.screenshot(path=str(ARTIFACTS / "47-1366-knowledge-first-open.png"))

            page.locator("#new-collection input, #new-collection textarea").first.fill("Handbook")
            page.locator("#create-collection").click()
            expect(page.locator("#knowledge-message")).to_contain_text("Collection 'Handbook' created")
            expect(page.locator("#collection-select input")).to_have_value("Handbook")
            page.locator("#folder-path input, #folder-path textarea").first.fill(str(folder))
            page.locator("#add-folder").click()
            rows = page.locator("#document-list tbody tr")
            expect(rows).to_have_count(2)
            expect(page.locator("#document-list")).to_contain_text("2 files in Handbook")
            _in_window_without_scrolling(page)
            for i in range(2):
                _in_window(page, f"#document-list tbody tr:nth-child({i + 1})")
            page.screenshot(path=str(ARTIFACTS / "47-1366-knowledge-two-files.png"))

            link = page.locator("#document-list a", has_text="ferry.md")
            assert (link.get_attribute("href") or "").startswith("/kimas/view/")
            with page.context.expect_page() as opened:
                link.click()
            viewer = opened.value
            expect(viewer.locator("body")).to_contain_text("The harbour ferry leaves at nine.")
            viewer.close()

            # The other tabs' primary buttons are in the window on their first open too.
            page.get_by_role("tab", name="Evaluation").click()
            expect(page.locator("#eval-set")).to_contain_text("No test set yet")
            _in_window(page, "#eval-run")
            page.get_by_role("tab", name="Settings").click()
            expect(page.locator("#save-settings")).to_be_visible()
            _in_window(page, "#save-settings")
            page.screenshot(path=str(ARTIFACTS / "47-1366-settings-first-open.png"))
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "47-1366-knowledge-failure.png"))
            raise
        finally:
            browser.close()
