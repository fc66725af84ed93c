"""The viewer draws a PDF page in the parser worker process (issue 46): a page that stalls the worker,
kills it or passes its memory cap shows why and the app's next page works; the cited sentence's boxes
land on the sentence on a page turned by ``/Rotate``."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path

import psutil
import pytest

from app.chat.viewer import SourceViewer, Spot
from app.chat.viewer_pdf import PdfPageReader, PdfPageView, UndrawnPage
from app.chat.viewer_text import ProseView
from tests.app.chat.test_viewer import SENTENCE, write_pdf


def _workers() -> list[psutil.Process]:
    return [
        p
        for p in psutil.Process().children(recursive=True)
        if "indexer.parse.worker" in " ".join(p.cmdline())
    ]


def _dark_share(view: PdfPageView, box: tuple[float, float, float, float]) -> float:
    """The share of dark pixels inside ``box`` (fractions of the page) on the drawn page."""
    from PIL import Image

    image = Image.open(io.BytesIO(view.png)).convert("L")
    w, h = image.size
    left, top, width, height = box
    crop = image.crop((int(left * w), int(top * h), int((left + width) * w) + 1, int((top + height) * h) + 1))
    return sum(crop.histogram()[:128]) / max(crop.width * crop.height, 1)


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_the_boxes_cover_the_sentence_on_a_rotated_page(tmp_path: Path, rotation: int) -> None:
    from pypdf import PdfReader, PdfWriter

    plain = write_pdf(tmp_path / "plain.pdf", [["Launch details", SENTENCE]])
    writer = PdfWriter()
    for page in PdfReader(plain).pages:
        writer.add_page(page.rotate(rotation) if rotation else page)
    turned = tmp_path / f"turned{rotation}.pdf"
    with turned.open("wb") as out:
        writer.write(out)
    viewer = SourceViewer()
    try:
        view = viewer.view(turned, Spot(page=1, passage=SENTENCE))
    finally:
        viewer.close()
    assert isinstance(view, PdfPageView) and len(view.boxes) == 1
    w, h = view.size
    assert (w < h) == (rotation in (0, 180))  # A4 upright, or on its side
    box = view.boxes[0]
    assert all(0.0 <= v <= 1.0 for v in (box.left, box.top, box.left + box.width, box.top + box.height))
    long_side = box.width if rotation in (0, 180) else box.height
    short_side = box.height if rotation in (0, 180) else box.width
    assert long_side > 3 * short_side  # a line of text runs along the turned page
    assert _dark_share(view, (box.left, box.top, box.width, box.height)) > 0.05  # ink under the box


def test_a_stalled_worker_says_why_and_the_next_page_draws(tmp_path: Path) -> None:
    pdf = write_pdf(tmp_path / "h.pdf", [["Overview"], ["Launch details", SENTENCE]])
    viewer = SourceViewer()
    viewer._pdf = PdfPageReader(timeout_s=5.0)  # the page's time limit, short for the test
    try:
        before = set(_workers())
        assert isinstance(viewer.view(pdf, Spot(page=1)), PdfPageView)
        (worker,) = set(_workers()) - before
        worker.suspend()  # pdfium hangs on a page
        stalled = viewer.view(pdf, Spot(page=2, passage=SENTENCE))
        assert isinstance(stalled, ProseView)
        said = stalled.sections[0].text
        assert said.startswith("This page could not be drawn: ") and "timed out after 5 s" in said
        assert not worker.is_running()  # the stuck worker was stopped, not left behind
        again = viewer.view(pdf, Spot(page=2, passage=SENTENCE))
        assert isinstance(again, PdfPageView) and again.page == 2 and len(again.boxes) == 1
    finally:
        viewer.close()


def _tall_pdf(path: Path) -> Path:
    """A page 400 x 14400 points with the sentence near its top: drawn 1100 px wide, 1100 x 39600 pixels
    (over 100 MB as a bitmap; seconds to draw and encode)."""
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=(400, 14400), invariant=1)
    pdf.drawString(50, 14000, SENTENCE)
    pdf.showPage()
    pdf.save()
    return path


def _busy(worker: psutil.Process) -> float:
    times = worker.cpu_times()
    return float(times.user + times.system)


def test_a_worker_killed_mid_draw_says_so_and_the_next_page_draws(tmp_path: Path) -> None:
    small, tall = write_pdf(tmp_path / "h.pdf", [[SENTENCE]]), _tall_pdf(tmp_path / "tall.pdf")
    reader = PdfPageReader(timeout_s=120.0)
    try:
        before = set(_workers())
        reader.read(small, 1, "")
        (worker,) = set(_workers()) - before
        idle = _busy(worker)
        failed: list[Exception] = []

        def draw() -> None:
            try:
                reader.read(tall, 1, SENTENCE)
            except Exception as err:
                failed.append(err)

        asked = threading.Thread(target=draw)
        asked.start()
        deadline = time.monotonic() + 60
        while _busy(worker) < idle + 0.3 and time.monotonic() < deadline:  # drawing the tall page
            time.sleep(0.01)
        worker.kill()  # pdfium crashes mid-draw
        asked.join(120)
        assert len(failed) == 1 and isinstance(failed[0], UndrawnPage), failed
        assert "crashed" in str(failed[0])
        assert len(reader.read(small, 1, SENTENCE).boxes) == 1  # a fresh worker draws the next page
    finally:
        reader.close()


def test_a_page_over_the_memory_cap_says_why_and_the_app_lives_on(tmp_path: Path) -> None:
    tall = _tall_pdf(tmp_path / "tall.pdf")
    capped = SourceViewer()
    capped._pdf = PdfPageReader(memory_mb=16.0)  # a tiny cap, for the test
    try:
        view = capped.view(tall, Spot(page=1, passage=SENTENCE))
        assert isinstance(view, ProseView)
        said = view.sections[0].text
        assert said.startswith("This page could not be drawn: ") and "16 MB of memory" in said
        assert isinstance(capped.view(write_pdf(tmp_path / "h.pdf", [[SENTENCE]]), Spot(page=1)), PdfPageView)
    finally:
        capped.close()
    roomy = PdfPageReader()
    try:
        assert roomy.read(tall, 1, SENTENCE).size[1] > 30000  # the same page draws under the usual cap
    finally:
        roomy.close()
