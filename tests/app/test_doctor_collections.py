"""``kimas doctor`` names a collection whose chunks table vanished (issue 21)."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.doctor import collections_report
from app.paths import resolve_paths
from indexer import Indexer, LanceStore
from kimas_desktop.config import Config
from local_models.fake import HashEmbedder
from tests.indexer.files import small_config


def test_the_doctor_reports_a_missing_chunks_table(tmp_path: Path) -> None:
    paths = resolve_paths(str(tmp_path / "data"), None)
    assert collections_report(paths, Config()) == {}
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nThe otters sleep in the afternoon.\n", "utf-8")
    Indexer(LanceStore(paths.db_uri(Config())), HashEmbedder(dim=64), small_config()).index("docs", [docs])
    assert collections_report(paths, Config()) == {"docs": "ok (1 files, 1 chunks)"}
    (chunks,) = (paths.data_dir / "lancedb").glob("c_docs_*_chunks.lance")
    shutil.rmtree(chunks)
    report = collections_report(paths, Config())
    assert "damaged: its chunks table is missing" in report["docs"] and "Index it again" in report["docs"]
