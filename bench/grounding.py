"""The product's grounding over `kimas retrieve --batch` output, as ``Pipeline.ask`` runs it, with the
sentence scores kept for tuning (part 1 of bench/answers.py), and the logistic fit of the answerability
model. Shared by the benchmarks; a library, not a benchmark.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from kimas_desktop.answer.signals.answerability import evidence_features
from kimas_desktop.answer.signals.grounding import Grounder, weights_of
from kimas_desktop.answer.signals.quote import QuoteScorer, QuoteWeights, ScoredSentence
from kimas_desktop.config import GroundingConfig
from kimas_desktop.text.terms import TermWeights
from kimas_desktop.types import Chunk, Hit


def hits_of(result: dict[str, Any]) -> list[Hit]:
    """The hits of one `kimas retrieve --batch` result, as the product's typed records."""
    return [
        Hit(
            Chunk(
                h["chunk_id"],
                h["collection"],
                h["source"],
                h["text"],
                page=h["page"],
                line_start=h["lines"][0] if h["lines"] else None,
                line_end=h["lines"][1] if h["lines"] else None,
            ),
            h["score"],
        )
        for h in result["hits"]
    ]


class Grounding1:
    """The product's grounding over `kimas retrieve` output, with the sentence scores kept for tuning."""

    def __init__(self, data_dir: Path, config: GroundingConfig) -> None:
        from app.paths import read_config, resolve_paths
        from app.runtime import Runtime

        paths = resolve_paths(str(data_dir), None)
        self.services = Runtime(paths, read_config(paths))
        self.config = config
        self.scorer = QuoteScorer(
            self.services.embedder(self.services.config), weights_of(config), sources=config.sources
        )
        self.grounder = Grounder(self.services.embedder(self.services.config), config)

    def run(self, question: str, result: dict[str, Any]) -> dict[str, Any]:
        hits = hits_of(result)
        synopses = [self.services.store().synopsis(r["collection"]) for r in result["routes"]]
        t = time.perf_counter()
        g = self.grounder.ground(question, hits, synopses, query=result["query"])
        ms = (time.perf_counter() - t) * 1000
        idf = TermWeights.from_synopses(synopses) or TermWeights.from_texts([h.chunk.text for h in hits])
        scored = self.scorer.score(question, hits, idf, query=result["query"])
        words = self.scorer.question_words(question, result["query"])
        features = evidence_features(scored, hits, words, idf, sources=self.config.sources)
        return {
            "quote": " ".join(q.text for q in g.quotes),
            "answerable": g.answerability.answerable,
            "score": g.answerability.score,
            "features": features.vector(),
            "weights": idf.weights(words),  # the question's words → IDF, as the decision weighed them
            "scored": scored,
            "hits": hits,
            "ms": ms,
            "retrieve_ms": result["timings_ms"].get("total", 0.0),
        }


def rescore(scored: list[ScoredSentence], w: QuoteWeights) -> list[ScoredSentence]:
    """The scored sentences weighed again with ``w``, best first (what a weight grid tries)."""
    out = [
        replace(
            s,
            score=w.combine(s.overlap, s.cosine, s.rerank, s.sentence.index, s.typed, s.novel, s.instruction),
        )
        for s in scored
    ]
    return sorted(out, key=lambda s: s.score, reverse=True)


def fit_logistic(
    x: np.ndarray, y: np.ndarray, l2: float = 0.01, steps: int = 5000
) -> tuple[np.ndarray, float]:
    """Weights and intercept of a logistic model of ``y`` on ``x``, the two classes weighed alike."""
    w = np.zeros(x.shape[1])
    b = 0.0
    lr = 0.5
    pos = y.mean()
    sample_w = np.where(y == 1, 0.5 / pos, 0.5 / (1 - pos))  # balance the two classes
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        g = (p - y) * sample_w
        w -= lr * (x.T @ g / len(y) + l2 * w)
        b -= lr * g.mean()
    return w, b
