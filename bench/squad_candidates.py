"""Each SQuAD-Shifts question with the best passages of its own set by BM25 (no index): the candidates
``bench.reader_effect`` and ``bench.disagreement`` read, so only what is read differs. A library, not a
benchmark.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.devkit import DEVKIT, SQUAD, contains_answer, read_jsonl
from kimas_desktop.types import Chunk, Hit
from local_models.rerankers import _terms

__all__ = ["Bm25", "Item", "halves", "hits", "rate", "squad"]


@dataclass(frozen=True)
class Item:
    question: str
    answers: tuple[str, ...]
    gold: str  # the gold passage's id
    answerable: list[Hit]
    unanswerable: list[Hit]


class Bm25:
    """BM25 (k1 1.2, b 0.75, Lucene's IDF) over one set of passages, built once."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.ids = list(texts)
        self.texts = texts
        self.docs = [Counter(_terms(texts[i])) for i in self.ids]
        df: Counter[str] = Counter(t for d in self.docs for t in d)
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self.lengths = np.array([sum(d.values()) for d in self.docs], dtype=np.float64)
        self.norm = 1.2 * (0.25 + 0.75 * self.lengths / self.lengths.mean())

    def top(
        self, query: str, k: int, skip: Callable[[str], bool] = lambda _: False
    ) -> list[tuple[str, float]]:
        terms = set(_terms(query))
        scores = np.zeros(len(self.ids))
        for j, d in enumerate(self.docs):
            scores[j] = sum(self.idf[t] * d[t] * 2.2 / (d[t] + self.norm[j]) for t in terms if d[t])
        order = [j for j in np.argsort(-scores, kind="stable") if not skip(self.ids[j])]
        return [(self.ids[j], float(scores[j])) for j in order[:k]]


def hits(bm: Bm25, ranked: Sequence[tuple[str, float]]) -> list[Hit]:
    best = max((s for _, s in ranked), default=1.0) or 1.0
    return [Hit(Chunk(pid, "bench", f"{pid}.md", bm.texts[pid]), s / best) for pid, s in ranked]


def squad(per_domain: int, seed: int) -> list[Item]:
    items = []
    for folder in SQUAD:
        corpus = {r["_id"]: r["text"] for r in read_jsonl(DEVKIT / folder / "corpus.jsonl")}
        answers = {r["_id"]: tuple(r["answers"]) for r in read_jsonl(DEVKIT / folder / "answers.jsonl")}
        gold = dict(
            line.split("\t")[:2] for line in (DEVKIT / folder / "qrels/test.tsv").read_text().splitlines()[1:]
        )
        queries = [
            q
            for q in read_jsonl(DEVKIT / folder / "queries.jsonl")
            if answers.get(q["_id"]) and q["_id"] in gold
        ]
        random.Random(seed).shuffle(queries)
        bm = Bm25(corpus)
        for q in queries[:per_domain]:
            a = answers[q["_id"]]
            holding = {p for p, t in corpus.items() if contains_answer(t, a)}
            items.append(
                Item(
                    q["text"],
                    a,
                    gold[q["_id"]],
                    hits(bm, bm.top(q["text"], 3)),
                    hits(bm, bm.top(q["text"], 3, lambda p, h=holding: p in h)),  # type: ignore[misc]
                )
            )
    return items


def halves(rows: list[Any]) -> tuple[list[Any], list[Any]]:
    return rows[0::2], rows[1::2]


def rate(flags: Sequence[bool]) -> float:
    return round(sum(flags) / len(flags), 3) if flags else float("nan")
