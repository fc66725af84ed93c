"""The parser worker process starts by module name (``indexer.parse.worker``), so neither the modules beside
it (``indexer/parse/html.py`` is not the standard library's ``html``) nor those in the working directory
(a folder the user indexes may hold a ``pypdf.py``) are imported in its place."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.parse.pdf import ParserWorker
from tests.indexer.files import write_pdf

SHADOWS = ("html", "pypdf", "docx", "indexer")


def test_the_worker_imports_neither_its_neighbours_nor_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import docx

    here = tmp_path / "cwd"
    here.mkdir()
    for name in SHADOWS:
        (here / f"{name}.py").write_text(f"raise ImportError('{name} shadowed by the working directory')\n")
    monkeypatch.chdir(here)
    pdf = write_pdf(tmp_path / "manual.pdf", ["The pump starts at dawn."])
    document = docx.Document()
    document.add_heading("Field manual", level=1)
    document.add_paragraph("Carry a compass and a whistle.")
    word = tmp_path / "field.docx"
    document.save(str(word))

    worker = ParserWorker(page_timeout_s=60.0)
    try:
        assert [page.text.strip() for page in worker.pages(pdf, [])] == ["The pump starts at dawn."]
        blocks = list(worker.blocks(word))
    finally:
        worker.close()
    assert [b.text for b in blocks] == ["Field manual", "Carry a compass and a whistle."]
    assert blocks[1].heading == "Field manual"
