"""A switch of the embedding model: detected even at the same dimension, and re-embedding builds the new
index beside the old one, which keeps answering until the new one is complete, also across a kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from indexer import Indexer, LanceStore
from kimas_desktop.control import IndexControl
from kimas_desktop.errors import Cancelled, EmbedderMismatchError
from local_models.fake import HashEmbedder
from tests.indexer.files import small_config, write
from tests.indexer.sync.test_sync import section

ROOT = Path(__file__).resolve().parents[3]


class OtherEmbedder(HashEmbedder):
    """Another model under the same name and dimension: its word vectors come from other seeds."""

    def _word_vector(self, word: str) -> np.ndarray:
        return super()._word_vector("other:" + word)


def _folder(tmp_path: Path, n: int = 12) -> Path:
    folder = tmp_path / "docs"
    for i in range(n):
        write(folder / f"f{i:02d}.md", "".join(section(f"S{i}-{j}", 4) for j in range(3)))
    write(folder / "vacuum.md", "# Database\n\nVacuum the tables every Sunday night.")
    return folder


def _ask(store: LanceStore, embedder: HashEmbedder, mode: str = "hybrid") -> str:
    q = "when to vacuum the tables"
    hits = store.search("c", text=q, vector=embedder.embed_query([q])[0], k=1, mode=mode)  # type: ignore[arg-type]
    return Path(hits[0].chunk.source).name


def test_a_same_dimension_switch_is_detected_and_reembedding_fixes_it(tmp_path: Path) -> None:
    folder, db = _folder(tmp_path), str(tmp_path / "db")
    old, new = HashEmbedder(dim=64), OtherEmbedder(dim=64)
    Indexer(LanceStore(db, embedder=old), old, small_config()).index("c", [folder])

    store = LanceStore(db, embedder=new)
    [info] = store.collections()
    assert info.needs_reembedding and info.embedding_model == new.model_id and info.dim == new.dim
    with pytest.raises(EmbedderMismatchError, match="needs re-embedding"):
        _ask(store, new)
    assert _ask(store, new, mode="fts") == "vacuum.md"  # full-text search needs no vectors
    indexer = Indexer(store, new, small_config())
    with pytest.raises(EmbedderMismatchError, match="kimas reindex c"):
        indexer.index("c", [folder])

    report = indexer.reembed("c")
    assert report.indexed == 13
    assert not store.collection("c").needs_reembedding
    assert _ask(store, new) == "vacuum.md"
    assert LanceStore(db, embedder=old).collection("c").needs_reembedding
    assert indexer.index("c", [folder]).unchanged == 13  # an ordinary sync again


def test_a_cancelled_reembedding_leaves_the_old_index_answering_and_resumes(tmp_path: Path) -> None:
    folder, db = _folder(tmp_path), str(tmp_path / "db")
    old, new = HashEmbedder(dim=64), OtherEmbedder(dim=64)
    Indexer(LanceStore(db, embedder=old), old, small_config()).index("c", [folder])
    control = IndexControl()
    control.cancel()
    with pytest.raises(Cancelled):
        Indexer(LanceStore(db), new, small_config()).reembed("c", control=control)
    assert _ask(LanceStore(db, embedder=old), old) == "vacuum.md"
    Indexer(LanceStore(db), new, small_config()).reembed("c")
    assert _ask(LanceStore(db, embedder=new), new) == "vacuum.md"


REEMBED = textwrap.dedent(
    """
    import sys, time
    import numpy as np
    from indexer import Indexer, LanceStore
    from local_models.fake import HashEmbedder
    from tests.indexer.files import small_config

    class SlowOther(HashEmbedder):
        def _word_vector(self, word):
            return super()._word_vector("other:" + word)
        def embed_passages(self, texts):
            time.sleep(0.05)
            return super().embed_passages(texts)

    store = LanceStore(sys.argv[1], lease_ttl_s=2.0)
    indexer = Indexer(store, SlowOther(dim=64), small_config(), write_batch_rows=12, embed_window=8)
    indexer.reembed("c", on_progress=lambda p: print(p.files_done, flush=True))
    print("finished", flush=True)
    """
)


@pytest.mark.slow
def test_kill_9_during_a_reembedding_keeps_the_old_index_and_the_next_run_completes(tmp_path: Path) -> None:
    folder, db = _folder(tmp_path, n=40), str(tmp_path / "db")
    old = HashEmbedder(dim=64)
    Indexer(LanceStore(db), old, small_config()).index("c", [folder])
    proc = subprocess.Popen(
        [sys.executable, "-c", REEMBED, db],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.strip() == "finished" or (line.strip().isdigit() and int(line) >= 15):
            break
    assert proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()

    assert _ask(LanceStore(db, embedder=old), old) == "vacuum.md"  # the old index still answers
    new = OtherEmbedder(dim=64)
    assert LanceStore(db, embedder=new).collection("c").needs_reembedding
    embedded: list[str] = []

    class Counting(OtherEmbedder):
        def embed_passages(self, texts):  # type: ignore[no-untyped-def]
            embedded.extend(texts)
            return super().embed_passages(texts)

    store = LanceStore(db, embedder=new)
    Indexer(store, Counting(dim=64), small_config(), lease_wait_s=10).reembed("c")
    assert _ask(store, new) == "vacuum.md" and not store.collection("c").needs_reembedding
    total = store.count_chunks("c")
    assert store.collection("c").chunks == total
    assert 0 < len(embedded) < total  # the killed run's vectors were kept
    assert len({c.chunk_id for c in store.chunks("c")}) == total


def test_kimas_collections_shows_needs_reembedding_and_kimas_reindex_fixes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dataclasses import replace

    from app import runtime
    from cli.main import main

    real = runtime.real_builders
    model: list[HashEmbedder] = [HashEmbedder(dim=32)]
    monkeypatch.setattr(
        runtime, "real_builders", lambda: replace(real(), embedder=lambda cfg, cache: model[0])
    )
    folder, data = _folder(tmp_path, n=3), str(tmp_path / "data")
    assert main(["index", str(folder), "--collection", "c", "--data-dir", data, "--quiet"]) == 0
    model[0] = OtherEmbedder(dim=32)  # the user switched to another model of the same size
    capsys.readouterr()
    assert main(["collections", "--data-dir", data]) == 0
    assert "needs re-embedding for the configured embedding model: kimas reindex c" in capsys.readouterr().out
    assert main(["reindex", "c", "--data-dir", data, "--quiet"]) == 0
    assert "collection c: 4 files indexed" in capsys.readouterr().out
    assert main(["collections", "--data-dir", data]) == 0
    assert "needs re-embedding" not in capsys.readouterr().out


def test_a_search_that_read_the_old_tables_while_a_reembedding_finished_searches_the_new_ones(
    tmp_path: Path,
) -> None:
    """The race bench/busy.py hit: a question's search had opened the old tables when the re-embedding
    switched to the new ones and dropped them (lance: 'Not found' for a data file)."""
    folder, db = _folder(tmp_path), str(tmp_path / "db")
    emb = HashEmbedder(dim=64)
    Indexer(LanceStore(db, embedder=emb), emb, small_config()).index("c", [folder])

    class Racing(LanceStore):
        stale = None

        def tables(self, collection: str):  # type: ignore[no-untyped-def]
            if self.stale is not None:  # the first call after the swap: what the search had opened
                tables, self.stale = self.stale, None
                return tables
            return super().tables(collection)

    store = Racing(db, embedder=emb)
    old_tables = store.tables("c")
    Indexer(store, emb, small_config()).reembed("c")  # same model, new tables; the old ones dropped
    store.stale = old_tables
    assert _ask(store, emb) == "vacuum.md"
