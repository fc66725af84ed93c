"""Grounding, right after the filter (milliseconds, no LLM): the grounded quote (``quote.py``) and the
lexical answerability of the evidence (``answerability.py``), the signal the answer policy starts from.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from kimas_desktop.answer.signals.answerability import AnswerabilityModel, evidence_features
from kimas_desktop.answer.signals.disagree import rival
from kimas_desktop.answer.signals.quote import QuoteScorer, QuoteWeights, pick_quotes, quote_of
from kimas_desktop.config import GroundingConfig
from kimas_desktop.protocols import Embedder, Reader
from kimas_desktop.text.terms import TermWeights
from kimas_desktop.types import Answerability, Hit, Quote, Synopsis

__all__ = ["Grounder", "Grounding", "weights_of"]


@dataclass(frozen=True)
class Grounding:
    """The quote (best first; empty without evidence) and the lexical answerability of the evidence.
    ``disagree``: the last quote is another file's sentence stating the asked value otherwise
    (``disagree.py``)."""

    quotes: tuple[Quote, ...]
    answerability: Answerability
    idf_from: str = "collection"  # "collection" (synopsis word counts) or "evidence" (fallback)
    disagree: bool = False


def weights_of(config: GroundingConfig) -> QuoteWeights:
    return QuoteWeights(
        overlap=config.overlap_weight,
        cosine=config.cosine_weight,
        rerank=config.rerank_weight,
        position=config.position_weight,
        answer_type=config.type_weight,
        reader=config.reader_weight,
    )


class Grounder:
    """``reader`` (issue 68), when given, reads the sentences in another script than the question among
    evidence that mixes scripts (``QuoteScorer``); asked for (``grounding.reader_weight``,
    ``grounding.reader_declines_below``), it reads every candidate sentence: its probability counts in the
    sentence's score, and evidence whose best sentence the reader gives less than
    ``reader_declines_below`` is declined whatever the lexical model says."""

    def __init__(self, embedder: Embedder, config: GroundingConfig, reader: Reader | None = None) -> None:
        self._config = config
        asked = config.reader_weight > 0 or config.reader_declines_below > 0
        self._scorer = QuoteScorer(
            embedder, weights_of(config), sources=config.sources, reader=reader, read_every=asked
        )
        self._model = AnswerabilityModel(threshold=config.threshold)
        self._reads = reader is not None and asked

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
        other = rival(question, scored)
        if other is not None:
            best = [q for q in quotes if q.chunk.source != other.chunk.source][:1]
            quotes = [*best, quote_of(other)]
        features = evidence_features(
            scored, hits, self._scorer.question_words(question, query), idf, sources=self._config.sources
        )
        decision = self._model.decide(features)
        floor = self._config.reader_declines_below
        read = [s.read for s in scored if s.read is not None]  # none: the reader failed
        if self._reads and read and decision.answerable and max(read) < floor:
            decision = replace(decision, answerable=False)
        return Grounding(tuple(quotes), decision, idf_from, disagree=other is not None)
