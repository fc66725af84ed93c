"""The Knowledge tab in a Chinese browser (issue 46): the drop zones' captions, the note under them, the
rename panel and the online sources form are Chinese like the tab's other labels, and so are the words the
server writes (the indexing progress line the timer refreshes, the file list's empty state, the source
picker's "(new source)" and the Try / Save / Remove outcomes; with a file uploaded, the collection's
summary, the file table, the file's card and the recent activity); in an English browser they stay
English. The real app on a fresh data dir in headless Chromium at 1366×768; screenshots go to
``test-artifacts/browser-zh-knowledge/``."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

import pytest

from tests.ui.patience import HANG_MS
from tests.ui.test_browser import CHROMIUM, ROOT, running_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts" / "browser-zh-knowledge"
LAPTOP = {"width": 1366, "height": 768}
CAPTION = "getComputedStyle(document.querySelector('#{} button .wrap'), '::after').content"


def _captions(page: Any) -> tuple[str, str]:
    return tuple(page.evaluate(CAPTION.format(zone)) for zone in ("upload-folder", "upload-files"))  # type: ignore[return-value]


def check_knowledge_in_chinese(
    url: str, browser: Any, expect: Any, note: Path, wait_ms: int = HANG_MS
) -> None:
    """What a zh-CN reader sees on the Knowledge tab (and an en-US one's captions); then ``note`` uploaded
    into a new collection, as each of them sees it."""
    page = browser.new_context(locale="zh-CN", viewport=LAPTOP).new_page()
    try:
        page.goto(url, timeout=HANG_MS)
        page.get_by_role("tab", name="知识库").click()
        expect(page.locator("#upload-files")).to_be_visible()
        page.wait_for_function(
            "getComputedStyle(document.querySelector('#upload-files button .wrap'), '::after')"
            ".content.includes('把文件拖到这里')",
            timeout=wait_ms,
        )
        folder, files = _captions(page)
        assert "把文件夹拖到这里" in folder and "子文件夹" in folder, folder
        assert "把文件拖到这里" in files, files
        expect(page.locator("#knowledge-right")).to_contain_text("复制到 KIMAs 的数据文件夹")
        naming = page.locator("#collection-naming")
        expect(naming).to_contain_text("重命名，或停止监视某个文件夹")
        naming.get_by_text("重命名，或停止监视某个文件夹").click()
        expect(naming).to_contain_text("新名称")
        expect(naming).to_contain_text("原位监视的文件夹")
        expect(page.locator("#rename-collection")).to_have_text("重命名")
        expect(page.locator("#unwatch-folder")).to_have_text("停止监视")
        documents = page.locator("#documents")  # the files pane and its actions
        expect(documents).to_contain_text("所选知识库中的文件")
        expect(page.locator("#remove-document")).to_have_text("从知识库中移除")
        expect(page.locator("#reindex-document")).to_have_text("重新索引文件")
        expect(documents).to_contain_text("忽略的问题不再提醒")
        expect(page.locator("#document-select")).to_contain_text("文件")  # the picker's label
        expect(page.locator("#online-sources")).to_contain_text("在线来源")
        expect(page.locator("#collections")).to_contain_text("还没有知识库")  # the data dir is empty
        expect(page.locator("#documents-filter")).to_contain_text("仅显示有问题的文件")
        for english in (
            "Files in the selected collection",
            "Remove from collection",
            "Re-index file",
            "Problems",
        ):
            assert english not in documents.inner_text(), english
        sources = page.locator("#online-sources")  # the online sources form, opened
        sources.get_by_text("在线来源（网络搜索、HTTP API）").click()
        for chinese in (
            "在你启用之前是关闭的",
            "名称",
            "何时询问",
            "当我的文档无法回答时",
            "每个问题读取的网页数",
        ):
            expect(sources).to_contain_text(chinese)
        expect(page.locator("#source-save")).to_have_text("保存来源")
        expect(page.locator("#source-try")).to_have_text("试试")
        for english in (
            "Ask it",
            "Pages read per question",
            "when my documents do not answer",
            "off until you",
        ):
            assert english not in sources.inner_text(), english
        # the words the server writes: they follow the browser's Accept-Language
        expect(page.locator("#index-progress")).to_contain_text("空闲：所有知识库都是最新的")  # the timer's
        expect(page.locator("#document-list")).to_contain_text("选择一个知识库以查看其中的文件")
        picker = page.locator("#source-select input")
        expect(picker).to_have_value("（新来源）")
        expect(page.locator("#source-kind input")).to_have_value("SearXNG 实例（JSON API）")
        page.locator("#source-try").click()  # no query: refused before anything is asked
        expect(page.locator("#source-results")).to_contain_text("来源出错")
        page.locator("#source-remove").click()  # no source chosen
        expect(page.locator("#source-message")).to_contain_text("请先选择一个来源")
        page.locator("#source-name textarea, #source-name input").first.fill("wiki")
        page.locator("#source-save").click()  # no address yet
        expect(page.locator("#source-message")).to_contain_text("未保存。")
        page.locator("#source-url textarea, #source-url input").first.fill("http://127.0.0.1:8888")
        page.locator("#source-save").click()  # off: nothing is asked
        expect(page.locator("#source-message")).to_contain_text("已保存 wiki（未启用）")
        expect(page.locator("#source-message")).to_contain_text("在你启用之前，不会有任何问题离开这台电脑")
        expect(picker).to_have_value("wiki（未启用）")
        name = page.locator("#source-name textarea, #source-name input").first
        for chosen, shown in (("（新来源）", ""), ("wiki（未启用）", "wiki")):  # the form follows the pick
            picker.click()
            page.get_by_role("option", name=chosen).click()
            expect(name).to_have_value(shown)
        page.locator("#source-remove").click()
        expect(page.locator("#source-message")).to_contain_text("已删除 wiki")
        expect(picker).to_have_value("（新来源）")
        expect(name).to_have_value("")  # the form of a new source
        for english in ("Idle", "Choose a collection", "Saved", "Not saved", "Removed", "The source failed"):
            assert english not in page.locator("#knowledge-main").inner_text(), english
        for side in ("#knowledge-left", "#knowledge-right"):  # a key Gradio's own table also has
            assert "[object Object]" not in page.locator(side).inner_text(), side
        right = page.locator("#knowledge-right").inner_text()
        for english in ("Drop a whole folder", "Rename", "Stop watching", "Folder watched", "New name"):
            assert english not in right, (english, right)
    finally:
        with contextlib.suppress(Exception):
            page.screenshot(path=str(ARTIFACTS / "zh-knowledge.png"), full_page=True)
    english = browser.new_context(locale="en-US", viewport=LAPTOP).new_page()
    english.goto(url, timeout=HANG_MS)
    english.get_by_role("tab", name="Knowledge").click()
    english.wait_for_function(
        "getComputedStyle(document.querySelector('#upload-files button .wrap'), '::after')"
        ".content.includes('Drop files here')",
        timeout=wait_ms,
    )
    assert re.search("subfolders are kept", _captions(english)[0])
    expect(english.locator("#collection-naming")).to_contain_text("Rename, or stop watching a folder")
    expect(english.locator("#document-select")).to_contain_text("File")
    expect(english.locator("#collections")).to_contain_text("No collections yet")
    expect(english.locator("#documents-filter")).to_contain_text("Problems only")
    assert "[object Object]" not in english.locator("#knowledge-left").inner_text()
    english_sources = english.locator("#online-sources")
    english_sources.get_by_text("Online sources (web search, HTTP APIs)").click()
    expect(english_sources).to_contain_text("when my documents do not answer")
    expect(english.locator("#source-save")).to_have_text("Save source")
    expect(english.locator("#index-progress")).to_contain_text("Idle: all collections are up to date.")
    expect(english.locator("#document-list")).to_contain_text("Choose a collection to see its files.")
    expect(english.locator("#source-select input")).to_have_value("(new source)")
    expect(english.locator("#source-kind input")).to_have_value("SearXNG instance (JSON API)")
    english.locator("#source-remove").click()
    expect(english.locator("#source-message")).to_contain_text("Choose a source first.")
    try:
        _check_a_file_in_chinese(page, expect, note)
    finally:
        with contextlib.suppress(Exception):
            page.screenshot(path=str(ARTIFACTS / "zh-knowledge-file.png"), full_page=True)
    collections = english.locator("#collections")  # the same collection, in the English page's words
    expect(collections).to_contain_text("1 file · ")
    expect(collections).to_contain_text("(uploaded files)")
    listing = english.locator("#document-list")
    expect(listing).to_contain_text("1 file in 手册")
    for words in ("Last indexed", "✓ indexed", "(uploaded)", "(document card", "Outline (1 heading)"):
        expect(listing).to_contain_text(words)
    expect(english.locator("#activity")).to_contain_text("Recent activity")


def _check_a_file_in_chinese(page: Any, expect: Any, note: Path) -> None:
    """A new collection, then ``note`` uploaded into it: the summary, the file table, the card and the
    activity the server writes are Chinese."""
    collections = page.locator("#collections")
    page.locator("#new-collection textarea, #new-collection input").first.fill("手册")
    page.locator("#create-collection").click()
    expect(collections).to_contain_text("尚未索引 · 最近更新 从未")
    expect(collections).to_contain_text("文件夹：暂无")
    page.locator("#upload-files input[type=file]").set_input_files(str(note))
    listing = page.locator("#document-list")
    expect(listing).to_contain_text("手册：1 个文件")
    for chinese in (
        "文件",
        "状态",
        "片段",
        "最近索引",
        "✓ 已索引",
        "（已上传）",
        "文档卡片",
        "大纲（1 个标题）",
    ):
        expect(listing).to_contain_text(chinese)
    expect(collections).to_contain_text("1 个文件 · ")
    for chinese in ("个片段 · 嵌入模型", "最近更新 20", "文件夹：", "（上传的文件）"):
        expect(collections).to_contain_text(chinese)
    expect(page.locator("#activity")).to_contain_text("最近的活动")
    shown = {
        side: page.locator(side).inner_text() for side in ("#collections", "#document-list", "#activity")
    }
    for english in ("file", "chunk", "Folders", "embedding model", "last update", "never", "**"):
        assert english not in shown["#collections"], (english, shown["#collections"])
    for english in ("Status", "Chunks", "Last indexed", "✓ indexed", "uploaded", "document card", "Outline"):
        assert english not in shown["#document-list"], (english, shown["#document-list"])
    assert "Recent activity" not in shown["#activity"], shown["#activity"]


def test_the_knowledge_tab_speaks_chinese_to_a_chinese_browser(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    note = tmp_path / "garden.md"  # no English word the checks look for
    note.write_text("# Garden\n\nThe tomatoes are picked on Thursdays by Robin.\n", "utf-8")
    with running_app(tmp_path / "data", ARTIFACTS) as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        sync_api.expect.set_options(timeout=HANG_MS)
        try:
            check_knowledge_in_chinese(url, browser, sync_api.expect, note)
        finally:
            browser.close()
