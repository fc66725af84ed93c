"""The language of the app's own words, chosen in Settings over the browser's (issue 42): saved as
``[ui] language`` and applied, in place, to the tables Gradio serves with each page; in a browser whose
language is English, 简体中文 turns the tabs Chinese after the reload, and Automatic turns them back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kimas_desktop.config import load_config
from tests.rigs import make_rig
from tests.ui.patience import HANG_MS
from tests.ui.test_browser import CHROMIUM, ROOT, running_app
from ui.i18n import I18N, apply_language, new_i18n
from ui.settings.language_view import choose

ARTIFACTS = ROOT / "test-artifacts" / "browser-language"


@pytest.fixture
def served_tables() -> Iterator[dict[str, dict[str, str]]]:
    """The app's own tables (``I18N``), back to the browser's language afterwards."""
    yield I18N.translations_dict
    apply_language(I18N, "auto")


def test_each_choice_sets_every_locales_words_in_place() -> None:
    i18n = new_i18n()
    tables = i18n.translations_dict
    assert (tables["en"]["tab_chat"], tables["zh-CN"]["tab_chat"]) == ("Chat", "对话")  # the browser's
    apply_language(i18n, "zh-CN")
    assert i18n.translations_dict is tables  # the very dict Gradio serves with each page
    assert {tables[locale]["tab_settings"] for locale in ("en", "zh-CN", "zh")} == {"设置"}
    apply_language(i18n, "en")
    assert {tables[locale]["new_chat"] for locale in ("en", "zh-CN", "zh")} == {"New chat"}
    apply_language(i18n, "auto")
    assert (tables["en"]["send"], tables["zh"]["send"]) == ("Send", "发送")


def test_the_choice_is_saved_in_config_and_served(
    tmp_path: Path, served_tables: dict[str, dict[str, str]]
) -> None:
    desk = make_rig(tmp_path).session
    assert desk.config.ui.language == "auto"
    assert "reloads" in choose(desk, "zh-CN")
    assert load_config(desk.config_path).ui.language == "zh-CN"
    assert served_tables["en"]["tab_knowledge"] == "知识库"
    said = choose(desk, "fr")
    assert said.startswith("⚠"), said
    assert load_config(desk.config_path).ui.language == "zh-CN" and served_tables["en"]["send"] == "发送"
    choose(desk, "auto")
    assert load_config(desk.config_path).ui.language == "auto" and served_tables["en"]["send"] == "Send"


@pytest.mark.browser
@pytest.mark.slow
def test_an_english_browser_shows_chinese_labels_once_chosen_and_back(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    with running_app(tmp_path / "data", ARTIFACTS) as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_context(locale="en-US", viewport={"width": 1366, "height": 768}).new_page()
        expect = sync_api.expect
        expect.set_options(timeout=HANG_MS)
        try:
            page.goto(url, timeout=HANG_MS)
            expect(page.get_by_role("tab", name="Chat")).to_be_visible()
            page.get_by_role("tab", name="Settings").click()
            page.locator("#ui-language").get_by_text("简体中文").click()
            expect(page.get_by_role("tab", name="对话")).to_be_visible()  # after the reload
            expect(page.get_by_role("tab", name="知识库")).to_be_visible()
            assert load_config(tmp_path / "data" / "config.toml").ui.language == "zh-CN"
            page.get_by_role("tab", name="设置").click()
            expect(page.locator("#ui-language input[value='zh-CN']")).to_be_checked()
            expect(page.locator("#ui-language")).to_contain_text("应用的语言")
            page.screenshot(path=str(ARTIFACTS / "01-chinese.png"), full_page=False)
            # "Automatic", said in the page's language
            page.locator("#ui-language").get_by_text("自动", exact=True).click()
            expect(page.get_by_role("tab", name="Chat")).to_be_visible()
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "failure.png"), full_page=True)
            raise
        finally:
            browser.close()
