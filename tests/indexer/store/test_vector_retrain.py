"""A collection that keeps growing past its vector index (issue 59): LanceDB's ``optimize`` adds the new
rows to the index as deltas searched beside partitions trained on the first rows; ``refresh_indexes``
trains the index again on every row once the table has grown ``RETRAIN_GROWTH`` times past the rows it was
trained on, without losing a row, and the dense search through the retrained index still finds what the
exact search finds.

The rows are real: chunks of real linux-doc files parsed and stored by the indexer, written again as
copies whose vectors are moved a little (as ``bench.scale``'s near-duplicates), through the store's own
``add_chunks``, in writes small enough that each round passes the compaction threshold."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import lancedb
import numpy as np

from indexer import Indexer, LanceStore
from indexer.store.collection_tables import RETRAIN_GROWTH
from indexer.store.lance_store import StoredChunk
from local_models.fake import HashEmbedder
from tests.indexer.files import small_config
from tests.indexer.store.test_vector_index import pytestmark, unpack

__all__ = ["pytestmark"]


def _copies(base: list[StoredChunk], tag: str, rng: np.random.Generator) -> list[StoredChunk]:
    vectors = np.stack([np.asarray(s.vector, np.float32) for s in base])
    moved = vectors + rng.standard_normal(vectors.shape).astype(np.float32) * 0.02
    moved /= np.linalg.norm(moved, axis=1, keepdims=True)
    return [
        StoredChunk(replace(s.chunk, chunk_id=f"{tag}-{s.chunk.chunk_id}"), s.ordinal, moved[i])
        for i, s in enumerate(base)
    ]


def test_a_vector_index_outgrown_by_its_deltas_is_trained_again_on_every_row(tmp_path: Path) -> None:
    unpack(tmp_path / "docs", 40)
    embedder = HashEmbedder(dim=64)
    store = LanceStore(str(tmp_path / "db"), vector_index_rows=1000)
    Indexer(store, embedder, small_config()).index("kernel", [tmp_path / "docs"])
    tables = store.tables("kernel")
    base = tables.stored_chunks(store.manifest("kernel"))
    db = lancedb.connect(str(tmp_path / "db"))
    rng, written = np.random.default_rng(59), len(base)
    indexed: list[tuple[int, int, str]] = []  # rows written, the index's parts, its name
    for round_ in range(12):  # the table grows 13-fold
        rows = _copies(base, f"r{round_}", rng)
        for i in range(0, len(rows), max(1, len(rows) // 20)):  # 20 small writes: compaction runs
            tables.add_chunks(rows[i : i + max(1, len(rows) // 20)])
        written += len(rows)
        tables.refresh_indexes()
        table = db.open_table(tables.chunks_table)
        [index] = [i.name for i in table.list_indices() if i.index_type != "FTS"]
        stats = table.index_stats(index)
        assert stats is not None and stats.num_unindexed_rows == 0
        indexed.append((written, stats.num_indices, index))

    table = db.open_table(tables.chunks_table)
    assert table.count_rows() == written
    assert len(table.to_arrow().column("chunk_id").unique()) == written
    names = [name for _, _, name in indexed]
    assert len(set(names)) >= 3, indexed  # trained again as the table grew, not once at the start
    assert int(names[-1].removeprefix("vector_")) * RETRAIN_GROWTH > written, indexed  # the last training
    assert len(table.list_indices()) == 2  # the full-text index and one vector index
    agree = 0
    for stored in base[:: max(1, len(base) // 40)][:40]:
        vector = np.asarray(stored.vector, np.float32)
        through = store.search("kernel", text="", vector=vector, k=5, mode="dense")
        exact = table.search(vector, vector_column_name="vector").distance_type("cosine").limit(5)
        ids = exact.bypass_vector_index().select(["chunk_id", "_distance"]).to_arrow().column("chunk_id")
        agree += len({h.chunk.chunk_id for h in through} & set(ids.to_pylist()))
    assert agree / (40 * 5) >= 0.8
