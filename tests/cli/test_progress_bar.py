"""`kimas index`'s progress bar: it says how many pages wait for OCR, and a redraw without them leaves
nothing of that text behind on the line."""

from __future__ import annotations

import io

from cli.collections_cmd import ProgressBar
from kimas_desktop.types import IndexProgress


def progress(done: int, waiting: int, *, finished: bool = False) -> IndexProgress:
    return IndexProgress("c", done, 4, "/docs/scan.pdf", done * 3, 2.0, 10.0, finished, waiting)


def test_the_bar_counts_the_pages_waiting_for_ocr_and_clears_them() -> None:
    out = io.StringIO()
    bar = ProgressBar(out)
    bar(progress(2, 12))
    bar(progress(3, 1))
    bar(progress(4, 0, finished=True))
    first, second, last = out.getvalue().rstrip("\n").split("\r")[1:]
    assert "12 pages waiting for OCR" in first
    assert "1 page waiting for OCR" in second
    assert "OCR" not in last
    assert len(first) <= len(second) <= len(last)  # each redraw covers the one before
