"""The language of the words the server writes on the Knowledge tab (the progress line, the collections'
summary, the recent activity, the file list and the file's card, the online sources' outcomes): the page's,
as the browser's Accept-Language header or Settings say."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from app.knowledge.collections import CollectionStatus
from app.knowledge.documents import Document
from app.knowledge.indexing import Activity, IndexingState, describe_report, report_values
from kimas_desktop.config import CollectionConfig, parse_config
from kimas_desktop.types import CardSentence, CardTable, DocumentCard, FileProblem, IndexReport, Section
from tests.app.knowledge.test_documents import idle, open_app, wait_for
from tests.rigs import write_docs
from ui.i18n import browser_language, page_language
from ui.knowledge import documents_handlers, handlers
from ui.knowledge.collections_view import activity_markdown, collections_markdown, progress_html
from ui.knowledge.documents_view import card_html, documents_html
from ui.poll import poll


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


def _collection(**changes: Any) -> CollectionStatus:
    fields: dict[str, Any] = {
        "name": "c",
        "folders": ("/w/notes", "/up/c"),
        "uploads_folder": "/up/c",
        "files": 1,
        "chunks": 3,
        "embedding_model": "bge-small",
        "updated_at": None,
        "problems": (FileProblem("/w/notes/scan.pdf", "no text layer", "skipped"),),
        "settings": CollectionConfig(description="园艺", examples=["番茄？"], strategy="hyde"),
        "indexed": True,
        "title": "手册",
    }
    return CollectionStatus(**{**fields, **changes})


def test_the_collections_summary_in_chinese() -> None:
    shown = collections_markdown([_collection()], language="zh")
    assert "### 手册\n**1 个文件 · 3 个片段** · 嵌入模型 <code>bge-small</code> · 最近更新 从未" in shown
    assert "- 文件夹：<code>/w/notes</code>（原位监视）, <code>/up/c</code>（上传的文件）" in shown
    assert "- 路由：园艺；1 个示例；权重 0.3；缩放 1；改写 hyde" in shown
    assert "<summary>1 个文件被跳过或失败</summary>" in shown
    assert "<code>/w/notes/scan.pdf</code> — “scan.pdf”已跳过：<code>no text layer</code>" in shown
    trouble = _collection(damaged="table unreadable", needs_reembedding=True, folders=(), problems=())
    warned = collections_markdown([trouble], {"c": "switch"}, "zh")
    assert "**索引已损坏，正在根据其文件重建**（重新索引也会这样做）：table unreadable" in warned
    assert "按 **重新嵌入**" in warned and "按知识库下方的 **使用多语言嵌入模型**" in warned  # the buttons
    assert "- 文件夹：暂无" in warned
    bare = collections_markdown(
        [_collection(indexed=False, settings=CollectionConfig(scale=2))], language="zh"
    )
    assert "**尚未索引**" in bare and "路由：无描述；权重 0.3；缩放 2；改写 默认" in bare
    for english in ("file", "chunk", "Folders", "Routing", "never", "Needs", "Press", "default"):
        assert english not in warned + shown + bare, english
    assert "**1 file · 3 chunks** · embedding model <code>bge-small</code>" in collections_markdown(
        [_collection()]
    )


def test_the_recent_activity_heading_in_chinese() -> None:
    items = [Activity(1_700_000_000.0, "手册", "1 file indexed")]
    assert activity_markdown(items, language="zh").startswith("**最近的活动**\n\n- ")
    assert activity_markdown(items).startswith("**Recent activity**\n\n- ")
    assert activity_markdown([], language="zh") == ""


def test_the_recent_activity_said_in_chinese_from_its_codes() -> None:
    """Issue 60: the indexer's lines are codes and values; Chinese is said from them, English is the app's
    own sentence, unchanged."""
    report = IndexReport("手册", 2, 1, 0, 0, 1, chunks_added=14, seconds=3.14)
    english = "Files changed on disk: " + describe_report(report)
    items = [
        Activity(1_700_000_000.0, "手册", english, "problem", "report", report_values(report, "watcher")),
        Activity(1_700_000_001.0, "", "Indexing paused.", code="paused"),
        Activity(1_700_000_002.0, "", "Something new.", code="a code no table has"),
    ]
    chinese = activity_markdown(items, language="zh")
    assert "磁盘上的文件有变化：已索引 2 个文件（14 个片段），1 个未变，1 个失败，用时 3.1 秒" in chinese
    assert "索引已暂停。" in chinese and "Something new." in chinese  # an unknown code: its English
    shown = activity_markdown(items)
    assert english in shown and "Indexing paused." in shown
    assert "Files changed on disk: 2 files indexed (14 chunks), 1 unchanged, 1 failed in 3.1 s" in shown


CARD = DocumentCard(
    "/d/a.csv",
    "Orchard",
    (Section("Soil", page=2), Section("Soil > Water", line=5)),
    (CardSentence("Apples like sun."),),
    "en",
    (CardTable("", 1, 12345, (("kg", "number"),)),),
)


def _document(status: Any = "indexed", reason: str = "", dismissed: bool = False) -> Document:
    return Document("/d/a.csv", "a.csv", status, reason, 4, 1, 0.0, True, dismissed, CARD)


def _text(html: str) -> str:
    """What the page shows of ``html`` (its class names and links are not words)."""
    return re.sub(r"<[^>]+>", "", html)


def test_the_file_table_and_the_card_in_chinese() -> None:
    rows = [_document(), _document("failed", "bad", dismissed=True), _document("skipped")]
    table = documents_html("c", rows, problems_only=False, total=3, title="手册", language="zh")
    assert "<div class='kimas-docs-count'><b>手册</b>：3 个文件</div>" in table
    assert "<th>文件</th><th>状态</th><th>片段</th><th>最近索引</th>" in table
    assert "✓ 已索引" in table and "失败：<code>bad</code>（已忽略）" in table and "⚠ 已跳过" in table
    assert " <small>（已上传）</small>" in table
    some = documents_html("c", rows[2:], problems_only=True, total=3, title="手册", language="zh")
    assert "<b>手册</b>：3 个文件中的 1 个" in some
    card = card_html(rows[0], "zh")
    assert "<small>（文档卡片，语言：en）</small>" in card and "<summary>大纲（2 个标题）</summary>" in card
    assert "Soil <small>（第 2 页）</small>" in card and "Water <small>（第 5 行）</small>" in card
    assert (
        "<summary>表格（1）</summary>" in card
        and "<b>表格</b>: 12,345 行 <small>（表头在第 1 行）</small>" in card
    )
    bare = DocumentCard("/d/a.csv", "Orchard")
    assert "没有可显示的句子（代码或表格）。" in card_html(replace(rows[0], card=bare), "zh")
    assert "没有标题。" in card_html(replace(rows[0], card=bare), "zh")
    assert "还没有卡片：下次同步时生成。" in card_html(replace(rows[0], card=None), "zh")
    for english in ("File", "Status", "Chunks", "Last indexed", "indexed", "failed", "uploaded", "dismissed"):
        assert english not in _text(table), english
    for english in ("document card", "language", "Outline", "p. 2", "line 5", "Table", "row"):
        assert english not in _text(card), english
    english_table = documents_html("c", rows, problems_only=False, total=3, title="Maps")
    assert "3 files in <b>Maps</b>" in english_table and "<th>Last indexed</th>" in english_table
    assert "Outline (2 headings)" in card_html(rows[0])


def test_the_timer_and_the_file_list_write_the_pages_language(tmp_path: Path) -> None:
    """Through the app (real LanceDB, fake models): what the timer sends a Chinese page, and the file list
    a Chinese page asks for."""
    desk = open_app(tmp_path / "data", parse_config({}))
    try:
        handlers.upload(desk, "docs", [str(write_docs(tmp_path / "t") / "notes.md")])
        assert wait_for(lambda: idle(desk) and len(desk.list_documents("docs")) == 1)
        chinese = poll(desk, None, "zh")
        assert isinstance(chinese.collections_md, str) and "**1 个文件 · " in chinese.collections_md
        assert "（上传的文件）" in chinese.collections_md
        assert chinese.activity_md is not None and chinese.activity_md.startswith("**最近的活动**")
        english = poll(desk, None)
        assert isinstance(english.collections_md, str) and "**1 file · " in english.collections_md
        files = documents_handlers.documents_view(desk, "docs", language="zh").html
        assert "<b>docs</b>：1 个文件" in files and "✓ 已索引" in files and "（文档卡片" in files
    finally:
        desk.close()
