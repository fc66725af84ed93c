"""LanceStore on a real LanceDB in tmp_path: searching, scores, collection records and embedder checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from indexer import Indexer, LanceStore
from indexer.store.lance_store import StoredChunk
from kimas_desktop.errors import CollectionNotFoundError, EmbedderMismatchError
from kimas_desktop.protocols import ChunkSearcher
from kimas_desktop.types import Chunk
from local_models.fake import HashEmbedder
from tests.indexer.files import small_config, write
from tests.local_models.contracts import SEARCHER_DOCS, ChunkSearcherContract

TOPICS = {
    "bread.md": "# Bread\n\nKnead the dough for ten minutes, then let the sourdough rise overnight.",
    "bikes.md": "# Bikes\n\nOil the bicycle chain and check the tyre pressure every week.",
    "tax.md": "# Taxes\n\nFile the income tax return before the end of April.",
}


@pytest.fixture
def filled(tmp_path: Path, store: LanceStore, indexer: Indexer) -> LanceStore:
    for name, text in TOPICS.items():
        write(tmp_path / "docs" / name, text)
    indexer.index("notes", [tmp_path / "docs"])
    return store


def ask(store: LanceStore, embedder: HashEmbedder, text: str, mode: str, k: int = 3) -> list[str]:
    hits = store.search("notes", text=text, vector=embedder.embed_query([text])[0], k=k, mode=mode)  # type: ignore[arg-type]
    return [Path(h.chunk.source).name for h in hits]


def test_lance_store_is_a_chunk_searcher(store: LanceStore) -> None:
    assert isinstance(store, ChunkSearcher)


@pytest.mark.parametrize("mode", ["dense", "fts", "hybrid"])
def test_every_mode_finds_the_right_file_first(filled: LanceStore, embedder: HashEmbedder, mode: str) -> None:
    assert ask(filled, embedder, "knead sourdough dough rise overnight", mode)[0] == "bread.md"
    assert ask(filled, embedder, "bicycle chain oil", mode)[0] == "bikes.md"


def test_scores_are_best_first_and_hybrid_is_rank_fusion(filled: LanceStore, embedder: HashEmbedder) -> None:
    q = "income tax return"
    vec = embedder.embed_query([q])[0]
    for mode in ("dense", "fts", "hybrid"):
        hits = filled.search("notes", text=q, vector=vec, k=3, mode=mode)  # type: ignore[arg-type]
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)
        assert all(h.origin == mode for h in hits)
    top = filled.search("notes", text=q, vector=vec, k=1, mode="hybrid")[0]
    assert top.score == pytest.approx(2 / 61)  # first in both lists
    dense_top = filled.search("notes", text=q, vector=vec, k=1, mode="dense")[0]
    assert dense_top.score == pytest.approx(
        float(embedder.embed_passages([top.chunk.text])[0] @ vec), abs=1e-5
    )


@pytest.mark.parametrize("mode", ["dense", "fts", "hybrid"])
def test_hits_carry_their_stored_vector(filled: LanceStore, embedder: HashEmbedder, mode: str) -> None:
    """The reranker reuses these instead of embedding the candidates again: they must be the text's."""
    q = "income tax return"
    hits = filled.search("notes", text=q, vector=embedder.embed_query([q])[0], k=3, mode=mode)  # type: ignore[arg-type]
    assert hits
    for hit in hits:
        assert hit.vector is not None
        assert np.allclose(hit.vector, embedder.embed_passages([hit.chunk.text])[0], atol=1e-6)


def test_search_results_are_whole_chunks(filled: LanceStore, embedder: HashEmbedder, tmp_path: Path) -> None:
    hit = filled.search("notes", text="tyre pressure", vector=embedder.embed_query(["tyre"])[0], k=1)[0]
    assert hit.chunk.source == str((tmp_path / "docs" / "bikes.md").resolve())
    assert hit.chunk.heading == "Bikes" and hit.chunk.lines == (1, 3)
    assert hit.chunk.file_hash and hit.chunk.indexed_at > 0 and hit.chunk.collection == "notes"


def test_odd_query_text_does_not_break_full_text_search(filled: LanceStore, embedder: HashEmbedder) -> None:
    for text in ['"unclosed', "a:b (c", "AND OR NOT", "*", "", "   ", "ünïcödé – 日本語"]:
        hits = filled.search("notes", text=text, vector=embedder.embed_query(["x"])[0], k=3)
        assert len(hits) <= 3


