"""The pages waiting for OCR reach the UI: a real Indexer (LanceDB in tmp_path, real Tesseract) run by the
IndexScheduler reports its OCR backlog, and the Knowledge tab's progress line says it while it lasts."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from app.knowledge.indexing import IndexingState, ProgressCallback
from app.knowledge.scheduler import IndexScheduler
from indexer import Indexer
from indexer.parse.ocr import tesseract
from kimas_desktop.control import IndexControl
from kimas_desktop.types import IndexProgress, IndexReport
from tests.indexer.scans import scanned_pdf_bytes
from ui.knowledge.collections_view import progress_html

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(tesseract() is None, reason="Tesseract (tesseract-ocr) is not installed"),
]


class Watched:
    """The real Indexer; after each progress report, what the scheduler shows (``seen``)."""

    def __init__(self, indexer: Indexer) -> None:
        self.indexer = indexer
        self.scheduler: IndexScheduler | None = None
        self.seen: list[IndexingState] = []
        self.reports: list[IndexReport] = []

    def index(
        self,
        collection: str,
        folders: Sequence[Path],
        on_progress: ProgressCallback | None = None,
        control: IndexControl | None = None,
    ) -> IndexReport:
        assert on_progress is not None and self.scheduler is not None
        scheduler, report_to = self.scheduler, on_progress

        def progress(p: IndexProgress) -> None:
            report_to(p)
            self.seen.append(scheduler.state())

        report = self.indexer.index(collection, folders, progress, control)
        self.reports.append(report)
        return report

    def reembed(self, *args: object, **kwargs: object) -> IndexReport:
        raise AssertionError("not used")

    def remove(self, collection: str) -> None:
        self.indexer.remove(collection)


def test_the_progress_line_counts_the_pages_waiting_for_ocr(tmp_path: Path, indexer: Indexer) -> None:
    folder = tmp_path / "scans"
    folder.mkdir()
    (folder / "ledger.pdf").write_bytes(scanned_pdf_bytes(["Ledger 1911", "Coal delivered", "Oil delivered"]))
    watched = Watched(indexer)
    scheduler = IndexScheduler(lambda: watched, {"ledger": [folder]}.get, debounce_s=0.1)
    watched.scheduler = scheduler
    try:
        scheduler.submit("ledger", "test")
        deadline = time.monotonic() + 120
        while not watched.reports and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        scheduler.close()
    assert watched.reports and watched.reports[0].indexed == 1

    waiting = [s.ocr_pages_waiting for s in watched.seen]
    assert max(waiting) == 3 and waiting[-1] == 0  # the three scanned pages, counted down to none
    busiest = next(s for s in watched.seen if s.ocr_pages_waiting == 3)
    assert "3 pages waiting for OCR" in progress_html(busiest)
    assert "waiting for OCR" not in progress_html(watched.seen[-1])
    one = IndexingState(True, "ledger", files_done=0, files_total=1, ocr_pages_waiting=1)
    assert "· 1 page waiting for OCR" in progress_html(one)
