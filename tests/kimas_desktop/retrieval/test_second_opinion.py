"""The second opinion on the kept evidence's order: only the order changes, by the documented mix."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kimas_desktop.answer.filter import EvidenceFilter
from kimas_desktop.retrieval.second_opinion import SecondOpinion
from kimas_desktop.types import Chunk, Hit
from local_models.fake import HashEmbedder, WordOverlapReranker


class Scripted(HashEmbedder):
    """Similarities set by the test: a passage's vector is its listed similarity to every question."""

    def __init__(self, similarity: dict[str, float], reads: bool = True) -> None:
        super().__init__(dim=2)
        self._similarity = similarity
        self._reads = reads

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([[1.0, 0.0] for _ in texts], dtype=np.float32)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([[self._similarity[t], 0.0] for t in texts], dtype=np.float32)

    def reads(self, text: str) -> bool:
        return self._reads


def hit(text: str, score: float) -> Hit:
    return Hit(Chunk(text, "c", "a.md", text), score)


def test_a_passage_the_second_model_finds_closer_moves_up_and_keeps_its_score() -> None:
    hits = [hit("repeats", 1.0), hit("answers", 0.9), hit("far", 0.5)]
    second = SecondOpinion(Scripted({"repeats": 0.2, "answers": 0.8, "far": 0.9}), 0.25)
    ordered = second.order("q", hits)
    # repeats 0.75·1 + 0.25·0.2/0.9 = 0.806; answers 0.75·0.9 + 0.25·0.8/0.9 = 0.897; far 0.375 + 0.25 = 0.625
    assert [h.chunk.text for h in ordered] == ["answers", "repeats", "far"]
    assert [h.score for h in ordered] == [0.9, 1.0, 0.5]


def test_a_question_the_second_model_cannot_read_keeps_the_rerankers_order() -> None:
    hits = [hit("repeats", 1.0), hit("answers", 0.9)]
    second = SecondOpinion(Scripted({"repeats": 0.0, "answers": 1.0}, reads=False), 0.25)
    assert second.order("q", hits) == hits


def test_the_filter_orders_what_it_kept_by_the_second_opinion() -> None:
    texts = {"alpha beta gamma here": 0.1, "alpha beta there": 1.0, "delta": 1.0}
    f = EvidenceFilter(
        WordOverlapReranker(), top_n=2, min_score=0.1, second=SecondOpinion(Scripted(texts), 0.9)
    )
    kept = f.rerank("alpha beta gamma", [hit(t, 0.0) for t in texts])
    assert [h.chunk.text for h in kept] == [
        "alpha beta there",
        "alpha beta gamma here",
    ]  # "delta" shares no word
