"""Lexical baselines the language benchmarks share: BM25 over any tokenizer, the crude tokenizers a search
engine falls back to, and the split of a dev kit's questions into a tune half and a held-out half."""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence

__all__ = ["BM25", "Tokenize", "char_bigrams", "half", "holds", "whitespace"]

Tokenize = Callable[[str], list[str]]
_RUN = re.compile(r"\w+")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


class BM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75) over passages tokenized by ``tokenize``."""

    def __init__(self, passages: Sequence[str], tokenize: Tokenize, k1: float = 1.2, b: float = 0.75) -> None:
        self._tokenize = tokenize
        self._docs = [Counter(tokenize(p)) for p in passages]
        self._lengths = [sum(d.values()) for d in self._docs]
        self._avg = sum(self._lengths) / max(len(self._docs), 1)
        df: Counter[str] = Counter(t for d in self._docs for t in d)
        n = len(self._docs)
        self._idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
        self._postings: dict[str, list[int]] = {}
        for i, d in enumerate(self._docs):
            for t in d:
                self._postings.setdefault(t, []).append(i)
        self._k1, self._b = k1, b

    def top(self, query: str, k: int = 5) -> list[int]:
        scores: dict[int, float] = {}
        for t in set(self._tokenize(query)):
            idf = self._idf.get(t, 0.0)
            for i in self._postings.get(t, ()):
                tf = self._docs[i][t]
                norm = self._k1 * (1 - self._b + self._b * self._lengths[i] / self._avg)
                scores[i] = scores.get(i, 0.0) + idf * tf * (self._k1 + 1) / (tf + norm)
        return sorted(scores, key=lambda i: scores[i], reverse=True)[:k]


def whitespace(text: str) -> list[str]:
    return text.lower().split()


def char_bigrams(text: str) -> list[str]:
    """Chinese characters as overlapping bigrams (a lone one as itself), other words whole, lower-cased."""
    out: list[str] = []
    for run in _RUN.findall(text.lower()):
        for piece in re.split(f"({_HAN.pattern}+)", run):
            if not piece:
                continue
            if _HAN.match(piece):
                out += [piece[i : i + 2] for i in range(max(len(piece) - 1, 1))]
            else:
                out.append(piece)
    return out


def half(qid: str) -> str:
    return "tune" if hashlib.sha256(qid.encode()).digest()[0] % 2 == 0 else "held-out"


def holds(text: str, answers: list[str]) -> bool:
    """One of ``answers`` is in ``text``, case folded."""
    low = text.casefold()
    return any(a.casefold() in low for a in answers)
