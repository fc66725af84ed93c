"""A chunks table lost or damaged under a live store (issue 40, item 8): the store kept its open handle,
so a search showed LanceDB's own error and a sync never saw the table as gone. Now a read that fails
checks the table afresh and raises ``IndexDamagedError``, and the next sync through the same store
rebuilds it from the files. Real LanceDB in tmp_path.
"""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest

from indexer import Indexer, LanceStore
from kimas_desktop.errors import IndexDamagedError, IndexingError
from local_models.fake import HashEmbedder
from tests.indexer.files import small_config

WORDS = ["otters", "herons", "beavers", "kingfishers"]


def _docs(folder: Path) -> Path:
    folder.mkdir()
    for i, animal in enumerate(WORDS):
        text = f"# {animal}\n\nThe {animal} of pond {i} are counted every spring by the wardens."
        (folder / f"{animal}.md").write_text(text, "utf-8")
    return folder


def _search(store: LanceStore, text: str) -> list[str]:
    vector = HashEmbedder(dim=64).embed_query([text])[0]
    return [h.chunk.source for h in store.search("docs", text=text, vector=vector, k=2)]


def _live(tmp_path: Path) -> tuple[LanceStore, Indexer, Path, Path]:
    """A store with "docs" indexed and its tables open (searched once), the indexer using it, the docs
    folder and the chunks table's directory."""
    docs = _docs(tmp_path / "docs")
    store = LanceStore(str(tmp_path / "db"))
    indexer = Indexer(store, HashEmbedder(dim=64), small_config())
    indexer.index("docs", [docs])
    assert _search(store, "herons")[0].endswith("herons.md")
    (chunks,) = (tmp_path / "db").glob("c_docs_*_chunks.lance")
    return store, indexer, docs, chunks


def test_a_chunks_table_deleted_under_a_live_store_is_reported_and_the_next_sync_rebuilds_it(
    tmp_path: Path,
) -> None:
    store, indexer, docs, chunks = _live(tmp_path)
    shutil.rmtree(chunks)

    with pytest.raises(IndexDamagedError) as raised:
        _search(store, "herons")
    err = raised.value
    assert err.collection == "docs" and err.what == "its chunks table is missing"
    assert "Re-index" in str(err) and "LanceError" not in str(err) and ".rs:" not in str(err)
    assert isinstance(err, IndexingError)
    again = pickle.loads(pickle.dumps(err))  # it crosses processes whole
    assert (again.collection, again.what, str(again)) == (err.collection, err.what, str(err))
    problem = store.collection("docs").problems[0]
    assert (problem.path, problem.kind) == ("docs", "failed") and "chunks table is missing" in problem.reason

    report = indexer.index("docs", [docs])  # the app's Re-index: the same store, the same indexer
    assert report.indexed == len(WORDS)  # every file read again, not "4 unchanged"
    assert store.collection("docs").problems == ()
    assert store.count_chunks("docs") == len(WORDS)
    assert _search(store, "herons")[0].endswith("herons.md")


def test_damaged_chunk_files_under_a_live_store_are_reported_and_the_next_sync_rebuilds_them(
    tmp_path: Path,
) -> None:
    store, indexer, docs, chunks = _live(tmp_path)
    data = list((chunks / "data").iterdir())
    assert data
    for f in data:  # a disk error, a half-copied sync client: the bytes are not Lance's any more
        f.write_bytes(b"\0not a lance file\0" * 64)

    with pytest.raises(IndexDamagedError) as raised:
        _search(store, "beavers")
    assert raised.value.what.startswith("its chunks table cannot be read")
    assert store.damage("docs") is not None

    report = indexer.index("docs", [docs])
    assert report.indexed == len(WORDS)
    assert store.damage("docs") is None
    assert _search(store, "beavers")[0].endswith("beavers.md")
