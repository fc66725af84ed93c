"""A large collection on a slice of real files (issue 59): Debian's linux-doc tree, as in bench.scale.

The sync compacts its many small writes without losing a row, adds the vector index once the collection
passes ``vector_index_rows``, and a dense search through that index finds what the exact search finds."""

from __future__ import annotations

import gzip
from pathlib import Path

import lancedb
import pytest

from indexer import Indexer, LanceStore
from local_models.fake import HashEmbedder
from tests.indexer.files import small_config

LINUX_DOC = Path("/usr/share/doc/linux-doc-6.1/Documentation")

pytestmark = pytest.mark.skipif(
    not LINUX_DOC.is_dir(), reason="needs Debian's linux-doc-6.1 (apt-get install linux-doc-6.1)"
)


def unpack(dest: Path, files: int) -> None:
    for path in sorted(LINUX_DOC.rglob("*.rst.gz"))[:files]:
        out = dest / path.relative_to(LINUX_DOC).with_suffix("")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(gzip.decompress(path.read_bytes()))


def test_a_large_collection_is_compacted_indexed_and_searched_like_the_exact_search(
    tmp_path: Path,
) -> None:
    unpack(tmp_path / "docs", 800)
    embedder = HashEmbedder(dim=64)
    store = LanceStore(str(tmp_path / "db"), vector_index_rows=2000)
    indexer = Indexer(store, embedder, small_config(), write_batch_rows=256)
    report = indexer.index("kernel", [tmp_path / "docs"])

    table = lancedb.connect(str(tmp_path / "db")).open_table(store.tables("kernel").chunks_table)
    manifest = store.manifest("kernel").values()
    assert table.count_rows() == sum(r.chunks for r in manifest) == report.chunks_added > 2000
    assert len(table.to_arrow().column("chunk_id").unique()) == table.count_rows()
    assert table.stats()["fragment_stats"]["num_fragments"] <= 4  # a write of 256 rows is a fragment
    assert {i.index_type for i in table.list_indices()} == {"FTS", "IvfHnswSq"}

    chunks = store.chunks("kernel")
    agree = 0
    for chunk in chunks[:: len(chunks) // 60][:60]:
        question = " ".join(chunk.text.split()[:12])
        vector = embedder.embed_query([question])[0]
        indexed = store.search("kernel", text=question, vector=vector, k=5, mode="dense")
        exact = table.search(vector, vector_column_name="vector").distance_type("cosine").limit(5)
        ids = exact.bypass_vector_index().select(["chunk_id", "_distance"]).to_arrow().column("chunk_id")
        agree += len({h.chunk.chunk_id for h in indexed} & set(ids.to_pylist()))
    assert agree / (60 * 5) >= 0.9
