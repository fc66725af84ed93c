"""Indexer syncs on real folders: what gets indexed, skipped or failed, and what an incremental sync costs."""

from __future__ import annotations

import os
import random
import shutil
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from indexer import Indexer, LanceStore
from indexer.chunking import chunk_id
from indexer.store.lance_store import StoredChunk
from kimas_desktop.config import IndexerConfig
from kimas_desktop.errors import CollectionBusyError
from kimas_desktop.protocols import Vector
from kimas_desktop.text.words import content_words
from kimas_desktop.types import Chunk, IndexProgress
from local_models.fake import HashEmbedder
from tests.indexer.files import pdf_bytes, small_config, write, write_pdf


class CountingEmbedder(HashEmbedder):
    """Records every passage it embeds."""

    def __init__(self) -> None:
        super().__init__(dim=64)
        self.texts: list[str] = []

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        self.texts.extend(texts)
        return super().embed_passages(texts)


def section(title: str, n: int, seed: int = 0) -> str:
    words = ["river", "stone", "lamp", "cloud", "paper", "garden", "engine", "violin", "harbor", "salt"]
    rng = random.Random(f"{title}-{seed}")
    body = "\n".join(" ".join(rng.choice(words) for _ in range(9)) + "." for _ in range(n))
    return f"## {title}\n\n{body}\n"


def snapshot(store: LanceStore, collection: str) -> dict[str, Any]:
    """Everything a sync leaves behind, minus timestamps."""
    chunks = store.chunks(collection)
    ids = [c.chunk_id for c in chunks]
    assert len(ids) == len(set(ids)), "duplicate chunks"
    manifest = store.manifest(collection)
    indexed = {p for p, r in manifest.items() if r.status == "indexed"}
    assert {c.source for c in chunks} == indexed, "orphaned chunks or files without chunks"
    for path, record in manifest.items():
        assert record.chunks == sum(1 for c in chunks if c.source == path)
    stored = store.tables(collection).stored_chunks(sorted(indexed))
    vectors = {s.chunk.chunk_id: s.vector for s in stored}
    synopsis = store.synopsis(collection)
    terms = None if synopsis is None or synopsis.terms is None else dict(synopsis.terms)
    if chunks:  # the word counts are exact: those of the stored chunks
        assert synopsis is not None and terms == dict(word_counts(c.text for c in chunks))
        assert synopsis.term_total == sum(terms.values())
    return {
        "chunks": sorted(
            (c.chunk_id, c.source, c.text, c.page, c.line_start, c.line_end, c.heading, c.file_hash)
            for c in chunks
        ),
        "files": {p: (r.hash, r.chunks, r.status, r.reason) for p, r in manifest.items()},
        "vectors": vectors,
        "synopsis_count": (store.synopsis(collection) or None) and store.synopsis(collection).chunk_count,  # type: ignore[union-attr]
        "terms": terms,
    }


def word_counts(texts: Iterable[str]) -> Counter[str]:
    return Counter(w for t in texts for w in content_words(t))


