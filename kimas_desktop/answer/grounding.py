"""The grounding stage between the filter and the summarizer: quote, decide, and later check the answer.

``Grounder.ground`` runs right after reranking (milliseconds, no LLM): it picks the grounded quote
(``quote.py``) and decides whether the evidence answers the question (``answerability.py``). When it does
not, ``decline_text`` is the answer: the documents' closest passages instead of an invention.
``Grounder.check`` runs after the LLM answer (``support.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kimas_desktop.answer.answerability import AnswerabilityModel, evidence_features
from kimas_desktop.answer.quote import QuoteScorer, QuoteWeights, pick_quotes
from kimas_desktop.answer.support import SupportChecker, SupportReport
from kimas_desktop.config import GroundingConfig
from kimas_desktop.protocols import Embedder
from kimas_desktop.text.terms import TermWeights
from kimas_desktop.text.words import truncate
from kimas_desktop.types import Answerability, Citation, Hit, Quote, SentenceSupport, Synopsis

__all__ = ["DECLINE_START", "Grounder", "Grounding", "decline_text", "is_decline", "supported_citations"]

DECLINE_START = "Your documents don't say"


@dataclass(frozen=True)
class Grounding:
    """The quote (best first; empty without evidence) and the answerability decision."""

    quotes: tuple[Quote, ...]
    answerability: Answerability
    idf_from: str = "collection"  # "collection" (synopsis word counts) or "evidence" (fallback)


def weights_of(config: GroundingConfig) -> QuoteWeights:
    return QuoteWeights(
        overlap=config.overlap_weight,
        cosine=config.cosine_weight,
        rerank=config.rerank_weight,
        position=config.position_weight,
        answer_type=config.type_weight,
    )


class Grounder:
    def __init__(self, embedder: Embedder, config: GroundingConfig) -> None:
        self._config = config
        self._scorer = QuoteScorer(embedder, weights_of(config), sources=config.sources)
        self._model = AnswerabilityModel(threshold=config.threshold)
        self._checker = SupportChecker(embedder)

    def ground(
        self, question: str, hits: Sequence[Hit], synopses: Iterable[Synopsis | None] = (), *, query: str = ""
    ) -> Grounding:
        idf = TermWeights.from_synopses(synopses)
        idf_from = "collection"
        if idf is None:
            idf, idf_from = TermWeights.from_texts([h.chunk.text for h in hits]), "evidence"
        scored = self._scorer.score(question, hits, idf, query=query)
        if not scored:
            return Grounding((), self._model.decide(None), idf_from)
        quotes = pick_quotes(scored, sentences=self._config.quote_sentences, ratio=self._config.second_ratio)
        features = evidence_features(
            scored, hits, self._scorer.question_words(question, query), idf, sources=self._config.sources
        )
        return Grounding(tuple(quotes), self._model.decide(features), idf_from)

    def check(self, answer: str, hits: Sequence[Hit], question: str = "") -> SupportReport:
        return self._checker.check(answer, hits, question)


def supported_citations(support: Sequence[SentenceSupport], hits: Sequence[Hit]) -> tuple[Citation, ...]:
    """The answer's citations, from the support check: each source that backs a sentence of the answer,
    pointed at its sentence that backs it best, in the order the answer leans on them. A sentence the
    sources do not back cites nothing (it is marked unsupported instead)."""
    best: dict[int, SentenceSupport] = {}
    for s in sorted(support, key=lambda x: x.start):
        if not s.supported or s.source is None or s.evidence_start is None or s.evidence_end is None:
            continue
        if not 1 <= s.source <= len(hits):
            continue
        held = best.get(s.source)
        if held is None or max(s.lexical, s.cosine) > max(held.lexical, held.cosine):
            best[s.source] = s
    out = []
    for n, s in best.items():
        chunk = hits[n - 1].chunk
        a, b = s.evidence_start, s.evidence_end
        assert a is not None and b is not None
        out.append(Citation(n, chunk, " ".join(chunk.text[a:b].split()), a, b))
    return tuple(out)


def is_decline(answer: str) -> bool:
    return answer.lstrip().startswith(DECLINE_START)


def decline_text(question: str, quotes: Sequence[Quote]) -> str:
    """The answer when the evidence does not answer: say so, and name the closest passages."""
    asked = truncate(question.strip().rstrip("?"), 160)
    if not quotes:
        return f"{DECLINE_START} anything about “{asked}”."
    places = []
    for q in quotes[:2]:
        where = ", ".join(x for x in (Path(q.chunk.source).name, q.chunk.locator) if x)
        places.append(f"[{q.n}] {where}")
    return f"{DECLINE_START} “{asked}”; the closest passages are {' and '.join(places)}."
