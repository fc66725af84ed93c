"""The language of the words the server writes on the Knowledge tab (the progress line, the file list's empty
states, the online sources' outcomes): the page's, as the browser's Accept-Language header or Settings say."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest

from app.knowledge.indexing import IndexingState
from ui.i18n import browser_language, page_language
from ui.knowledge.collections_view import progress_html
from ui.knowledge.documents_view import documents_html


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh"),
        ("zh", "zh"),
        ("zh-TW", "zh"),  # the page's labels are Simplified Chinese there too (Gradio falls back to "zh")
        ("en-US", "en"),
        ("en-US,en;q=0.9,zh-CN;q=0.8", "en"),  # the first language decides, as on the page
        ("fr", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_the_browsers_first_language_picks_chinese_or_english(header: str | None, language: str) -> None:
    assert browser_language(header) == language


def _request(accept_language: str) -> Any:
    return cast(Any, SimpleNamespace(headers={"accept-language": accept_language}))


def test_the_setting_overrides_the_browser() -> None:
    chinese_browser = _request("zh-CN,zh;q=0.9")
    assert page_language("auto", chinese_browser) == "zh"
    assert page_language("en", chinese_browser) == "en"
    assert page_language("zh-CN", _request("en-US")) == "zh"
    assert page_language("auto", None) == "en"  # no request (a call from Python): English


def test_the_progress_line_and_the_empty_file_list_in_chinese_and_english() -> None:
    busy = IndexingState(True, "手册", "", files_done=2, files_total=5, current_file="/d/a.md", eta_s=12)
    assert "正在索引 <b>手册</b>：2 / 5 个文件 · 当前：a.md · 约剩 12 秒" in progress_html(
        busy, language="zh"
    )
    assert "Indexing <b>手册</b>: 2 / 5 files · now: a.md · about 12 s left" in progress_html(busy)
    assert "空闲：所有知识库都是最新的。" in progress_html(IndexingState(False), language="zh")
    assert "Idle: all collections are up to date." in progress_html(IndexingState(False))
    empty = documents_html("c", [], problems_only=False, total=0, language="zh")
    assert "还没有已索引的文件" in empty and "No files" not in empty
    assert "No files indexed yet" in documents_html("c", [], problems_only=False, total=0)
