"""A large collection on a slice of real files (issue 59): Debian's linux-doc tree, as in bench.scale.

The sync compacts its many small writes without losing a row, adds the vector index once the collection
passes ``vector_index_rows``, and a dense search through that index finds what the exact search finds, with
the copies of a file (the same bytes at other paths) taking one place in the results."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import lancedb
import pytest

from indexer import Indexer, LanceStore
from indexer.store.search import copy_key, dense
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
    docs = tmp_path / "docs"
    unpack(docs / "tree", 2400)
    copied = sorted((docs / "tree").rglob("*.rst"))[:: 2400 // 40][:40]
    for c in range(8):  # forty files with eight copies each, elsewhere in the folder
        for path in copied:
            target = docs / f"copy{c}" / path.relative_to(docs / "tree")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    embedder = HashEmbedder(dim=64)
    store = LanceStore(str(tmp_path / "db"), vector_index_rows=4000)
    indexer = Indexer(store, embedder, small_config(), write_batch_rows=512)
    report = indexer.index("kernel", [docs])

    table = lancedb.connect(str(tmp_path / "db")).open_table(store.tables("kernel").chunks_table)
    manifest = store.manifest("kernel").values()
    assert len(manifest) == 2400 + 8 * 40
    assert table.count_rows() == sum(r.chunks for r in manifest) == report.chunks_added > 4000
    assert len(table.to_arrow().column("chunk_id").unique()) == table.count_rows()
    assert table.stats()["fragment_stats"]["num_fragments"] <= 4  # a write of 512 rows is a fragment
    assert {i.index_type for i in table.list_indices()} == {"FTS", "IvfHnswSq"}

    chunks = store.chunks("kernel")
    asked = [c for c in chunks if "/copy0/" in c.source][:30] + chunks[:: len(chunks) // 60][:60]
    agree = 0
    for chunk in asked:
        question = " ".join(chunk.text.split()[:12])
        vector = embedder.embed_query([question])[0]
        indexed = store.search("kernel", text=question, vector=vector, k=5, mode="dense")
        keys = {copy_key(h.chunk.file_hash, h.chunk.text, h.chunk.chunk_id) for h in indexed}
        assert len(keys) == len(indexed) == 5  # no chunk twice, however many copies
        exact = dense(table, vector, 5, exact=True)
        agree += len(keys & {copy_key(h.chunk.file_hash, h.chunk.text, h.chunk.chunk_id) for h in exact})
    assert agree / (len(asked) * 5) >= 0.9
