"""The viewer reads a cited file at the passage (issue 46): a PDF's page with the cited sentence's boxes,
a text file's lines with the sentence's lines, an Office file's text with the passage found in it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.chat.viewer import SourceViewer, Spot, viewable
from app.chat.viewer_find import find_passage
from app.chat.viewer_pdf import PdfPageView
from app.chat.viewer_text import LinesView, ProseView

SENTENCE = "The launch code of Project Heliotrope is PURPLE-OTTER-42."


@pytest.fixture(scope="module")
def viewer() -> Iterator[SourceViewer]:
    """One viewer, as the app has: its PDF worker process ends with it."""
    viewer = SourceViewer()
    yield viewer
    viewer.close()


def write_pdf(path: Path, pages: list[list[str]]) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    for lines in pages:
        for i, line in enumerate(lines):
            pdf.drawString(50, 800 - 16 * i, line)
        pdf.showPage()
    pdf.save()
    return path


def test_a_passage_is_found_across_line_breaks_hyphens_case_and_scripts() -> None:
    text = "Intro.\r\nThe launch code of Project Helio-\r\ntrope is PURPLE-OTTER-42. Then more."
    span = find_passage(text, SENTENCE)
    assert (
        span is not None
        and text[span[0] : span[1]].startswith("The launch")
        and text[span[1] - 3 : span[1]] == "42."
    )
    chinese = "第一段。\n北京是中国的首都，\n也是政治中心。其他。"
    span = find_passage(chinese, "北京是中国的首都，也是政治中心。")
    assert span is not None and chinese[span[0] : span[1]] == "北京是中国的首都，\n也是政治中心。"
    hindi = "पहला वाक्य। भारत की राजधानी\nनई दिल्ली है। अंत।"
    span = find_passage(hindi, "भारत की राजधानी नई दिल्ली है।")
    assert span is not None and hindi[span[0] : span[1]] == "भारत की राजधानी\nनई दिल्ली है।"
    assert find_passage(text, "The moon is made of cheese.") is None
    assert find_passage(text, "...") is None  # nothing left to look for
    span = find_passage(text, "the launch code of project")  # a prefix: no closing mark to add
    assert span is not None and text[span[0] : span[1]] == "The launch code of Project"


def test_a_pdf_opens_at_its_page_with_the_sentence_boxed(tmp_path: Path, viewer: SourceViewer) -> None:
    pdf = write_pdf(
        tmp_path / "h.pdf",
        [["Overview"], ["Launch details", "The launch code of Project", "Heliotrope is PURPLE-OTTER-42."]],
    )
    view = viewer.view(pdf, Spot(page=2, passage=SENTENCE))
    assert isinstance(view, PdfPageView) and (view.page, view.pages) == (2, 2)
    assert view.png.startswith(b"\x89PNG") and view.hit is not None
    assert "PURPLE-OTTER-42" in view.text[view.hit[0] : view.hit[1]]
    assert len(view.boxes) == 2  # one box per line of the sentence, under "Launch details"
    first, second = view.boxes
    assert 0.03 < first.top < second.top < 0.15 and 0.05 < first.left < 0.1
    assert viewer.view(pdf, Spot(page=99)).page == 2  # past the end: the last page
    other = viewer.view(pdf, Spot(page=1, passage=SENTENCE))
    assert isinstance(other, PdfPageView) and other.boxes == () and other.hit is None


def test_a_text_file_opens_at_the_sentence_lines(tmp_path: Path, viewer: SourceViewer) -> None:
    notes = tmp_path / "notes.md"
    body = [f"filler line {i}" for i in range(2, 3001)] + [
        "",
        "The office plants are",
        "watered on Mondays by Dana.",
        "",
    ]
    notes.write_text("# Notes\n" + "\n".join(body), "utf-8")
    view = viewer.view(
        notes, Spot(lines=(3001, 3003), passage="The office plants are watered on Mondays by Dana.")
    )
    assert isinstance(view, LinesView)
    assert view.cited == (3001, 3003) and view.hit == (3002, 3003) and view.total == 3004
    assert view.first == 1501 and view.lines[3002 - view.first] == "The office plants are"
    unplaced = viewer.view(notes, Spot(passage="filler line 7"))
    assert isinstance(unplaced, LinesView) and unplaced.hit == (7, 7) and unplaced.cited is None


def test_an_office_file_opens_at_its_text_with_the_passage(tmp_path: Path, viewer: SourceViewer) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Harbour", 1)
    document.add_paragraph("Port Vellum has a small harbour.")
    document.add_heading("People", 1)
    document.add_paragraph("The harbour master of Port Vellum is Odalys Crane. She keeps the tide tables.")
    path = tmp_path / "harbour.docx"
    document.save(str(path))
    view = viewer.view(path, Spot(passage="The harbour master of Port Vellum is Odalys Crane."))
    assert isinstance(view, ProseView) and view.hit is not None
    section, a, b = view.hit
    assert view.sections[section].heading == "People"
    assert view.sections[section].text[a:b] == "The harbour master of Port Vellum is Odalys Crane."


@pytest.mark.parametrize(
    ("name", "shown"),
    [("a.pdf", True), ("a.md", True), ("a.py", True), ("a.txt", True), ("a.docx", True), ("a.pptx", True),
     ("a.odt", True), ("a.html", False), ("a.png", False), ("a.csv", False), ("a.xlsx", False)],
)  # fmt: skip
def test_what_the_viewer_shows(name: str, shown: bool) -> None:
    assert viewable(f"/d/{name}") is shown


def test_a_slide_deck_opens_at_the_cited_slide(tmp_path: Path, viewer: SourceViewer) -> None:
    from pptx import Presentation

    deck = Presentation()
    for title in ("Last year", "This year"):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = "Revenue grew by 12 percent."
    path = tmp_path / "deck.pptx"
    deck.save(str(path))
    view = viewer.view(path, Spot(page=2, passage="Revenue grew by 12 percent."))
    assert isinstance(view, ProseView) and view.hit is not None
    assert view.sections[view.hit[0]].page == 2  # the same words on slide 1: the cited slide wins
