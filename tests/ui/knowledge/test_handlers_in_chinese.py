"""The Knowledge tab's buttons in a Chinese page (issue 60): every sentence a collection action, a refusal or
indexing's pause/resume says is Chinese (the names, paths and files it names kept), and the same sentence in
English is the one the app wrote, word for word."""

from __future__ import annotations

import re
from pathlib import Path

from app.knowledge.documents import Document
from app.outcomes import ActionResult
from tests.rigs import make_rig
from tests.ui.english import english_runs
from ui.i18n import word
from ui.knowledge import documents_handlers, handlers
from ui.knowledge.documents_view import documents_html, problem_said

_HAN = re.compile(r"[\u4e00-\u9fff]")


def _chinese(message: str, *names: str) -> None:
    assert _HAN.search(message), message
    assert english_runs(message, allowed=names) == [], message


def test_every_knowledge_action_speaks_chinese_in_a_chinese_page(tmp_path: Path) -> None:
    s = make_rig(tmp_path).session
    folder = tmp_path / "notes folder"
    folder.mkdir()
    (folder / "a.md").write_text("Eggs boil in ten minutes.", "utf-8")
    zh = "zh"
    said = [
        handlers.create_collection(s, "   ", zh).message,
        handlers.create_collection(s, "handbook", zh).message,
        handlers.create_collection(s, "Handbook", zh).message,
        handlers.rename_collection(s, None, "x", zh).message,
        handlers.rename_collection(s, "handbook", "员工手册", zh).message,
        handlers.reindex(s, "员工手册", zh).message,  # no files yet
        handlers.reindex(s, None, zh).message,
        handlers.reembed(s, None, zh).message,
        handlers.reindex(s, "nowhere", zh).message,
        handlers.add_folder(s, None, str(folder), language=zh).message,
        handlers.add_folder(s, "员工手册", str(folder), language=zh).message,
        handlers.reindex(s, "员工手册", zh).message,
        handlers.reembed(s, "员工手册", zh).message,
        handlers.unwatch_folder(s, None, None, zh).message,
        handlers.unwatch_folder(s, "员工手册", None, zh).message,
        handlers.unwatch_folder(s, "员工手册", str(folder), zh).message,
        handlers.save_collection_settings(s, None, handlers.CollectionFields("", "", 0.3, 1, "", ""), zh),
        handlers.save_collection_settings(
            s, "员工手册", handlers.CollectionFields("", "", 0.3, 1, "", ""), zh
        ),
        handlers.pause_indexing(s, zh),
        handlers.resume_indexing(s, zh),
        handlers.cancel_indexing(s, zh),
        documents_handlers.act(s, "remove", None, None, language=zh).message,
        handlers.remove_collection(s, None, zh).message,
        handlers.remove_collection(s, "员工手册", zh).message,
    ]
    for message in said:
        _chinese(message, "handbook", "Handbook", "nowhere", str(folder))
    assert said[4] == "知识库“handbook”已改名为“员工手册”（不会重新索引）。"
    assert said[3] == "⚠ 请先选择一个知识库。"


def test_the_english_page_reads_what_the_app_wrote(tmp_path: Path) -> None:
    s = make_rig(tmp_path).session
    outcomes: list[ActionResult] = [
        s.create_collection("handbook"),
        s.create_collection("handbook"),
        s.rename_collection("handbook", "Staff handbook"),
        s.rename_collection("handbook", "  "),
        s.reindex("handbook"),
        s.reembed("nowhere"),
        s.pause_indexing(),
        s.resume_indexing(),
        s.cancel_indexing(),
        s.save_collection_settings(
            "handbook", description="", examples=[], mixin_weight=0.3, scale=1, language="", strategy=""
        ),
        s.remove_collection("handbook"),
    ]
    for outcome in outcomes:
        assert outcome.said is not None, outcome.message
        assert word(f"app_{outcome.said.code}", "en", **outcome.said.values) == outcome.message
    assert handlers.remove_collection(s, None).message == "⚠ Choose a collection first."
    assert handlers.unwatch_folder(s, "x", None).message == "⚠ Choose the folder to stop watching."


def test_a_failed_file_says_why_in_a_chinese_sentence_that_names_it() -> None:
    broken = Document(
        "/docs/损坏的报告.pdf", "损坏的报告.pdf", "failed", "EOF marker not found", 0, 0, 0.0, True
    )
    reason = "EOF marker not found"
    listed = documents_html("c", [broken], problems_only=False, total=1, title="c", language="zh")
    assert "“损坏的报告.pdf”读取失败：<code>EOF marker not found</code>" in listed
    text = re.sub(r"<[^>]+>", " ", listed)
    assert english_runs(text, allowed=[reason]) == [], text
    english = documents_html("c", [broken], problems_only=False, total=1, title="c")
    assert "⚠ failed: EOF marker not found</span>" in english
    assert problem_said("a.pdf", "skipped", "no text to index", "en") == "skipped: no text to index"
