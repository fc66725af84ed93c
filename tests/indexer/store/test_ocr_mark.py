"""The OCR mark is stored: a scanned page's chunk comes back from LanceDB as "p. 2 (OCR)", and a chunks table
made before the mark existed still opens, reads, searches and takes new rows (real LanceDB in tmp_path)."""

from __future__ import annotations

from pathlib import Path

import lancedb
import numpy as np
import pytest

from indexer import Indexer, LanceStore
from indexer.parse.ocr import tesseract
from indexer.store.schema import StoredChunk, table_prefix
from kimas_desktop.types import Chunk
from local_models.fake import HashEmbedder
from tests.indexer.files import pdf_bytes
from tests.indexer.scans import scanned_pdf_bytes


@pytest.mark.slow
@pytest.mark.skipif(tesseract() is None, reason="Tesseract (tesseract-ocr) is not installed")
def test_a_scanned_page_is_cited_as_ocr_and_a_typed_one_is_not(
    tmp_path: Path, indexer: Indexer, store: LanceStore, embedder: HashEmbedder
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "scan.pdf").write_bytes(
        scanned_pdf_bytes(["Harbour office", "The tide tables are in the cabinet."])
    )
    (folder / "typed.pdf").write_bytes(pdf_bytes(["The lighthouse keeper logs the weather at noon."]))
    indexer.index("c", [folder])

    scanned = store.search(
        "c", text="tide tables cabinet", vector=embedder.embed_query(["tide tables"])[0], k=1
    )
    assert scanned[0].chunk.source.endswith("scan.pdf") and scanned[0].chunk.locator == "p. 2 (OCR)"
    typed = store.search(
        "c", text="lighthouse keeper", vector=embedder.embed_query(["lighthouse keeper"])[0], k=1
    )
    assert typed[0].chunk.source.endswith("typed.pdf") and typed[0].chunk.locator == "p. 1"


def test_a_table_made_before_the_ocr_mark_opens_and_takes_marked_rows(tmp_path: Path) -> None:
    uri = str(tmp_path / "db")
    old = LanceStore(uri)
    old.open_collection("c", embedding_model="m", dim=4)
    vector = np.ones(4, np.float32) / 2
    old.tables("c").add_chunks(
        [StoredChunk(Chunk("a", "c", "/old.pdf", "zeppelin manual", page=3), 0, vector)]
    )
    chunks_table = f"{table_prefix('c')}_chunks"
    lancedb.connect(uri).open_table(chunks_table).drop_columns(["ocr"])  # as an older version left it

    def columns() -> list[str]:
        return list(lancedb.connect(uri).open_table(chunks_table).schema.names)

    store = LanceStore(uri)
    [hit] = store.search("c", text="zeppelin", vector=vector, k=5, mode="hybrid")
    assert hit.chunk.locator == "p. 3" and not hit.chunk.ocr
    assert [c.locator for c in store.chunks("c")] == ["p. 3"]
    assert "ocr" not in columns()  # reading does not write
    scan = Chunk("b", "c", "/scan.pdf", "airship mooring mast", page=2, ocr=True)
    store.tables("c").add_chunks([StoredChunk(scan, 0, vector)])
    assert "ocr" in columns()
    by_id = {c.chunk_id: c.locator for c in store.chunks("c")}
    assert by_id == {"a": "p. 3", "b": "p. 2 (OCR)"}
    [hit] = store.search("c", text="airship", vector=vector, k=5, mode="fts")
    assert hit.chunk.locator == "p. 2 (OCR)"