def test_collection_records(filled: LanceStore, tmp_path: Path) -> None:
    [info] = filled.collections()
    assert (info.name, info.files, info.chunks, info.dim) == ("notes", 3, 3, 64)
    assert info.embedding_model == "fake/hash-embedder"
    assert info.folders == (str((tmp_path / "docs").resolve()),)
    assert info.updated_at is not None
    syn = filled.synopsis("notes")
    assert syn is not None and syn.chunk_count == 3 and len(syn.centroids) == 3
    assert len(syn.centroids[0]) == 64


def test_another_embedder_is_a_clear_error(filled: LanceStore, tmp_path: Path) -> None:
    other = Indexer(filled, HashEmbedder(dim=48, model_id="fake/other"), small_config())
    with pytest.raises(EmbedderMismatchError, match=r"fake/hash-embedder.*fake/other"):
        other.index("notes", [tmp_path / "docs"])
    with pytest.raises(EmbedderMismatchError, match="48-d"):
        filled.search("notes", text="x", vector=np.zeros(48, np.float32), k=1)


def test_remove_collection(filled: LanceStore) -> None:
    filled.remove_collection("notes")
    assert filled.collections() == []
    with pytest.raises(CollectionNotFoundError):
        filled.search("notes", text="x", vector=np.zeros(64, np.float32), k=1)
    with pytest.raises(CollectionNotFoundError):
        filled.remove_collection("notes")


def test_new_rows_are_searchable_at_once_and_quotes_in_paths_are_safe(store: LanceStore) -> None:
    store.open_collection("c", embedding_model="m", dim=4)
    source = '/it\'s/a "path".md'
    chunk = Chunk("id1", "c", source, "zeppelin manual")
    store.tables("c").add_chunks([StoredChunk(chunk, 0, np.ones(4, np.float32) / 2)])
    hits = store.search("c", text="zeppelin", vector=np.ones(4, np.float32) / 2, k=5, mode="fts")
    assert [h.chunk.source for h in hits] == [source]
    assert store.tables("c").sources() == {source}
    store.tables("c").delete_sources([source])
    assert store.count_chunks("c") == 0


def test_a_vector_index_appears_once_the_collection_is_large(tmp_path: Path, embedder: HashEmbedder) -> None:
    store = LanceStore(str(tmp_path / "db"), vector_index_rows=300)
    folder = tmp_path / "many"
    words = [f"word{i}" for i in range(400)]
    for i in range(320):
        write(folder / f"f{i}.txt", " ".join(words[(i * 7 + j) % 400] for j in range(12)))
    Indexer(store, embedder, small_config()).index("big", [folder])
    table = store.tables("big")._chunks
    assert {i.index_type for i in table.list_indices()} >= {"FTS"}
    assert any(i.index_type != "FTS" for i in table.list_indices())
    query = " ".join(words[(5 * 7 + j) % 400] for j in range(12))
    hits = store.search("big", text=query, vector=embedder.embed_query([query])[0], k=3)
    assert Path(hits[0].chunk.source).name == "f5.txt"


class TestLanceStoreContract(ChunkSearcherContract):
    """The searcher contract the in-memory fake passes too (tests/local_models/test_fake.py)."""

    @pytest.fixture
    def searcher(self, tmp_path: Path, store: LanceStore, indexer: Indexer) -> LanceStore:
        for collection, files in SEARCHER_DOCS.items():
            folder = tmp_path / "contract" / collection
            folder.mkdir(parents=True)
            for name, text in files.items():
                write(folder / name, text)
            indexer.index(collection, [folder])
        return store


@pytest.mark.parametrize("mode", ["dense", "fts", "hybrid"])
def test_copies_of_a_file_take_one_place_in_the_results(
    tmp_path: Path, store: LanceStore, indexer: Indexer, embedder: HashEmbedder, mode: str
) -> None:
    for name, text in TOPICS.items():
        write(tmp_path / "docs" / name, text)
    for i in range(6):  # the same bytes at six more paths
        write(tmp_path / "docs" / f"copy{i}" / "bread.md", TOPICS["bread.md"])
    indexer.index("notes", [tmp_path / "docs"])
    q = "knead the sourdough dough"
    hits = store.search("notes", text=q, vector=embedder.embed_query([q])[0], k=3, mode=mode)  # type: ignore[arg-type]
    assert Path(hits[0].chunk.source).name == "bread.md"
    assert len({h.chunk.text for h in hits}) == len(hits) == (1 if mode == "fts" else 3)
    copy = str((tmp_path / "docs" / "copy3" / "bread.md").resolve())
    only = store.search("notes", text=q, vector=embedder.embed_query([q])[0], k=3, mode=mode, sources=[copy])  # type: ignore[arg-type]
    assert [h.chunk.source for h in only] == [copy]
