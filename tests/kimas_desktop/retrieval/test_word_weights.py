"""The pipeline hands the store's word counts to a reranker that can use them (issue 42)."""

from __future__ import annotations

from collections.abc import Sequence

from kimas_desktop.retrieval.word_weights import index_weighted
from local_models import EmbeddingReranker
from local_models.fake import HashEmbedder


class _Store:
    def document_frequencies(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        return 100, dict.fromkeys(terms, 1)


class _Reranker:
    model_id = "words/none"

    def score(self, query: str, texts: Sequence[str], vectors: Sequence[object] = ()) -> list[float]:
        return [0.0] * len(texts)

    def close(self) -> None:
        pass


def test_a_reranker_that_weighs_words_gets_the_store_and_others_stay_as_they_are() -> None:
    fallback = EmbeddingReranker(HashEmbedder())
    weighed = index_weighted(fallback, _Store())
    assert isinstance(weighed, EmbeddingReranker) and weighed is not fallback
    assert weighed.model_id == fallback.model_id
    assert index_weighted(fallback, object()) is fallback  # a searcher without word counts
    other = _Reranker()
    assert index_weighted(other, _Store()) is other  # a cross-encoder reads the question itself
