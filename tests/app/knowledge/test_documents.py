"""The document manager (``DesktopApp`` → ``app.knowledge.documents`` → ``indexer.sync.file_actions``) on the real indexer
and LanceDB in tmp_path, with the deterministic fake embedder: per-file list, remove, re-index, dismiss."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from app.desktop import DesktopApp
from app.paths import Paths
from app.runtime import Runtime, real_builders
from app.settings.config_store import ConfigStore
from kimas_desktop.config import Config, parse_config
from local_models.fake import HashEmbedder, ScriptedChatModel, WordOverlapReranker
from tests.indexer.files import write


def wait_for(condition: Callable[[], bool], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def open_app(data: Path, config: Config) -> DesktopApp:
    builders = replace(
        real_builders(),
        meaning=None,
        embedder=lambda cfg, cache: HashEmbedder(dim=32),
        chat=lambda cfg: ScriptedChatModel(lambda messages, schema: "{}"),
        reranker=lambda cfg, emb, cache: WordOverlapReranker(),
    )
    paths = Paths(data, data / "config.toml")
    desk = DesktopApp(Runtime(paths, config, builders), ConfigStore(paths.config_file, config))
    desk.start()
    return desk


@pytest.fixture
def desks() -> Iterator[list[DesktopApp]]:
    made: list[DesktopApp] = []
    yield made
    for desk in made:
        desk.close()


def idle(desk: DesktopApp) -> bool:
    return desk.indexing.idle()


def found(desk: DesktopApp, collection: str, word: str) -> list[str]:
    """Sources of the chunks a full-text search for ``word`` retrieves."""
    store = desk.runtime.store(desk.config)
    hits = store.search(collection, text=word, vector=[0.0] * 32, k=10, mode="fts")
    return [h.chunk.source for h in hits]


def test_a_folder_upload_keeps_its_subfolders_and_one_file_can_be_removed(
    tmp_path: Path, desks: list[DesktopApp]
) -> None:
    desk = open_app(tmp_path / "data", parse_config({}))
    desks.append(desk)
    temp = tmp_path / "browser-temp"
    a = write(temp / "1" / "README.md", "# Alpha\n\nThe alpha module is named PERIWINKLE.")
    b = write(temp / "2" / "README.md", "# Beta\n\nThe beta module is named TANGERINE.")
    out = desk.add_uploads(
        "docs", [(a, "proj/alpha/README.md"), (b, "proj/beta/README.md")], keep_folders=True
    )
    assert out.ok and "2 new file(s)" in out.message and "Renamed" not in out.message, out.message
    uploads = desk.knowledge.uploads_root / "docs"
    assert (uploads / "proj" / "alpha" / "README.md").is_file() and (
        uploads / "proj" / "beta" / "README.md"
    ).is_file()
    assert wait_for(lambda: idle(desk) and len(desk.list_documents("docs")) == 2)

    docs = desk.list_documents("docs")
    assert [(d.name, d.status, d.uploaded) for d in docs] == [
        ("proj/alpha/README.md", "indexed", True),
        ("proj/beta/README.md", "indexed", True),
    ]
    assert all(d.chunks >= 1 and d.indexed_at > 0 for d in docs)
    alpha = docs[0].path
    assert found(desk, "docs", "PERIWINKLE") == [alpha]

    out = desk.remove_document("docs", alpha)
    assert out.ok and "'proj/alpha/README.md' removed from 'docs'" in out.message, out.message
    assert found(desk, "docs", "PERIWINKLE") == []  # its text is no longer retrieved
    assert found(desk, "docs", "TANGERINE") != []
    assert [d.name for d in desk.list_documents("docs")] == ["proj/beta/README.md"]
    assert not (uploads / "proj" / "alpha").exists()  # the uploaded copy and its emptied folder are gone
    [status] = desk.knowledge.collections()
    assert status.files == 1 and status.chunks == docs[1].chunks
    # A sync after the removal does not bring it back (the copy is gone).
    desk.reindex("docs")
    assert wait_for(lambda: idle(desk))
    assert [d.name for d in desk.list_documents("docs")] == ["proj/beta/README.md"]


def test_removing_a_file_waits_for_the_collection_writer_lease(
    tmp_path: Path, desks: list[DesktopApp]
) -> None:
    docs = tmp_path / "docs"
    write(docs / "a.md", "Alpha text about PERIWINKLE.")
    desk = open_app(tmp_path / "data", parse_config({"collections": {"c": {"folders": [str(docs)]}}}))
    desks.append(desk)
    assert wait_for(lambda: idle(desk) and len(desk.list_documents("c")) == 1)
    desk.documents.wait_s = 0.3
    store = desk.runtime.store(desk.config)
    with store.lease("c"):  # another writer (a sync) holds the collection
        out = desk.remove_document("c", str(docs / "a.md"))
    assert not out.ok and "c" in out.message, out.message
    assert found(desk, "c", "PERIWINKLE") == [str(docs / "a.md")]  # nothing was removed

    out = desk.remove_document("c", str(docs / "a.md"))
    assert out.ok and "still in the watched folder" in out.message, out.message
    assert (docs / "a.md").is_file()  # a file watched in place stays on disk
    assert found(desk, "c", "PERIWINKLE") == [] and desk.list_documents("c") == []


def test_a_file_is_read_again_on_request(tmp_path: Path, desks: list[DesktopApp]) -> None:
    docs = tmp_path / "docs"
    write(docs / "a.md", "Alpha text about PERIWINKLE.")
    desk = open_app(tmp_path / "data", parse_config({"collections": {"c": {"folders": [str(docs)]}}}))
    desks.append(desk)
    assert wait_for(lambda: idle(desk) and len(desk.list_documents("c")) == 1)
    [before] = desk.list_documents("c")
    out = desk.reindex_document("c", before.path)
    assert out.ok and "Reading 'a.md' again" in out.message, out.message
    assert wait_for(lambda: idle(desk) and desk.list_documents("c")[0].indexed_at > before.indexed_at)
    [after] = desk.list_documents("c")
    assert after.chunks == before.chunks and found(desk, "c", "PERIWINKLE") == [
        before.path
    ]  # replaced, not doubled
    report = desk.indexing.report("c")
    assert report is not None and report.indexed == 1


def test_a_dismissed_problem_stops_warning_also_after_a_restart(
    tmp_path: Path, desks: list[DesktopApp]
) -> None:
    docs = tmp_path / "docs"
    write(docs / "good.md", "Alpha text about PERIWINKLE.")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.7\nthis is not a PDF at all")
    config = parse_config({"collections": {"c": {"folders": [str(docs)]}}})
    data = tmp_path / "data"
    desk = open_app(data, config)
    desks.append(desk)
    assert wait_for(lambda: idle(desk) and len(desk.list_documents("c")) == 2)
    broken = next(d for d in desk.list_documents("c") if d.name == "broken.pdf")
    assert broken.status == "failed" and broken.reason and broken.problem
    assert [p.path for p in desk.knowledge.collections()[0].problems] == [broken.path]
    desk.close()
    desks.remove(desk)

    # Without a dismissal, every start warns again.
    desk = open_app(data, config)
    desks.append(desk)
    assert wait_for(lambda: idle(desk) and any(a.kind == "problem" for a in desk.indexing.activity()))
    assert not desk.dismiss_problem("c", str(docs / "good.md")).ok  # nothing to dismiss there
    out = desk.dismiss_problem("c", broken.path)
    assert out.ok and "broken.pdf" in out.message, out.message
    assert desk.knowledge.collections()[0].problems == ()
    [shown] = [d for d in desk.list_documents("c") if d.name == "broken.pdf"]
    assert shown.dismissed and not shown.problem and shown.status == "failed"
    desk.close()
    desks.remove(desk)

    desk = open_app(data, config)  # the dismissal was saved: no ⚠ at the start-up check
    desks.append(desk)
    time.sleep(0.3)
    assert wait_for(lambda: idle(desk))
    assert [a for a in desk.indexing.activity() if a.kind == "problem"] == []
    assert desk.knowledge.collections()[0].problems == ()
