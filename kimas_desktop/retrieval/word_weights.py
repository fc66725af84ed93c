"""How rare each of a question's words is in the collections, as the full-text index counts them, for a
reranker that scores a question by its words alone (issue 42).

A question the embedder cannot read (Hindi for the English-only default model) is ranked by full-text
search, whose BM25 weighs each word by how many of the collection's chunks hold it. The fallback
reranker then scored the same words again with the twelve or so candidates as its corpus: the word that
made the search pick them, being in all of them, weighed nothing, and the reranked order lost to the
search's own (Hindi dev kit, tune half, answer in the top 5: full-text search 0.740, reranked with the
candidates' weights 0.707, with the index's 0.739). A reranker that can weigh words by the index says so
with ``WeighsWords``; the pipeline hands it the store (``index_weighted``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from kimas_desktop.protocols import Reranker

__all__ = ["TermStatistics", "WeighsWords", "index_weighted"]


@runtime_checkable
class TermStatistics(Protocol):
    def document_frequencies(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        """How many chunks the collections hold, and how many of them hold each of ``terms`` (words as
        the full-text index reads them: ``kimas_desktop.text.words.spaced``)."""
        ...


@runtime_checkable
class WeighsWords(Protocol):
    def weighed_by(self, statistics: TermStatistics) -> Reranker:
        """The same scorer, weighing a question's words by ``statistics`` where it scores by words alone."""
        ...


def index_weighted(reranker: Reranker, searcher: object) -> Reranker:
    """``reranker`` weighing words by ``searcher``'s index when both can; else ``reranker`` itself."""
    if isinstance(reranker, WeighsWords) and isinstance(searcher, TermStatistics):
        return reranker.weighed_by(searcher)
    return reranker
