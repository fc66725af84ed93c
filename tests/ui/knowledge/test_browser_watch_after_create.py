"""Issue 46 in the browser: a name typed, "Create" and "Watch folder" clicked at once (before the create's
choice reaches the page) puts the folder into the new collection, not into a "documents" collection the
user never made. The real app in headless Chromium; a screenshot goes to ``test-artifacts/browser/``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.patience import HANG_MS
from tests.ui.test_browser import ARTIFACTS, CHROMIUM, App, app  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Both clicks in one script: the Watch click reads the page as it is before the create's reply.
BOTH_CLICKS = "() => { document.querySelector('#create-collection').click(); document.querySelector('#add-folder').click(); }"


def test_watch_clicked_with_create_goes_into_the_new_collection(app: App, tmp_path: Path) -> None:  # noqa: F811
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    folder = tmp_path / "field"
    folder.mkdir()
    (folder / "heron.md").write_text("# Heron\n\nThe heron nests by the weir.\n", "utf-8")

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.set_default_timeout(HANG_MS)
        expect = sync_api.expect
        expect.set_options(timeout=HANG_MS)
        try:
            page.goto(app.url)
            page.get_by_role("tab", name="Knowledge").click()
            expect(page.locator("#document-list")).to_contain_text("Choose a collection")
            page.locator("#folder-path input, #folder-path textarea").first.fill(str(folder))
            page.locator("#new-collection input, #new-collection textarea").first.fill("研究资料")
            expect(page.locator("#collection-select input")).to_have_value("")
            page.evaluate(BOTH_CLICKS)
            expect(page.locator("#knowledge-message")).to_contain_text("for '研究资料'")
            expect(page.locator("#collection-select input")).to_have_value("研究资料")
            expect(page.locator("#document-list tbody tr")).to_have_count(1)
            page.locator("#collection-select input").click()
            expect(page.get_by_role("option")).to_have_count(1)  # no "documents" collection beside it
            expect(page.get_by_role("option")).to_contain_text("研究资料")
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "46-watch-after-create-failure.png"))
            raise
        finally:
            browser.close()
