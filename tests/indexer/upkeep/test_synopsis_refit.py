"""A refit of the routing synopsis reads the collection in parts (issue 59): k-means on a sample spread
over the collection, then every vector to its nearest centroid; the means and counts are those of all
members, and nothing loads every vector at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from indexer import Indexer, LanceStore
from indexer.store.collection_tables import CollectionTables
from indexer.upkeep.synopsis import sample_of
from indexer.upkeep.synopsis_upkeep import SynopsisUpkeep
from local_models.fake import HashEmbedder
from tests.indexer.files import small_config, write

TOPICS = ["harbor boats tide", "violin concerto bow", "glacier ice moraine", "compiler parser token"]


def test_a_sample_is_spread_over_every_part() -> None:
    parts = [np.arange(i, i + 7, dtype=np.float32).reshape(-1, 1) for i in range(0, 21, 7)]
    picked = sample_of(parts, total=21, size=5)
    assert picked.ravel().tolist() == [0, 5, 10, 15, 20]


def test_a_refit_on_a_sample_counts_every_chunk_and_means_its_members(
    tmp_path: Path, store: LanceStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "d"
    for i in range(80):
        words = TOPICS[i % 4].split()
        write(folder / f"f{i}.md", f"# Note {i}\n\n" + " ".join(words[(i + j) % 3] for j in range(20)))
    Indexer(store, HashEmbedder(dim=64), small_config(centroids=4)).index("c", [folder])
    tables = store.tables("c")

    def not_at_once(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a refit read every vector at once")

    monkeypatch.setattr(CollectionTables, "vectors_and_texts", not_at_once)
    state = SynopsisUpkeep(store, 4, sample=10).refit(tables)
    monkeypatch.undo()

    vectors, _ = tables.vectors_and_texts()
    assert state.total == len(vectors) == store.count_chunks("c")
    labels = np.argmax(vectors @ state.centroids.T - 0.5 * (state.centroids**2).sum(axis=1), axis=1)
    for j, centroid in enumerate(state.centroids):
        members = vectors[labels == j]
        assert len(members) == state.counts[j]
        if len(members):
            assert np.allclose(centroid, members.mean(axis=0), atol=1e-5)
    assert state.terms is not None and state.terms["harbor"] > 0
