"""The support check (RAGentA's faithfulness check, without an LLM): is each answer sentence backed by the
sources the model was given? The sources that back it are the answer's citations.

For every sentence of the finished answer:
- its **facts** (numbers, dates and capitalized names) must each appear in a source; one that appears
  nowhere makes the sentence unsupported, whatever else it shares with the sources;
- so must the **question's words it repeats**: "What is the alpha module named?" answered "The alpha
  module is named TANGERINE" from a source about the beta module takes the question's premise for a fact;
  a word of the question that no source has at all counts as missing;
- otherwise it is supported when a source sentence contains enough of its words (``lexical``: the share
  of its content words in the best source sentence, by a light stem) or means nearly the same
  (``cosine``: embedding similarity to the best source sentence).
Each result points at the source sentence that supports it best, so a citation can highlight a sentence,
not only a chunk.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kimas_desktop.protocols import Embedder
from kimas_desktop.text.sentences import Sentence, chunk_sentences, split_sentences
from kimas_desktop.text.words import content_words, names, numbers, stem, stems, words
from kimas_desktop.types import Hit, SentenceSupport

__all__ = ["SentenceSupport", "SupportChecker", "SupportReport", "facts", "uses_quote"]

_MARKER = re.compile(r"\[\d+(?:\s*[,;]\s*\d+)*\]")  # "[1]", "[1, 3]": citation markers, not facts
_SKIP_NAMES = frozenset({"source", "sources", "according"})  # "Source 2 says", "According to"
# Words about the sources and the answer itself ("The answer is: 30", "the document mentions …"): they
# make no claim, so a source need not hold them.
_ABOUT = frozenset(
    stem(w)
    for w in (
        "answer", "document", "documents", "source", "sources", "passage", "passages", "sentence",
        "sentences", "text", "context", "information", "relevant", "mentioned", "mentions", "according",
        "provided", "says",
    )
)  # fmt: skip


@dataclass(frozen=True)
class SupportReport:
    sentences: tuple[SentenceSupport, ...]

    @property
    def unsupported(self) -> int:
        return sum(1 for s in self.sentences if not s.supported)


def facts(sentence: str) -> list[str]:
    """Numbers and names (capitalized words not starting the sentence) that a source must contain."""
    sentence = _MARKER.sub(" ", sentence)
    found = numbers(sentence) + [w for w in names(sentence) if w.lower() not in _SKIP_NAMES]
    return list(dict.fromkeys(found))


def _contains_fact(fact: str, text_lower: str, text_numbers: set[str]) -> bool:
    if fact[0].isdigit():
        return fact in text_numbers
    return re.search(r"(?<!\w)" + re.escape(fact.lower()), text_lower) is not None


def uses_quote(answer: str, quote: str, question: str) -> bool | None:
    """Whether the answer uses the grounded quote: it repeats at least one of the quote's facts (numbers,
    names) that the question does not already hold, or, when the quote has none, a third of its other
    words. None when there is nothing to compare. False means the model ignored or contradicted the
    passage the user was shown first."""
    if not answer.strip() or not quote.strip():
        return None
    asked = {f.lower() for f in facts(question)} | {w.lower() for w in words(question)}
    quote_facts = [f for f in facts(quote) if f.lower() not in asked]
    if quote_facts:
        lower = answer.lower()
        return any(_contains_fact(f, lower, set(numbers(answer))) for f in quote_facts)
    own = stems(quote) - stems(question)
    if not own:
        return None
    return len(own & stems(answer)) / len(own) >= 1 / 3


class SupportChecker:
    """Checks answer sentences against numbered sources (``hits[n - 1]`` is source ``n``)."""

    def __init__(self, embedder: Embedder, *, lexical: float = 0.6, cosine: float = 0.75) -> None:
        self._embedder = embedder
        self._lexical = lexical
        self._cosine = cosine

    def check(self, answer: str, hits: Sequence[Hit], question: str = "") -> SupportReport:
        """``question``: its words that no source has must not reappear in the answer as if they were facts."""
        sentences = split_sentences(answer, "markdown")
        if not sentences or not hits:
            return SupportReport(tuple(self._unsupported(s) for s in sentences))
        pool: list[tuple[int, Sentence]] = [
            (n, s) for n, hit in enumerate(hits, 1) for s in chunk_sentences(hit.chunk)
        ]
        if not pool:
            return SupportReport(tuple(self._unsupported(s) for s in sentences))
        all_text = " ".join(h.chunk.text for h in hits)
        all_lower = all_text.lower()
        all_numbers = set(numbers(all_text))
        pool_lower = [s.text.lower() for _, s in pool]
        pool_numbers = [set(numbers(s.text)) for _, s in pool]
        avec = self._embedder.embed_query([s.text for s in sentences])
        pvec = self._embedder.embed_passages([s.text for _, s in pool])
        sims = np.asarray(avec @ pvec.T, dtype=np.float64)
        pool_stems = [stems(s.text) for _, s in pool]
        everywhere = set().union(*(stems(h.chunk.text) for h in hits))
        unsourced = {stem(w): w for w in content_words(question) if stem(w) not in everywhere}
        out = []
        for i, sentence in enumerate(sentences):
            own = stems(sentence.text) - _ABOUT
            lexical = [len(own & ps) / len(own) if own else 0.0 for ps in pool_stems]
            combined = [max(lx, float(c)) for lx, c in zip(lexical, sims[i], strict=True)]
            own_facts = facts(sentence.text)
            if own_facts:  # the best evidence holds the sentence's numbers and names, not only its words
                for k in range(len(pool)):
                    held = sum(_contains_fact(f, pool_lower[k], pool_numbers[k]) for f in own_facts)
                    combined[k] += held / len(own_facts)
            j = int(np.argmax(combined))
            missing = tuple(f for f in own_facts if not _contains_fact(f, all_lower, all_numbers)) + tuple(
                w for st, w in unsourced.items() if st in own
            )
            best_lex, best_cos = max(lexical), float(sims[i].max())
            supported = not missing and (best_lex >= self._lexical or best_cos >= self._cosine)
            n, src = pool[j]
            out.append(
                SentenceSupport(
                    sentence.text,
                    sentence.start,
                    sentence.end,
                    supported,
                    round(best_lex, 3),
                    round(best_cos, 3),
                    n,
                    src.start,
                    src.end,
                    missing,
                )
            )
        return SupportReport(tuple(out))

    @staticmethod
    def _unsupported(s: Sentence) -> SentenceSupport:
        return SentenceSupport(s.text, s.start, s.end, False, 0.0, 0.0, missing=tuple(facts(s.text)))
