"""Faults that used to leave a collection wrong (issue 21): a full disk mid-sync, a chunks table that vanished.

Real LanceDB; the full disk is a real 1 MB tmpfs (mounting needs root: skipped otherwise).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from indexer import Indexer, LanceStore
from kimas_desktop.errors import IndexingError
from local_models.fake import HashEmbedder
from tests.indexer.files import small_config


def _docs(folder: Path, n: int = 120) -> Path:
    folder.mkdir()
    for i in range(n):
        paragraphs = [
            " ".join(f"word{(i * 7 + j * 3 + k) % 997}" for k in range(60)) + "." for j in range(12)
        ]
        (folder / f"f{i:03}.md").write_text(f"# Doc {i}\n\n" + "\n\n".join(paragraphs), "utf-8")
    return folder


def _indexer(uri: Path) -> Indexer:
    return Indexer(LanceStore(str(uri)), HashEmbedder(dim=64), small_config())


def _state(indexer: Indexer, name: str) -> tuple[int, int, int, int]:
    """(recorded files, recorded chunks, files in the manifest, chunks in the table)."""
    store = indexer._store
    info = store.collection(name)
    manifest = store.manifest(name)
    return (
        info.files,
        info.chunks,
        sum(r.status == "indexed" for r in manifest.values()),
        store.count_chunks(name),
    )


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    point = tmp_path / "disk"
    point.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(point)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=False)


def test_a_full_disk_leaves_a_consistent_collection_that_the_next_sync_completes(
    tmp_path: Path, small_disk: Path
) -> None:
    docs = _docs(tmp_path / "docs")
    with pytest.raises(IndexingError) as failed:
        _indexer(small_disk / "db").index("docs", [docs])
    message = str(failed.value)
    assert "No space left on device" in message and "index again" in message
    assert ".rs:" not in message and "LanceError" not in message  # words, not Rust source locations
    files, chunks, manifest_files, table_chunks = _state(_indexer(small_disk / "db"), "docs")
    assert 0 < manifest_files < 120
    assert (files, chunks) in ((manifest_files, table_chunks), (0, 0))  # recorded, if the disk allowed it

    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)  # space freed
    again = _indexer(small_disk / "db")
    report = again.index("docs", [docs])
    assert report.indexed + report.unchanged == 120 and report.failed == 0
    fresh = _indexer(tmp_path / "fresh")
    fresh.index("docs", [docs])
    assert _state(again, "docs") == _state(fresh, "docs")
    assert _state(fresh, "docs")[0] == 120
    assert again.index("docs", [docs]).indexed == 0  # and it stays put


def test_a_vanished_chunks_table_is_detected_and_a_sync_rebuilds_it(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs", 12)
    db = tmp_path / "db"
    first = _indexer(db)
    first.index("docs", [docs])
    before = _state(first, "docs")
    (chunks_dir,) = db.glob("c_docs_*_chunks.lance")
    shutil.rmtree(chunks_dir)

    store = LanceStore(str(db))  # the next start
    problem = store.collection("docs").problems[0]
    assert problem.kind == "failed" and "chunks table is missing" in problem.reason
    assert "Index it again" in problem.reason
    with pytest.raises(IndexingError, match="is damaged"):
        store.search("docs", text="word1", vector=HashEmbedder(dim=64).embed_passages(["word1"])[0], k=3)
    repaired = Indexer(store, HashEmbedder(dim=64), small_config())
    report = repaired.index("docs", [docs])
    assert report.indexed == 12  # all read again, not "12 unchanged"
    assert _state(repaired, "docs") == before
    assert store.collection("docs").problems == ()
    assert store.search("docs", text="word1", vector=HashEmbedder(dim=64).embed_passages(["word1"])[0], k=3)
