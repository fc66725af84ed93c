"""The lexical half of the routing synopsis: exact word counts, kept up to date incrementally, and filled in
for collections indexed by a version without them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lancedb
import numpy as np
import pytest

from indexer import Indexer, LanceStore
from indexer.store.collection_tables import CollectionTables
from indexer.store.schema import META
from kimas_desktop.config import parse_config
from kimas_desktop.routing.router import CentroidRouter
from local_models.fake import HashEmbedder
from tests.indexer.files import small_config, write
from tests.indexer.sync.test_sync import assert_same, from_scratch, section, snapshot, word_counts


def counts(store: LanceStore, collection: str) -> dict[str, int] | None:
    synopsis = store.synopsis(collection)
    assert synopsis is not None
    return None if synopsis.terms is None else dict(synopsis.terms)


def test_word_counts_after_indexing_are_those_of_the_chunks(
    tmp_path: Path, store: LanceStore, indexer: Indexer
) -> None:
    write(tmp_path / "d" / "bread.md", "# Bread\n\nKnead the dough. The dough rises; sourdough dough rests.")
    write(tmp_path / "d" / "bikes.txt", "Oil the chain. Check the tyre, the tyre pressure and the chain.")
    indexer.index("c", [tmp_path / "d"])
    terms = counts(store, "c")
    assert terms == dict(word_counts(c.text for c in store.chunks("c")))
    assert terms is not None and terms["dough"] == 3 and terms["chain"] == 2 and terms["sourdough"] == 1
    assert "the" not in terms  # stopwords are not counted
    synopsis = store.synopsis("c")
    assert synopsis is not None and synopsis.term_total == sum(terms.values())


def test_edits_deletes_and_renames_update_the_counts_without_a_recount(
    tmp_path: Path, store: LanceStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "d"
    for i in range(30):
        write(folder / f"f{i}.md", section(f"S{i}", 3))
    indexer = Indexer(store, HashEmbedder(dim=64), small_config(centroids=3))
    indexer.index("c", [folder])

    full_reads: list[str] = []
    vectors_and_texts = CollectionTables.vectors_and_texts

    def partial_only(tables: CollectionTables, sources: Any = None) -> Any:
        if sources is None:
            full_reads.append("vectors_and_texts")
        return vectors_and_texts(tables, sources)

    monkeypatch.setattr(CollectionTables, "vectors_and_texts", partial_only)

    for name in ("texts", "vector_parts"):  # what a refit reads (in parts)
        whole = getattr(CollectionTables, name)

        def reads_all(tables: CollectionTables, *args: Any, _name: str = name, _whole: Any = whole) -> Any:
            full_reads.append(_name)
            return _whole(tables, *args)

        monkeypatch.setattr(CollectionTables, name, reads_all)

    (folder / "f0.md").write_text(section("S0", 3, seed=7) + "A zeugma, at last.\n")  # edit
    (folder / "f1.md").unlink()  # delete
    (folder / "f2.md").rename(folder / "renamed.md")  # rename: re-uses the stored chunks
    indexer.index("c", [folder])

    assert full_reads == []  # the counts were updated, not recounted
    monkeypatch.undo()
    state = store.synopsis_state("c")
    assert state is not None and state.changes > 0  # the incremental path
    assert counts(store, "c") == counts_from_scratch(tmp_path, folder)
    assert (counts(store, "c") or {})["zeugma"] == 1


def counts_from_scratch(tmp_path: Path, folder: Path) -> dict[str, int] | None:
    scratch = LanceStore(str(tmp_path / "scratch"))
    Indexer(scratch, HashEmbedder(dim=64), small_config(centroids=3)).index("c", [folder])
    return counts(scratch, "c")


def make_old(db: Path) -> None:
    """Turn the collection table into one written by a version without word counts."""
    lancedb.connect(str(db)).open_table(META).drop_columns(["terms", "term_counts"])


def meta_columns(db: Path) -> list[str]:
    return list(lancedb.connect(str(db)).open_table(META).schema.names)


@pytest.mark.parametrize("change", [False, True])
def test_an_old_table_opens_routes_by_embedding_and_gets_counts_on_the_next_sync(
    tmp_path: Path, change: bool
) -> None:
    folder, db = tmp_path / "d", tmp_path / "db"
    for i in range(12):
        write(folder / f"f{i}.md", section(f"S{i}", 3))
    write(folder / "rare.md", "# Rare\n\nOnly this note mentions the zeugma.")
    Indexer(LanceStore(str(db)), HashEmbedder(dim=64), small_config()).index("c", [folder])
    make_old(db)

    store = LanceStore(str(db))
    [info] = store.collections()
    assert info.chunks > 0 and counts(store, "c") is None  # no word counts: the router uses embeddings
    embedder = HashEmbedder(dim=64)
    router = CentroidRouter(store, embedder, parse_config({}))
    [route] = router.score("zeugma", embedder.embed_query(["zeugma"])[0], ["c"])
    assert route.lexical_score is None and route.score == pytest.approx(1.0)
    assert "terms" not in meta_columns(db)  # reading does not write

    if change:
        (folder / "f3.md").write_text(section("S3", 3, seed=9))
    Indexer(store, embedder, small_config()).index("c", [folder])
    assert {"terms", "term_counts"} <= set(meta_columns(db))
    assert counts(store, "c") == dict(word_counts(c.text for c in store.chunks("c")))
    assert_same(snapshot(store, "c"), from_scratch(tmp_path, "c", [folder]))
    [route] = router.score("zeugma", embedder.embed_query(["zeugma"])[0], ["c"])
    assert route.lexical_score is not None


def test_the_router_reads_word_counts_from_the_store(tmp_path: Path, store: LanceStore) -> None:
    write(tmp_path / "bake" / "bread.md", "# Bread\n\nKnead the sourdough, let the sourdough rise overnight.")
    write(tmp_path / "ride" / "bikes.md", "# Bikes\n\nOil the bicycle chain and check the tyre pressure.")
    embedder = HashEmbedder(dim=64)
    indexer = Indexer(store, embedder, small_config())
    indexer.index("bake", [tmp_path / "bake"])
    indexer.index("ride", [tmp_path / "ride"])
    router = CentroidRouter(store, embedder, parse_config({"routing": {"lexical_weight": 1.0}}))
    routes = router.score("tyre", np.asarray(embedder.embed_query(["tyre"])[0]), ["bake", "ride"])
    assert routes[0].collection == "ride"
    assert routes[0].lexical_score is not None and routes[0].lexical_score > 0
    assert routes[1].lexical_score is not None and routes[1].lexical_score < 0


def test_a_reader_sees_the_counts_another_process_writes(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    write(folder / "a.md", "# A\n\nThe harbor lamp.")
    writer = LanceStore(str(tmp_path / "db"))
    indexer = Indexer(writer, HashEmbedder(dim=64), small_config())
    indexer.index("c", [folder])
    reader = LanceStore(str(tmp_path / "db"), read_consistency_s=0.0)  # the app, while a CLI indexes
    first = reader.synopsis("c")
    assert first is not None and first.terms is not None and "violin" not in first.terms
    assert reader.synopsis("c") is first  # unchanged: the same object, so the router's cache holds
    write(folder / "b.md", "# B\n\nA violin in the harbor.")
    indexer.index("c", [folder])
    after = reader.synopsis("c")
    assert after is not first and after is not None and after.terms is not None
    assert after.terms["violin"] == 1 and after.terms["harbor"] == 2
