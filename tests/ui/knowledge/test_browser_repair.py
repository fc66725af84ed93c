"""End to end, as a user: a collection's chunks table is deleted while the app runs (issue 40, item 8).

The real app (``launch.py``, the real embedded models) in headless Chromium. Index a note, ask; delete the
chunks table's directory; ask again: the chat says the index was damaged and is being rebuilt (not
LanceDB's error), and the app rebuilds it. Delete it again and press Re-index in the Knowledge tab: the
next question is answered from the note. Screenshots go to ``test-artifacts/browser/``.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.ui.patience import HANG_MS, shows_or_fails
from tests.ui.test_browser import ARTIFACTS, CHROMIUM, App, app  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTE = "# Garden\n\nThe greenhouse key is kept under the blue watering can by the north door.\n"
QUESTION = "Where is the greenhouse key kept?"
FACT = "blue watering can"


def _delete_chunks_table(data_dir: Path) -> None:
    (chunks,) = (data_dir / "lancedb").glob("c_garden_*_chunks.lance")
    shutil.rmtree(chunks)


def test_a_deleted_chunks_table_is_explained_in_the_chat_and_rebuilt_from_the_app(
    app: App,  # noqa: F811
    tmp_path: Path,
) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "garden.md").write_text(NOTE, "utf-8")

    def shot(page: object, name: str) -> None:
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)  # type: ignore[attr-defined]

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 1200})
        page.set_default_timeout(HANG_MS)
        expect = sync_api.expect
        expect.set_options(timeout=HANG_MS)
        try:
            page.goto(app.url)
            page.get_by_role("tab", name="Knowledge").click()
            page.locator("#new-collection textarea, #new-collection input").first.fill("garden")
            page.locator("#create-collection").click()
            shows_or_fails(page, page.locator("#collections"), "garden", app.log)
            page.locator("#upload-folder input[type=file]").set_input_files(str(notes))
            shows_or_fails(page, page.locator("#collections"), "1 file", app.log)
            expect(page.locator("#index-progress [data-state=idle]")).to_be_visible(timeout=HANG_MS)
            indexed = page.locator("#activity li", has_text=re.compile(r"· 1 file indexed"))
            expect(indexed).to_have_count(1)

            # The note answers while its table is there.
            page.get_by_role("tab", name="Chat").click()
            question = page.locator("#question textarea, #question input").first
            chat = page.locator("#chatbot")
            made = chat.get_by_text("How this answer was made")
            question.fill(QUESTION)
            question.press("Enter")
            quoted = chat.locator(".kimas-quotes", has_text=FACT)  # the grounded quote of an answer
            expect(quoted).to_have_count(1, timeout=HANG_MS)
            expect(made).to_have_count(1, timeout=HANG_MS)
            shot(page, "40-repair-answered")

            # The chunks table goes while the app runs: the chat says so in words, and the app rebuilds it.
            _delete_chunks_table(app.data_dir)
            expect(question).to_have_value("")
            question.fill(QUESTION)
            question.press("Enter")
            expect(chat).to_contain_text("The index of collection 'garden' was damaged", timeout=HANG_MS)
            expect(chat).to_contain_text("it is being rebuilt from its files — ask again in a moment")
            assert "Lance" not in chat.inner_text() and "Something went wrong" not in chat.inner_text()
            shot(page, "41-repair-chat-message")
            page.get_by_role("tab", name="Knowledge").click()
            expect(page.locator("#activity")).to_contain_text(
                "Damaged index rebuilt: 1 file indexed", timeout=HANG_MS
            )
            shot(page, "42-repair-rebuilt")

            # Gone again; this time Re-index in the Knowledge tab rebuilds it.
            _delete_chunks_table(app.data_dir)
            page.locator("#reindex").click()
            expect(page.locator("#knowledge-message")).to_contain_text("Re-indexing 'garden'")
            expect(indexed).to_have_count(2, timeout=HANG_MS)  # read again: not "1 unchanged"
            expect(page.locator("#collections")).not_to_contain_text("Index damaged")
            shot(page, "43-repair-reindexed")

            page.get_by_role("tab", name="Chat").click()
            question.fill(QUESTION)
            question.press("Enter")
            expect(made).to_have_count(2, timeout=HANG_MS)
            expect(quoted).to_have_count(2)  # the first answer's quote, and this one's
            shot(page, "44-repair-answered-again")
        except Exception:
            shot(page, "4x-repair-failure")
            raise
        finally:
            browser.close()
