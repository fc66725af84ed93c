"""A reader that fails (issue 68: a GGUF reader whose llama.cpp worker crashed raises ``ModelCrashedError``):
the evidence, the quote and the decision are what they are without a reader; a bug still goes up. The real
reader's crash, through its worker process, is in tests/local_models/reader/test_llama_reader.py."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kimas_desktop.answer.signals.grounding import Grounder
from kimas_desktop.answer.signals.quote import QuoteScorer, QuoteWeights
from kimas_desktop.config import GroundingConfig
from kimas_desktop.errors import ModelCrashedError
from kimas_desktop.retrieval.across_scripts import AcrossScripts
from local_models.fake import HashEmbedder
from tests.kimas_desktop.answer.signals.test_quote import KENYA, hit
from tests.kimas_desktop.retrieval.test_across_scripts import EN, QUESTION, ZH, hits


class Crashes:
    """A reader whose every reading fails as a crashed worker's does (or with ``error``)."""

    model_id = "crashes"

    def __init__(self, error: Exception | None = None) -> None:
        self.error = error or ModelCrashedError("The reader crashes stopped (killed by SIGSEGV)")
        self.asked = 0

    def read(self, question: str, texts: Sequence[str]) -> list[float]:
        self.asked += 1
        raise self.error

    def close(self) -> None:
        pass


def test_mixed_evidence_keeps_the_rerankers_order() -> None:
    reader = Crashes()
    assert AcrossScripts(reader).order(QUESTION, hits([*EN, ZH])) is None
    assert reader.asked == 1


def test_the_quote_is_scored_as_without_a_reader() -> None:
    found = hits([*EN, ZH])
    for weights in (QuoteWeights(), QuoteWeights(reader=2.0)):  # across scripts only, and every sentence
        reader = Crashes()
        failed = QuoteScorer(HashEmbedder(), weights, reader=reader).score(QUESTION, found)
        without = QuoteScorer(HashEmbedder(), weights).score(QUESTION, found)
        assert reader.asked == 1
        assert [(s.sentence.text, s.score, s.read) for s in failed] == [
            (s.sentence.text, s.score, s.read) for s in without
        ]


def test_a_reader_that_fails_declines_nothing() -> None:
    config = GroundingConfig(reader_declines_below=0.5)
    question, found = "What is the capital of Kenya?", [hit(KENYA, 0.6)]
    without = Grounder(HashEmbedder(), config).ground(question, found)
    failed = Grounder(HashEmbedder(), config, Crashes()).ground(question, found)
    assert without.answerability.answerable
    assert failed.answerability == without.answerability and failed.quotes == without.quotes


def test_a_bug_in_a_reader_is_not_taken_for_a_failed_reading() -> None:
    with pytest.raises(ZeroDivisionError):
        AcrossScripts(Crashes(ZeroDivisionError())).order(QUESTION, hits([*EN, ZH]))
