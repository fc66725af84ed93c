"""A second opinion on the order of the kept evidence (issue 58): multilingual-e5-small's similarity of
each kept passage to the question, mixed into the order the reranker gave.

The fallback reranker scores every candidate with the index's embedder and the question's words; the gold
passage is often among the eight it keeps but not in the three the quote reads (SQuAD-Shifts: in any of
the eight for 0.74–0.77 of questions, in the top three for 0.67–0.69). Ordering the eight by
``(1 - share) × score / best score + share × similarity / best similarity`` with e5 puts it there more
often. Only the order changes: each hit keeps its reranker score, on the scale ``rerank.min_score`` and the
answer policy read. ``share`` was chosen on the dev kit's tune half (bench/meaning.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kimas_desktop.protocols import Embedder
from kimas_desktop.types import Hit

__all__ = ["SecondOpinion"]


class SecondOpinion:
    def __init__(self, embedder: Embedder, share: float) -> None:
        self._embedder = embedder
        self._share = share

    def order(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        """``hits`` (best first) in the mixed order; ties keep the reranker's."""
        if len(hits) < 2 or not self._embedder.reads(query):
            return list(hits)
        similarity = (
            self._embedder.embed_passages([h.chunk.text for h in hits])
            @ self._embedder.embed_query([query])[0]
        )
        scores = np.array([h.score for h in hits], dtype=np.float64)
        mixed = (1 - self._share) * scores / max(float(scores.max()), 1e-9) + self._share * np.asarray(
            similarity, dtype=np.float64
        ) / max(float(np.max(similarity)), 1e-9)
        return [hits[i] for i in np.argsort(-mixed, kind="stable")]
