"""End to end, as a user: the document manager in the real app (real embedded models) in headless Chromium.

Upload a folder whose two subfolders each hold a README.md, see both files listed with their subfolders,
see a file's card, remove one from the Knowledge tab's file list, and see it gone (list, collection counts, and its text no
longer found in chat while the other file's is); Settings' Restore defaults. Also: the drop
zones say what they take, and the remove-collection confirmation names the collection. Screenshots go to
``test-artifacts/browser/``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.patience import HANG_MS
from tests.ui.test_browser import ARTIFACTS, CHROMIUM, App, app  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_document_manager_removes_one_file(app: App, tmp_path: Path) -> None:  # noqa: F811
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    proj = tmp_path / "proj"
    for sub, word in (("alpha", "PERIWINKLE"), ("beta", "TANGERINE")):
        (proj / sub).mkdir(parents=True)
        (proj / sub / "README.md").write_text(f"# {sub}\n\nThe {sub} module is named {word}.\n", "utf-8")

    def shot(page: object, name: str) -> None:
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)  # type: ignore[attr-defined]

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 1400})
        page.set_default_timeout(HANG_MS)
        expect = sync_api.expect
        expect.set_options(timeout=HANG_MS)
        try:
            page.goto(app.url)
            page.get_by_role("tab", name="Knowledge").click()
            zone_text = page.evaluate(
                """() => getComputedStyle(document.querySelector('#upload-folder button .wrap'), '::after')
                       .content"""
            )
            assert "Drop a folder here" in zone_text, zone_text
            page.locator("#new-collection textarea, #new-collection input").first.fill("handbook")
            page.locator("#create-collection").click()
            expect(page.locator("#collections")).to_contain_text("handbook")
            page.locator("#upload-folder input[type=file]").set_input_files(str(proj))
            expect(page.locator("#knowledge-message")).to_contain_text("2 new file(s) copied into 'handbook'")
            expect(page.locator("#knowledge-message")).not_to_contain_text("Renamed")

            listing = page.locator("#document-list")
            expect(listing).to_contain_text("proj/alpha/README.md", timeout=HANG_MS)
            expect(listing).to_contain_text("proj/beta/README.md")
            expect(page.locator("#collections")).to_contain_text("2 files", timeout=HANG_MS)
            shot(page, "20-documents-listed")

            # The chosen file's card (its title, central sentences, outline) shows below the list.
            card = listing.locator(".kimas-doc-card")
            expect(card).to_contain_text("The alpha module is named PERIWINKLE.")
            page.locator("#document-select input").click()
            page.get_by_role("option", name="proj/beta/README.md").click()
            expect(card).to_contain_text("The beta module is named TANGERINE.")
            expect(card).to_contain_text("Outline (1 heading)")
            shot(page, "20b-document-card")

            page.locator("#document-select input").click()
            page.get_by_role("option", name="proj/alpha/README.md").click()
            page.locator("#remove-document").click()
            expect(page.locator("#knowledge-message")).to_contain_text("'proj/alpha/README.md' removed")
            expect(listing).not_to_contain_text("proj/alpha/README.md")
            expect(listing).to_contain_text("proj/beta/README.md")
            expect(page.locator("#collections")).to_contain_text("1 file ·")
            assert not (app.data_dir / "uploads" / "handbook" / "proj" / "alpha").exists()
            shot(page, "21-document-removed")

            # The removed file's text is no longer found; the other file's still is.
            page.get_by_role("tab", name="Chat").click()
            question = page.locator("#question textarea, #question input").first
            chat = page.locator("#chatbot")
            question.fill("What is the beta module named?")
            question.press("Enter")
            expect(chat).to_contain_text("TANGERINE", timeout=HANG_MS)  # the grounded quote
            expect(chat).not_to_contain_text("Writing the answer", timeout=HANG_MS)
            expect(chat.get_by_text("How this answer was made")).to_have_count(1, timeout=HANG_MS)
            expect(question).to_have_value("")  # the first submit's clearing of the box has arrived
            question.fill("What is the alpha module named?")
            question.press("Enter")
            expect(chat).to_contain_text("What is the alpha module named?")
            expect(chat).not_to_contain_text("Writing the answer", timeout=HANG_MS)
            expect(chat.get_by_text("How this answer was made")).to_have_count(2, timeout=HANG_MS)
            assert "PERIWINKLE" not in chat.inner_text()
            shot(page, "21b-removed-file-not-retrieved")

            # Settings drift: a custom change shows as "custom"; Restore defaults brings the preset back.
            page.get_by_role("tab", name="Settings").click()
            page.locator("#preset").get_by_text("turbo", exact=True).click()
            page.locator("#restore-defaults").click()
            expect(page.get_by_text("Default settings restored")).to_be_visible()
            expect(page.locator("#preset input[value=full]")).to_be_checked()
            shot(page, "21c-restore-defaults")
            page.get_by_role("tab", name="Knowledge").click()

            page.locator("#remove").click()
            expect(page.locator("#confirm-remove")).to_contain_text("Yes, remove 'handbook' and its index")
            shot(page, "22-remove-collection-names-it")
        except Exception:
            shot(page, "2x-documents-failure")
            raise
        finally:
            browser.close()
