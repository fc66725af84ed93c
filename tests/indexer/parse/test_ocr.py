"""OCR on generated scans: image-only PDF pages and image files are read by Tesseract in the parser worker,
marked as OCR, limited in time per page, and queued behind files that need no OCR."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from indexer.parse.blocks import SkipFile
from indexer.parse.ocr import OcrError, PageOcr, tesseract
from indexer.parse.registry import FileParser
from kimas_desktop.types import Chunk
from tests.indexer.files import pdf_bytes
from tests.indexer.scans import scanned_images, scanned_pdf_bytes

needs_tesseract = pytest.mark.skipif(tesseract() is None, reason="Tesseract (tesseract-ocr) is not installed")

PAGE_ONE = "The harbour master keeps the tide tables\nin the blue cabinet beside the radio."
PAGE_TWO = "Invoice 4471 was paid on the ninth of March\nby the Vesterhavn ferry company."


@needs_tesseract
def test_scanned_pdf_pages_are_queued_for_ocr_then_read(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    path.write_bytes(scanned_pdf_bytes([PAGE_ONE, PAGE_TWO]))
    parser = FileParser()
    try:
        doc = parser.parse(path, path.read_bytes())
        assert list(doc.blocks) == []  # no text layer: nothing in the first pass
        assert doc.ocr_pages == [1, 2] and doc.pages == 2
        blocks = list(parser.recognize(path, doc))
    finally:
        parser.close()
    assert [b.page for b in blocks] == [1, 2] and all(b.ocr for b in blocks)
    assert "tide tables" in blocks[0].text and "blue cabinet beside the radio" in blocks[0].text
    assert "Invoice 4471" in blocks[1].text and "Vesterhavn ferry" in blocks[1].text


@needs_tesseract
def test_a_pdf_with_text_and_a_scanned_page_sends_only_that_page_to_ocr(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for data in (
        pdf_bytes(["A page with a real text layer about lighthouses."]),
        scanned_pdf_bytes([PAGE_TWO]),
    ):
        writer.append(PdfReader(__import__("io").BytesIO(data)))
    path = tmp_path / "mixed.pdf"
    with path.open("wb") as f:
        writer.write(f)
    parser = FileParser()
    try:
        doc = parser.parse(path, path.read_bytes())
        first = list(doc.blocks)
        assert [(b.page, b.ocr) for b in first] == [(1, False)]
        assert doc.ocr_pages == [2]
        assert "Invoice 4471" in next(iter(parser.recognize(path, doc))).text
    finally:
        parser.close()


@needs_tesseract
def test_a_scanned_page_keeps_its_bookmark_heading(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for data in (pdf_bytes(["The lighthouse log of the harbour."]), scanned_pdf_bytes([PAGE_TWO])):
        writer.append(PdfReader(__import__("io").BytesIO(data)))
    writer.add_outline_item(title="Log", page_number=0)
    writer.add_outline_item(title="Invoices", page_number=1)
    path = tmp_path / "bookmarked.pdf"
    with path.open("wb") as f:
        writer.write(f)
    parser = FileParser()
    try:
        doc = parser.parse(path, path.read_bytes())
        assert [(b.page, b.heading) for b in doc.blocks] == [(1, "Log")]
        (scanned,) = list(parser.recognize(path, doc))
    finally:
        parser.close()
    assert scanned.page == 2 and scanned.ocr and scanned.heading == "Invoices"


@needs_tesseract
def test_image_files_are_read_by_ocr(tmp_path: Path) -> None:
    image = scanned_images([PAGE_ONE])[0]
    path = tmp_path / "photo.png"
    image.save(path)
    parser = FileParser()
    try:
        doc = parser.parse(path, path.read_bytes())
        assert doc.kind == "image" and doc.ocr_pages == [1]
        blocks = list(parser.recognize(path, doc))
    finally:
        parser.close()
    assert len(blocks) == 1 and blocks[0].ocr and "tide tables" in blocks[0].text


@needs_tesseract
def test_a_broken_image_is_reported_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "broken.jpg"
    path.write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    parser = FileParser()
    try:
        doc = parser.parse(path, path.read_bytes())
        with pytest.raises(Exception, match="not a readable image"):
            list(parser.recognize(path, doc))
        # The worker is still usable for the next file.
        good = tmp_path / "good.png"
        scanned_images([PAGE_TWO])[0].save(good)
        assert "Invoice 4471" in next(iter(parser.recognize(good, parser.parse(good, b"")))).text
    finally:
        parser.close()


def test_without_ocr_images_are_skipped_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "photo.png"
    scanned_images([PAGE_ONE])[0].save(path)
    parser = FileParser(ocr=False)
    try:
        with pytest.raises(SkipFile, match="Tesseract"):
            parser.parse(path, path.read_bytes())
        pdf = tmp_path / "scan.pdf"
        pdf.write_bytes(scanned_pdf_bytes([PAGE_ONE]))
        doc = parser.parse(pdf, pdf.read_bytes())
        assert list(doc.blocks) == [] and doc.ocr_pages == []
    finally:
        parser.close()


def test_ocr_time_limit_per_page_holds(tmp_path: Path) -> None:
    slow = tmp_path / "slow-tesseract"
    slow.write_text("#!/bin/sh\nsleep 30\n")
    slow.chmod(slow.stat().st_mode | stat.S_IEXEC)
    ocr = PageOcr(timeout_s=0.5, program=str(slow))
    image = scanned_images([PAGE_ONE])[0]
    import time

    started = time.monotonic()
    with pytest.raises(OcrError, match=r"timed out after 0\.5 s"):
        ocr.read(image)
    assert time.monotonic() - started < 5


def test_blank_pages_are_not_sent_to_the_engine(tmp_path: Path) -> None:
    from PIL import Image

    never = tmp_path / "never"
    never.write_text("#!/bin/sh\nexit 3\n")
    never.chmod(never.stat().st_mode | stat.S_IEXEC)
    assert PageOcr(program=str(never)).read(Image.new("L", (1200, 1600), 255)) == ""


def test_ocr_chunks_cite_their_page_as_ocr() -> None:
    chunk = Chunk(chunk_id="x", collection="c", source="/a/scan.pdf", text="t", page=3, ocr=True)
    assert chunk.locator == "p. 3 (OCR)"
    assert Chunk(chunk_id="y", collection="c", source="/a/b.pdf", text="t", page=3).locator == "p. 3"


@needs_tesseract
def test_a_scan_with_a_caption_keeps_the_caption_and_is_read_by_ocr(tmp_path: Path) -> None:
    import io

    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    pdf = canvas.Canvas(out, pagesize=A4)
    pdf.drawImage(ImageReader(scanned_images([PAGE_TWO])[0]), 0, 60, width=A4[0], height=A4[1] - 60)
    pdf.drawString(50, 30, "Plate 7")
    pdf.showPage()
    pdf.save()
    path = tmp_path / "plate.pdf"
    path.write_bytes(out.getvalue())
    parser = FileParser()
    try:
        doc = parser.parse(path, path.read_bytes())
        assert [(b.text.strip(), b.ocr) for b in doc.blocks] == [("Plate 7", False)]
        assert doc.ocr_pages == [1]
        assert "Invoice 4471" in next(iter(parser.recognize(path, doc))).text
    finally:
        parser.close()
