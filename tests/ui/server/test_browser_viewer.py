"""A citation opens at the passage, in Chromium at 1366×768 (issue 46).

The real outer app (guards, ``/kimas/source``, ``/kimas/view``) serves a chat showing an answer that cites
page 2 of a PDF, lines of a Markdown file and a Word file, drawn by the chat's own renderer. A click on
"Open … at the passage" opens a tab at the PDF's page 2 with the sentence boxed on screen, at the
Markdown file's cited lines and at the Word file's passage, each scrolled into view. Screenshots go to ``test-artifacts/viewer/``.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.chat.conversation import Conversation, Turn
from app.chat.served_files import SourceRegistry
from kimas_desktop.types import Chunk, Citation
from tests.ui.patience import HANG_MS
from tests.ui.test_browser import CHROMIUM, ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(os.environ.get("KIMAS_VIEWER_SHOTS") or ROOT / "test-artifacts" / "viewer")
VIEWPORT = {"width": 1366, "height": 768}
SENTENCE = "The launch code of Project Heliotrope is PURPLE-OTTER-42."
WATERED = "The office plants are watered on Mondays by Dana."


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _letter(folder: Path) -> Path:
    import docx

    document = docx.Document()
    document.add_heading("Harbour", 1)
    for i in range(40):
        document.add_paragraph(f"Paragraph {i} about the quays, the cranes and the tides of the harbour.")
    document.add_heading("People", 1)
    document.add_paragraph("The harbour master of Port Vellum is Odalys Crane. <script>alert(1)</script>")
    path = folder / "harbour.docx"
    document.save(str(path))
    return path


def _files(folder: Path) -> tuple[Path, Path]:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = folder / "heliotrope.pdf"
    drawn = canvas.Canvas(str(pdf), pagesize=A4, invariant=1)
    drawn.drawString(50, 800, "Project Heliotrope overview")
    drawn.showPage()
    for i in range(30):  # the sentence low on page 2: below the fold unless the viewer scrolls to it
        drawn.drawString(50, 800 - 20 * i, f"Filler line {i} about the schedule of the project.")
    drawn.drawString(50, 150, SENTENCE)
    drawn.showPage()
    drawn.save()
    notes = folder / "notes.md"
    filler = "\n".join(f"- item {i} of the inventory" for i in range(1, 120))
    long = " ".join(["A paragraph written on one long line, as Markdown editors save it."] * 12)
    notes.write_text(
        f"# Team notes\n\n{filler}\n\n{long}\n\nThe office plants are watered\non Mondays by Dana.\n", "utf-8"
    )
    return pdf, notes


def _conversation(pdf: Path, notes: Path, letter: Path) -> Conversation:
    text = notes.read_text("utf-8")
    at = text.index("The office plants")
    lines = text[:at].count("\n") + 1
    cited_pdf = Chunk("p2", "docs", str(pdf), f"Filler.\n{SENTENCE}", page=2)
    cited_md = Chunk("m1", "docs", str(notes), text[at:].strip(), line_start=lines, line_end=lines + 1)
    master = "The harbour master of Port Vellum is Odalys Crane."
    cited_docx = Chunk("d1", "docs", str(letter), master, heading="People")
    citations = (
        Citation(1, cited_pdf, SENTENCE, 8, 8 + len(SENTENCE)),
        Citation(2, cited_md, WATERED, 0, len(cited_md.text)),
        Citation(3, cited_docx, master, 0, len(master)),
    )
    turn = Turn("What is the launch code?", answer="PURPLE-OTTER-42; plants on Mondays.", state="done",
                citations=citations)  # fmt: skip
    return Conversation(turns=[turn])


@contextlib.contextmanager
def _served(folder: Path, conv: Conversation) -> Iterator[str]:
    import gradio as gr

    from app.chat.served_files import shown_sources
    from cli.serve_cmd import add_source_route
    from ui.chat.render import chat_messages
    from ui.markup import SOURCE_ROUTE, VIEW_ROUTE
    from ui.server.server import ServeLimits, serve
    from ui.server.viewer_route import add_viewer_route

    registry = SourceRegistry(lambda: [folder])
    registry.remember(shown_sources(conv))
    with gr.Blocks(analytics_enabled=False) as demo:
        gr.Chatbot(chat_messages(conv), elem_id="chatbot", height=600)
    port = _free_port()
    running = serve(
        demo,
        port,
        ServeLimits(),
        routes=[
            lambda app: add_source_route(app, registry, SOURCE_ROUTE),
            lambda app: add_viewer_route(app, registry, VIEW_ROUTE),
        ],
        launch={"ssr_mode": False, "mcp_server": False},
    )
    try:
        yield running.url
    finally:
        running.close()


def _open(context: Any, page: Any, name: str) -> Any:
    cited = page.locator("#chatbot details.kimas-citation", has_text=name).first
    cited.locator("summary").click()
    page.screenshot(path=str(ARTIFACTS / f"01-{name}-expanded.png"))
    with context.expect_page() as opened:
        cited.locator("a.kimas-view").click()
    viewer = opened.value
    viewer.wait_for_load_state("load")
    return viewer


def _on_screen(viewer: Any, selector: str) -> dict[str, float]:
    box = viewer.locator(selector).bounding_box()
    assert box is not None, selector
    assert box["y"] >= 0 and box["y"] + box["height"] <= VIEWPORT["height"], box
    return dict(box)


def test_a_citation_opens_at_its_page_and_lines(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    folder = tmp_path / "docs"
    folder.mkdir()
    conv = _conversation(*_files(folder), _letter(folder))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with _served(folder, conv) as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        page.set_default_timeout(HANG_MS)
        try:
            page.goto(url)
            sync_api.expect(page.locator("#chatbot")).to_contain_text("heliotrope.pdf")
            page.screenshot(path=str(ARTIFACTS / "01-chat.png"))
            pdf = _open(context, page, "heliotrope.pdf")
            assert "/kimas/view/" in pdf.url and "page=2" in pdf.url and pdf.url.endswith("#kimas-hit")
            sync_api.expect(pdf.locator("header")).to_contain_text("page 2 of 2")
            box = _on_screen(pdf, ".box#kimas-hit")  # the sentence's box, scrolled onto the screen
            assert pdf.evaluate("window.scrollY") > 0 and box["width"] > 200
            sync_api.expect(pdf.locator(".text mark")).to_have_text(SENTENCE)
            pdf.screenshot(path=str(ARTIFACTS / "02-pdf-at-page-2.png"))
            notes = _open(context, page, "notes.md")
            sync_api.expect(notes.locator("#kimas-hit")).to_contain_text("The office plants are watered")
            _on_screen(notes, "#kimas-hit")
            assert notes.evaluate("window.scrollY") > 0
            assert notes.locator(".line.hit").all_inner_texts()[1].endswith("on Mondays by Dana.")
            wide = "[document.documentElement.scrollWidth, document.querySelector('.lines').scrollWidth]"
            assert max(notes.evaluate(wide)) <= VIEWPORT["width"]  # a long line wraps, no sideways scrolling
            notes.screenshot(path=str(ARTIFACTS / "03-markdown-at-lines.png"))
            letter = _open(context, page, "harbour.docx")
            sync_api.expect(letter.locator("mark#kimas-hit")).to_have_text(
                "The harbour master of Port Vellum is Odalys Crane."
            )
            _on_screen(letter, "#kimas-hit")
            sync_api.expect(letter.locator("body")).to_contain_text("<script>alert(1)</script>")  # as text
            letter.screenshot(path=str(ARTIFACTS / "04-docx-at-passage.png"))
        finally:
            with contextlib.suppress(Exception):
                page.screenshot(path=str(ARTIFACTS / "99-last.png"))
            browser.close()
