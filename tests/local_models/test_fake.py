"""The shipped fakes pass the contracts the real backends pass: ``MemorySearcher`` the one ``LanceStore``
passes (tests/indexer/store/test_store.py), ``WordOverlapReranker`` the rerankers' one. (``HashEmbedder`` and
``ScriptedChatModel`` run theirs beside the real models, in embedders/test_embedders.py and llama/test_chat.py.)"""

from __future__ import annotations

import pytest

from local_models.fake import HashEmbedder, MemorySearcher, WordOverlapReranker
from tests.local_models.contracts import SEARCHER_DOCS, ChunkSearcherContract, RerankerContract


class TestMemorySearcherContract(ChunkSearcherContract):
    @pytest.fixture
    def embedder(self) -> HashEmbedder:
        return HashEmbedder(dim=64)

    @pytest.fixture
    def searcher(self, embedder: HashEmbedder) -> MemorySearcher:
        searcher = MemorySearcher(embedder)
        for collection, files in SEARCHER_DOCS.items():
            searcher.add(collection, [])
            for name, text in files.items():
                searcher.add(collection, [text], source=f"/docs/{collection}/{name}")
        return searcher


class TestWordOverlapReranker(RerankerContract):
    @pytest.fixture
    def reranker(self) -> WordOverlapReranker:
        return WordOverlapReranker()
