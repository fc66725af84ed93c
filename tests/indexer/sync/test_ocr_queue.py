"""OCR queues behind: through the real indexer (LanceDB in tmp_path, the deterministic embedder), text
files are finished before scanned pages are read, the progress counts the pages waiting for OCR, and the
OCR chunks are stored after the file's text-layer chunks."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from indexer import Indexer, LanceStore
from indexer.parse.ocr import tesseract
from kimas_desktop.types import IndexProgress
from tests.indexer.files import pdf_bytes
from tests.indexer.scans import scanned_images, scanned_pdf_bytes

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(tesseract() is None, reason="Tesseract (tesseract-ocr) is not installed"),
]


def test_text_files_flow_first_and_the_ocr_backlog_is_reported(
    tmp_path: Path, indexer: Indexer, store: LanceStore
) -> None:
    from pypdf import PdfReader, PdfWriter

    folder = tmp_path / "docs"
    folder.mkdir()
    writer = PdfWriter()
    text_page = pdf_bytes(["Chapter one is typed: the keeper lights the lamp at dusk every evening."])
    scans = scanned_pdf_bytes(
        ["The relief boat arrives on Tuesdays\nwith diesel and letters.", "Gale warning\nlog 1911"]
    )
    for data in (text_page, scans):
        writer.append(PdfReader(io.BytesIO(data)))
    with (folder / "a-mixed.pdf").open("wb") as f:
        writer.write(f)
    (folder / "b-notes.md").write_text("# Notes\n\nThe lamp uses paraffin.\n")
    scanned_images(["The fog horn was tested in May."])[0].save(folder / "c-photo.png")

    reports: list[IndexProgress] = []
    report = indexer.index("c", [folder], on_progress=reports.append)

    assert report.indexed == 3 and report.failed == 0 and report.skipped == 0
    finished = {Path(p).name: r.indexed_at for p, r in store.manifest("c").items()}
    # a-mixed.pdf comes first in the folder, but its scanned pages wait until the text files are done.
    assert finished["b-notes.md"] < finished["a-mixed.pdf"]
    assert finished["b-notes.md"] < finished["c-photo.png"]
    assert max(r.ocr_pages_waiting for r in reports) >= 2
    assert reports[-1].finished and reports[-1].ocr_pages_waiting == 0

    by_page = {c.page: c.text for c in store.chunks("c") if c.source.endswith("a-mixed.pdf")}
    assert "keeper lights the lamp" in by_page[1]
    assert "relief boat arrives on Tuesdays" in by_page[2]
    assert "Gale warning" in by_page[3]
    photo = [c for c in store.chunks("c") if c.source.endswith("c-photo.png")]
    assert len(photo) == 1 and "fog horn was tested" in photo[0].text


def test_a_broken_image_fails_alone(tmp_path: Path, indexer: Indexer) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    (folder / "notes.md").write_text("# Notes\n\nThe lamp uses paraffin.\n")
    report = indexer.index("c", [folder])
    assert (report.indexed, report.failed) == (1, 1)
    assert "not a readable image" in report.problems[0].reason