def assert_same(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a["chunks"] == b["chunks"]
    assert a["files"] == b["files"]
    assert a["synopsis_count"] == b["synopsis_count"]
    assert a["terms"] == b["terms"]
    assert a["vectors"].keys() == b["vectors"].keys()
    for key, vector in a["vectors"].items():
        np.testing.assert_allclose(vector, b["vectors"][key], atol=1e-6)


def from_scratch(tmp_path: Path, collection: str, folders: list[Path]) -> dict[str, Any]:
    store = LanceStore(str(tmp_path / f"scratch-{random.random()}"))
    Indexer(store, HashEmbedder(dim=64), small_config()).index(collection, folders)
    return snapshot(store, collection)


def test_a_mixed_folder(tmp_path: Path, indexer: Indexer, store: LanceStore) -> None:
    docs = tmp_path / "docs"
    write(docs / "guide.md", "# Guide\n\n" + section("Install", 3) + "\n### Linux\n\nUse apt.\n")
    write(docs / "src" / "tool.py", "import os\n\n\ndef main():\n    return os.getcwd()\n")
    write_pdf(docs / "manual.pdf", ["first page words", "second page words", "third page words"])
    write_pdf(docs / "open.pdf", ["no password needed"], password="")
    write_pdf(docs / "locked.pdf", ["secret"], password="hunter2")
    good = pdf_bytes(["whole"])
    (docs / "broken.pdf").write_bytes(good[: len(good) // 2])
    (docs / "junk.txt").write_bytes(os.urandom(2048) + b"\x00")
    (docs / "clip.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42" + os.urandom(64))
    (docs / "empty.txt").write_text("")
    write(docs / ".hidden" / "secret.md", "never indexed")
    write(docs / "draft.md~", "editor backup")

    report = indexer.index("docs", [docs])

    assert (report.indexed, report.skipped, report.failed, report.deleted) == (4, 4, 1, 0)
    reasons = {Path(p.path).name: (p.kind, p.reason) for p in report.problems}
    assert reasons["locked.pdf"] == ("skipped", "encrypted: it needs a password to open")
    assert reasons["junk.txt"][0] == "skipped" and "binary" in reasons["junk.txt"][1]
    assert reasons["clip.mp4"] == ("skipped", "unsupported file type '.mp4'")
    assert reasons["empty.txt"] == ("skipped", "no text to index")
    assert reasons["broken.pdf"][0] == "failed" and reasons["broken.pdf"][1]
    chunks = store.chunks("docs")
    pages = [c.page for c in chunks if c.source.endswith("manual.pdf")]
    assert pages == [1, 2, 3]
    code = [c for c in chunks if c.source.endswith("tool.py")]
    assert code[0].lines == (1, 5)
    assert {c.heading for c in chunks if c.source.endswith("guide.md")} >= {"Guide > Install > Linux"}
    assert all(Path(c.source).is_absolute() for c in chunks)
    assert not any(".hidden" in c.source or c.source.endswith("~") for c in chunks)
    info = store.collection("docs")
    assert {Path(p.path).name for p in info.problems} == set(reasons)
    snapshot(store, "docs")


def test_a_second_sync_reads_nothing(tmp_path: Path, store: LanceStore) -> None:
    embedder = CountingEmbedder()
    indexer = Indexer(store, embedder, small_config())
    for i in range(5):
        write(tmp_path / "d" / f"f{i}.md", section(f"S{i}", 4))
    first = indexer.index("c", [tmp_path / "d"])
    embedded = len(embedder.texts)
    again = indexer.index("c", [tmp_path / "d"])
    assert (again.indexed, again.unchanged, again.chunks_added) == (0, 5, 0)
    assert len(embedder.texts) == embedded
    assert first.chunks_added == store.count_chunks("c")


def test_an_edit_re_embeds_only_the_chunks_that_changed(tmp_path: Path, store: LanceStore) -> None:
    embedder = CountingEmbedder()
    indexer = Indexer(store, embedder, small_config())
    path = write(tmp_path / "d" / "book.md", "".join(section(f"Chapter {i}", 6) for i in range(8)))
    indexer.index("c", [tmp_path / "d"])
    embedder.texts.clear()
    path.write_text(path.read_text().replace(section("Chapter 3", 6), section("Chapter 3", 6, seed=1)))
    report = indexer.index("c", [tmp_path / "d"])
    assert report.indexed == 1
    assert 0 < len(embedder.texts) < report.chunks_added / 3
    assert all("Chapter 3" in t or t in section("Chapter 3", 6, seed=1) for t in embedder.texts)
    assert_same(snapshot(store, "c"), from_scratch(tmp_path, "c", [tmp_path / "d"]))


def test_moves_copies_and_touches_cost_no_embedding(tmp_path: Path, store: LanceStore) -> None:
    embedder = CountingEmbedder()
    indexer = Indexer(store, embedder, small_config())
    root = tmp_path / "d"
    for i in range(4):
        write(root / "a" / f"f{i}.md", section(f"Part {i}", 5))
    write_pdf(root / "a" / "m.pdf", ["pdf page one", "pdf page two"])
    write(root / "stay.md", section("Stay", 3))
    indexer.index("c", [root])
    embedder.texts.clear()

    (root / "a").rename(root / "b")  # a directory move
    (root / "b" / "f0.md").rename(root / "f0-renamed.md")
    shutil.copy2(root / "b" / "f1.md", root / "copy.md")
    os.utime(root / "stay.md", ns=(1, 1_000_000_000))  # touched, same bytes
    report = indexer.index("c", [root])

    assert embedder.texts == []
    assert report.deleted == 5 and report.indexed == 6 and report.unchanged == 1
    assert_same(snapshot(store, "c"), from_scratch(tmp_path, "c", [root]))


def test_deleted_files_and_folders_leave_nothing(tmp_path: Path, indexer: Indexer, store: LanceStore) -> None:
    root = tmp_path / "d"
    for i in range(3):
        write(root / "sub" / f"f{i}.txt", f"text number {i} about lamps")
    write(root / "keep.txt", "kept text")
    indexer.index("c", [root])
    shutil.rmtree(root / "sub")
    report = indexer.index("c", [root])
    assert report.deleted == 3
    assert {Path(c.source).name for c in store.chunks("c")} == {"keep.txt"}
    assert set(store.manifest("c")) == {str((root / "keep.txt").resolve())}


def test_a_missing_folder_keeps_its_files(tmp_path: Path, indexer: Indexer, store: LanceStore) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    write(a / "x.txt", "alpha text")
    write(b / "y.txt", "beta text")
    indexer.index("c", [a, b])
    b.rename(tmp_path / "unmounted")
    report = indexer.index("c", [a, b])
    assert report.deleted == 0
    assert any(p.path == str(b.resolve()) and "not found" in p.reason for p in report.problems)
    assert store.count_chunks("c") == 2
    report = indexer.index("c", [a])  # the folder was taken out of the collection: now its files go
    assert report.deleted == 1 and store.count_chunks("c") == 1


def test_a_file_that_breaks_its_parser_fails_alone(
    tmp_path: Path, indexer: Indexer, store: LanceStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import indexer.parse.registry as parsers

    real = parsers.parse_markdown

    def fragile(data: bytes) -> Any:
        if b"boom" in data:
            raise RecursionError("maximum recursion depth exceeded")
        return real(data)

    monkeypatch.setattr(parsers, "parse_markdown", fragile)
    write(tmp_path / "d" / "bad.md", "boom")
    write(tmp_path / "d" / "good.md", "fine words")
    report = indexer.index("c", [tmp_path / "d"])
    assert (report.indexed, report.failed) == (1, 1)
    assert report.problems[0].reason == "maximum recursion depth exceeded"


def test_the_size_cap_skips_big_files(tmp_path: Path, store: LanceStore) -> None:
    indexer = Indexer(store, HashEmbedder(dim=64), small_config(max_file_mb=0.001))
    write(tmp_path / "d" / "big.txt", "word " * 1000)
    write(tmp_path / "d" / "small.txt", "word")
    report = indexer.index("c", [tmp_path / "d"])
    assert report.skipped == 1 and "0.001 MB limit" in report.problems[0].reason


def test_progress_reports_files_chunks_and_eta(tmp_path: Path, store: LanceStore) -> None:
    indexer = Indexer(store, HashEmbedder(dim=64), small_config(), embed_window=4)
    for i in range(12):
        write(tmp_path / "d" / f"f{i:02d}.md", section(f"S{i}", 6))
    seen: list[IndexProgress] = []
    indexer.index("c", [tmp_path / "d"], on_progress=seen.append)
    assert seen[-1].finished and seen[-1].files_done == seen[-1].files_total == 12
    assert seen[-1].chunks_done == store.count_chunks("c") and seen[-1].chunks_per_s > 0
    assert [p.files_done for p in seen] == sorted(p.files_done for p in seen)
    assert all(p.current_file.endswith(".md") for p in seen)


def test_orphans_of_a_killed_writer_are_swept_once_its_lease_expired(tmp_path: Path) -> None:
    store = LanceStore(str(tmp_path / "db"), lease_ttl_s=0.5)
    indexer = Indexer(store, HashEmbedder(dim=64), small_config())
    write(tmp_path / "d" / "a.txt", "alpha")
    indexer.index("c", [tmp_path / "d"])
    clean = snapshot(store, "c")
    # What a writer killed between a file's chunk write and its manifest record leaves, for a file since
    # deleted: a lease never released (its heartbeat stopped), and chunks without a record.
    lease = store.lease("c")
    lease._stop.set()
    ghost = str(tmp_path / "d" / "ghost.txt")
    vector = np.ones(64, np.float32) / 8
    store.tables("c").add_chunks(
        [StoredChunk(Chunk(chunk_id("c", ghost, 0, "boo"), "c", ghost, "boo"), 0, vector)]
    )
    with pytest.raises(CollectionBusyError, match=f"process {os.getpid()} on"):
        indexer.index("c", [tmp_path / "d"])  # the writer may still be alive: nothing is swept
    assert ghost in store.tables("c").sources()
    time.sleep(0.6)  # the lease expires
    indexer.index("c", [tmp_path / "d"])
    assert_same(snapshot(store, "c"), clean)


def test_the_synopsis_follows_changes(tmp_path: Path, store: LanceStore) -> None:
    indexer = Indexer(store, HashEmbedder(dim=64), small_config(centroids=3))
    for i in range(30):
        write(tmp_path / "d" / f"f{i}.md", section(f"S{i}", 3))
    indexer.index("c", [tmp_path / "d"])
    state = store.synopsis_state("c")
    assert state is not None and state.changes == 0 and len(state.centroids) == 3
    (tmp_path / "d" / "f0.md").write_text(section("S0", 3, seed=5))  # small change: incremental
    indexer.index("c", [tmp_path / "d"])
    after = store.synopsis_state("c")
    assert after is not None and after.changes > 0 and after.total == store.count_chunks("c")
    for i in range(20):  # a big change: refit from scratch
        (tmp_path / "d" / f"f{i}.md").unlink()
    indexer.index("c", [tmp_path / "d"])
    refit = store.synopsis_state("c")
    assert refit is not None and refit.changes == 0 and refit.total == store.count_chunks("c")


def _random_op(rng: random.Random, root: Path, step: int) -> None:
    files = sorted(p for p in root.rglob("*") if p.is_file())
    dirs = sorted(p for p in root.rglob("*") if p.is_dir())
    op = rng.choice(
        ["create", "create", "edit", "edit", "rename", "move_dir", "delete", "delete_dir", "copy"]
    )
    if op == "create" or not files:
        folder = rng.choice([root, *dirs])
        kind = rng.choice(["md", "txt", "py", "pdf"])
        path = folder / f"n{step}.{kind}"
        if kind == "pdf":
            write_pdf(path, [f"pdf {step} page {i} lamp river" for i in range(rng.randint(1, 3))])
        elif kind == "py":
            write(path, "\n\n".join(f"def f{i}():\n    return {i * step}" for i in range(rng.randint(1, 12))))
        else:
            write(path, "".join(section(f"T{step}-{i}", rng.randint(1, 6)) for i in range(rng.randint(1, 4))))
    elif op == "edit":
        path = rng.choice(files)
        if path.suffix == ".pdf":
            write_pdf(path, [f"edited {step}"])
        else:
            text = path.read_text()
            path.write_text(
                text[: len(text) // 2] + section(f"E{step}", 2) if rng.random() < 0.5 else text + "\nmore"
            )
    elif op == "rename":
        path = rng.choice(files)
        path.rename(rng.choice([root, *dirs]) / f"r{step}{path.suffix}")
    elif op == "move_dir" and dirs:
        folder = rng.choice(dirs)
        target = root / f"moved{step}"
        if not str(target).startswith(str(folder)):
            folder.rename(target)
    elif op == "delete":
        rng.choice(files).unlink()
    elif op == "delete_dir" and dirs:
        shutil.rmtree(rng.choice(dirs))
    elif op == "copy":
        path = rng.choice(files)
        shutil.copy2(path, path.with_name(f"c{step}{path.suffix}"))


@pytest.mark.parametrize("resync_share", [0.2, 100.0])  # 100: incremental synopsis updates throughout
@pytest.mark.parametrize("seed", [1, 2])
def test_random_changes_converge_to_a_from_scratch_index(
    tmp_path: Path, store: LanceStore, seed: int, resync_share: float
) -> None:
    rng = random.Random(seed)
    root = tmp_path / "live"
    for i in range(6):
        write(root / f"d{i % 3}" / f"start{i}.md", section(f"Start {i}", 4))
    indexer = Indexer(
        store, HashEmbedder(dim=64), small_config(), write_batch_rows=16, resync_share=resync_share
    )
    indexer.index("c", [root])
    for step in range(36):
        _random_op(rng, root, step)
        if rng.random() < 0.5:
            indexer.index("c", [root])
            synopsis, chunks = store.synopsis("c"), store.chunks("c")
            counts = None if synopsis is None or synopsis.terms is None else dict(synopsis.terms)
            expected = dict(word_counts(c.text for c in chunks))
            assert counts == expected or (not chunks and counts is None), f"step {step}"
    indexer.index("c", [root])
    assert_same(snapshot(store, "c"), from_scratch(tmp_path, "c", [root]))


def test_a_new_centroid_count_applies_on_the_next_sync(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(12):
        (folder / f"n{i}.txt").write_text(f"note {i} about topic {i % 3} with words {i * 7}")
    store = LanceStore(str(tmp_path / "db"))
    embedder = HashEmbedder()
    Indexer(store, embedder, IndexerConfig(centroids=2)).index("c", [folder])
    assert len(store.synopsis("c").centroids) == 2
    Indexer(store, embedder, IndexerConfig(centroids=5)).index("c", [folder])  # nothing changed on disk
    assert len(store.synopsis("c").centroids) == 5
