"""A viewer page that timed out says which step of which page did (issue 47): "while drawing page 2", not
"while opening the file", which read as if the whole file were unreadable. The real parser worker, held
stopped the way pdfium hangs on a page."""

from __future__ import annotations

from pathlib import Path

from app.chat.viewer import SourceViewer, Spot
from app.chat.viewer_pdf import PdfPageReader, PdfPageView
from app.chat.viewer_text import ProseView
from tests.app.chat.test_viewer import SENTENCE, write_pdf
from tests.app.chat.test_viewer_worker import _workers


def test_a_page_that_timed_out_is_named(tmp_path: Path) -> None:
    pdf = write_pdf(tmp_path / "h.pdf", [["Overview"], ["Launch details", SENTENCE]])
    viewer = SourceViewer()
    viewer._pdf = PdfPageReader(timeout_s=5.0)  # the page's time limit, short for the test
    try:
        before = set(_workers())
        assert isinstance(viewer.view(pdf, Spot(page=1)), PdfPageView)
        (worker,) = set(_workers()) - before
        worker.suspend()
        stalled = viewer.view(pdf, Spot(page=2, passage=SENTENCE))
        # once (CI, 2026-11-29) page 2 was drawn here: say which workers there were if it happens again
        assert isinstance(stalled, ProseView), (worker, worker.is_running(), before, _workers())
        said = stalled.sections[0].text
        assert "timed out after 5 s while drawing page 2." in said, said
        assert "opening the file" not in said
    finally:
        viewer.close()
