"""The Knowledge tab's buttons in a Chinese page (issue 60): every sentence a collection action, a refusal or
indexing's pause/resume says is Chinese (the names, paths and files it names kept), and the same sentence in
English is the one the app wrote, word for word."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from app.knowledge.documents import Document
from app.knowledge.indexing import Activity
from app.models.multilingual import MultilingualSwitch
from app.outcomes import ActionResult
from kimas_desktop.errors import ConfigError
from tests.rigs import make_rig
from tests.ui.english import english_runs
from ui.i18n import word
from ui.knowledge import documents_handlers, handlers
from ui.knowledge.collections_view import activity_markdown
from ui.knowledge.documents_view import documents_html, problem_said
from ui.markup import esc

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


def test_a_folder_that_cannot_be_watched_says_why_in_chinese(tmp_path: Path) -> None:
    s = make_rig(tmp_path).session
    handlers.create_collection(s, "docs")
    a_file = tmp_path / "a.txt"
    a_file.write_text("x", "utf-8")
    paths = ["/nowhere/at/all", str(a_file), "relative/folder", str(s.data_dir)]
    zh = [handlers.add_folder(s, "docs", p, language="zh").message for p in paths]
    zh.append(handlers.unwatch_folder(s, "docs", "/nowhere/else", "zh").message)
    for message in zh:
        _chinese(message, *paths, "/nowhere/else", "none")
    assert zh[0] == "⚠ /nowhere/at/all 处没有文件夹。"
    english = [handlers.add_folder(s, "docs", p).message for p in paths[:2]]
    assert english == [
        "⚠ There is no folder at /nowhere/at/all.",
        f"⚠ There is no folder at {esc(str(a_file))}.",
    ]
    assert handlers.add_folder(s, "docs", "relative/folder").message == (
        "⚠ 'relative/folder' is not a full path: start it with / (or a drive letter)."
    )


def test_indexing_stopped_says_its_reason_in_chinese() -> None:
    err = ConfigError("There is no folder at /gone.", code="no_folder_at", values={"path": "/gone"})
    values = {"why": str(err), "why_code": err.code, "why_path": "/gone"}
    stopped = Activity(0.0, "docs", f"Indexing stopped: {err}", "error", "stopped", values)
    shown = activity_markdown([stopped], language="zh")
    assert "索引已停止：/gone 处没有文件夹。" in shown, shown
    assert english_runs(shown) == []
    assert "Indexing stopped: There is no folder at /gone." in activity_markdown([stopped])


def test_an_unexpected_error_and_an_unreadable_store_are_said_in_chinese(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(tmp_path)
    s = rig.session

    def boom(*_: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(s.knowledge, "create", boom)
    log = esc(str(s.log_file))
    zh = handlers.create_collection(s, "docs", "zh").message
    _chinese(zh, "RuntimeError: boom", log)
    english = handlers.create_collection(s, "docs").message
    assert (
        english
        == f"⚠ Something went wrong while creating the collection (RuntimeError: boom). Details are in {log}."
    )

    def unreadable() -> object:
        raise OSError("lancedb: the database directory is not readable")

    rig.searcher.collections = unreadable  # type: ignore[method-assign]
    why = "OSError: lancedb: the database directory is not readable"
    shown = str(handlers.collections_view(s, "zh"))
    assert "无法读取知识库存储" in shown and why in shown, shown
    assert english_runs(re.sub(r"<[^>]+>|\*\*", " ", shown), allowed=[why, log]) == [], shown
    assert f"The collection store cannot be read ({why})." in str(handlers.collections_view(s))


def test_the_multilingual_switch_says_how_it_goes_in_chinese(tmp_path: Path) -> None:
    s = make_rig(tmp_path).session
    s.multilingual = MultilingualSwitch(
        s.runtime.paths,
        s.settings,
        config=lambda: s.config,
        loading=s.model_state,
        catalog_file=lambda: None,
        explain=s.explain_said,
        target="intfloat/multilingual-e5-large",
        base_url="http://127.0.0.1:9",  # nothing listens: the download fails at once
    )
    started = handlers.multilingual_switch(s, "zh")
    assert started == "正在切换到 intfloat/multilingual-e5-large…", started
    assert _wait(lambda: s.multilingual.state().phase == "failed")
    _, status = handlers.multilingual_status(s, "zh")
    why = s.multilingual.state().said.values["why"].english  # type: ignore[union-attr]
    assert status.startswith("⚠ 无法下载 intfloat/multilingual-e5-large：") and "什么都没有改变" in status
    _chinese(status.replace("\\", ""), why, "intfloat/multilingual-e5-large")
    assert handlers.multilingual_status(s)[1].startswith(
        "⚠ Could not download intfloat/multilingual-e5-large: "
    )


def _wait(condition: Callable[[], bool], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not condition():
        time.sleep(0.05)
    return condition()
