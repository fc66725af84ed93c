"""Answerability: does the evidence answer the question at all? (RAGentA's evidence judging, without an
LLM.)

A logistic model over what the quote scorer and the reranker already measured:
- **best sentence overlap**: the IDF-weighted share of the question's words in the best quote sentence;
- **evidence overlap**: the same share over the best few chunks together (is every key word somewhere?);
- **best cosine**: the best sentence's embedding similarity to the question;
- **rerank**: the best chunk's rerank score.
The coefficients were fitted on the development kit (SQuAD-Shifts questions whose answering passage was
left out of the index vs ones whose passage is there; ``bench/answers.py --fit``), so ``score`` reads as a
probability that the evidence answers. Below ``threshold`` the answer stage declines instead of letting the
chat model invent.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from kimas_desktop.answer.signals.quote import ScoredSentence
from kimas_desktop.text.terms import TermWeights, coverage
from kimas_desktop.text.words import stems
from kimas_desktop.types import Answerability, Evidence, Hit

__all__ = ["Answerability", "AnswerabilityModel", "Evidence", "evidence_features"]


# Fitted on the development kit (class-balanced logistic regression, 300 answerable and 100 passage-removed
# SQuAD-Shifts questions, all-MiniLM-L6-v2 and the fallback reranker; bench/RESULTS.md, "Answers (issue
# 12)"). 5-fold cross-validated AUC 0.75; 0.81 against answerable questions whose evidence holds the answer.
DEFAULT_COEFFICIENTS: tuple[float, ...] = (1.494, 0.83, 1.091, 0.434)
DEFAULT_INTERCEPT = -2.089


def evidence_features(
    scored: Sequence[ScoredSentence],
    hits: Sequence[Hit],
    question_words: Sequence[str],
    idf: TermWeights,
    *,
    sources: int = 3,
) -> Evidence:
    if not scored or not hits:
        return Evidence(0.0, 0.0, 0.0, 0.0)
    weights = idf.weights(question_words)
    together: set[str] = set()
    for h in hits[:sources]:
        together |= stems(h.chunk.text)
    best = scored[0]
    return Evidence(
        sentence_overlap=max(s.overlap for s in scored[:3]),
        evidence_overlap=coverage(weights, together),
        cosine=best.cosine,
        rerank=max(h.score for h in hits[:sources]),
    )


@dataclass(frozen=True)
class AnswerabilityModel:
    coefficients: tuple[float, ...] = DEFAULT_COEFFICIENTS
    intercept: float = DEFAULT_INTERCEPT
    threshold: float = 0.5

    def decide(self, evidence: Evidence | None) -> Answerability:
        if evidence is None:
            return Answerability(False, 0.0, self.threshold, None)
        z = self.intercept + sum(c * x for c, x in zip(self.coefficients, evidence.vector(), strict=True))
        score = 1.0 / (1.0 + math.exp(-z))
        return Answerability(score >= self.threshold, round(score, 4), self.threshold, evidence)
