"""Which words of a question matter, and whether a sentence contains them.

``TermWeights`` gives a word's inverse frequency: from the collections' synopses (exact word counts the
indexer keeps, ``Synopsis.terms``) when they have them, else from the candidate texts themselves (document
frequency over the evidence; weaker, but never missing). ``coverage`` is the IDF-weighted share of the
question's content words that a text contains, compared by their stems (``words.stem``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from kimas_desktop.text.words import content_words, stem
from kimas_desktop.types import Synopsis

__all__ = ["TermWeights", "coverage"]


@dataclass(frozen=True)
class TermWeights:
    """IDF of a word: ``log((total + 1) / (count + 0.5))``; a word never seen gets the highest weight."""

    counts: Mapping[str, int] = field(hash=False)
    total: int

    @classmethod
    def from_synopses(cls, synopses: Iterable[Synopsis | None]) -> TermWeights | None:
        """Word counts summed over the collections; None when none of them has counts yet.

        The counts are occurrences, not chunks containing the word; a rare word occurs about once per
        chunk it is in, so ``min(occurrences, chunks)`` stands in for its document frequency.
        """
        counts: Counter[str] = Counter()
        chunks = 0
        seen = False
        for s in synopses:
            if s is None or s.terms is None:
                continue
            seen = True
            counts.update(s.terms)
            chunks += s.chunk_count
        if not seen:
            return None
        chunks = max(chunks, 1)
        return cls({t: min(n, chunks) for t, n in counts.items()}, chunks)

    @classmethod
    def from_texts(cls, texts: Sequence[str]) -> TermWeights:
        """Document frequency over ``texts`` (the fallback: the evidence is the only corpus we have)."""
        df: Counter[str] = Counter()
        for text in texts:
            df.update(set(content_words(text)))
        return cls(df, len(texts))

    def idf(self, word: str) -> float:
        count = self.counts.get(word.lower(), 0)
        return math.log((self.total + 1) / (count + 0.5))

    def weights(self, words: Iterable[str]) -> dict[str, float]:
        """Each distinct word's stem → its weight (the highest when several words share a stem)."""
        out: dict[str, float] = {}
        for w in words:
            s = stem(w)
            out[s] = max(out.get(s, 0.0), max(self.idf(w), 0.05))
        return out


def coverage(weights: Mapping[str, float], text_stems: set[str]) -> float:
    """IDF-weighted share of the question's words (``weights``: stem → weight) present in a text."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return sum(w for s, w in weights.items() if s in text_stems) / total
