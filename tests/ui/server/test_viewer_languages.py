"""The citation viewer's own words in the reader's language (issue 69: "lines 31–35 of 132", "the original file"
on a zh-CN page): the browser's language, or ``[ui] language`` over it; the file's words as they are."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.chat.served_files import SourceRegistry
from app.chat.viewer_text import Problem, ProseView, Section
from tests.app.chat.test_viewer import SENTENCE, write_pdf
from tests.ui.english import english_runs
from ui.markup import viewer_url
from ui.server.viewer_page import view_html
from ui.server.viewer_route import add_viewer_route

NOTES = "\n".join(f"第 {i} 行：办公室的植物每周一浇水。" for i in range(1, 41))
ZH = {"accept-language": "zh-CN,zh;q=0.9,en;q=0.8"}


def _client(tmp_path: Path, setting: str = "auto") -> tuple[TestClient, Path, SourceRegistry]:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.md").write_text(NOTES, "utf-8")
    write_pdf(folder / "h.pdf", [["Overview"], ["Launch details", SENTENCE]])
    registry = SourceRegistry(lambda: [folder])
    app = FastAPI()
    add_viewer_route(app, registry, "/kimas/view", lambda: setting)
    return TestClient(app), folder, registry


def _text(page: str) -> str:
    """What a reader sees of a page's own words: its tags, file names and the PDF's text taken out."""
    shown = re.sub(r"<style>.*?</style>|<[^>]+>", " ", page, flags=re.S)
    for name in ("notes.md", "h.pdf", SENTENCE, "Launch details", "Overview", "KIMAs"):
        shown = shown.replace(name, " ")
    return shown


def test_a_text_files_viewer_in_a_chinese_browser(tmp_path: Path) -> None:
    client, folder, registry = _client(tmp_path)
    notes = str(folder / "notes.md")
    registry.remember([notes])
    url = viewer_url(notes, None, (31, 35), "第 33 行：办公室的植物每周一浇水。").split("#")[0]
    page = client.get(url, headers=ZH).text
    assert "第 31–35 行，共 40 行" in page and ">原始文件</a>" in page and "<html lang='zh-CN'>" in page
    assert not english_runs(_text(page)), english_runs(_text(page))
    english = client.get(url, headers={"accept-language": "en-US"}).text
    assert "lines 31–35 of 40" in english and ">the original file</a>" in english


def test_a_pdf_page_in_a_chinese_browser(tmp_path: Path) -> None:
    client, folder, registry = _client(tmp_path)
    pdf = str(folder / "h.pdf")
    registry.remember([pdf])
    page = client.get(viewer_url(pdf, 2, None, SENTENCE).split("#")[0], headers=ZH).text
    assert "第 2 页，共 2 页" in page and "‹ 上一页" in page and "第 2 页的文字" in page
    assert not english_runs(_text(page)), english_runs(_text(page))


def test_the_apps_language_setting_is_over_the_browsers(tmp_path: Path) -> None:
    client, folder, registry = _client(tmp_path, setting="zh-CN")
    notes = str(folder / "notes.md")
    registry.remember([notes])
    page = client.get(viewer_url(notes, None, (1, 2)).split("#")[0], headers={"accept-language": "en"}).text
    assert "第 1–2 行，共 40 行" in page


def test_why_a_page_shows_no_text_is_said_in_the_readers_language() -> None:
    said = "This page could not be drawn: the parser timed out after 5 s. The original file opens with the link above."
    view = ProseView(
        "h.pdf", (Section("", 2, said),), None, Problem("undrawn page", "the parser timed out after 5 s")
    )
    page = view_html(view, {"original": "/kimas/source/t/h.pdf"}, "zh")
    assert "这一页无法绘制：the parser timed out after 5 s。可以用上面的链接打开原始文件。" in page
    assert "在文字中没有找到引用的文字" in page and "第 2 页" in page and "could not be drawn" not in page
    assert said in view_html(view, {}, "en")
