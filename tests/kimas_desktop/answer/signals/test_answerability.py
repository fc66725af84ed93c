"""The answerability decision's arithmetic (a logistic model over the evidence, with its threshold)."""

from __future__ import annotations

from kimas_desktop.answer.signals.answerability import AnswerabilityModel
from kimas_desktop.types import Evidence


def test_answerability_is_a_logistic_decision_with_its_threshold() -> None:
    model = AnswerabilityModel(coefficients=(4.0, 0.0, 0.0, 0.0), intercept=-2.0, threshold=0.5)
    yes = model.decide(Evidence(0.9, 0.9, 0.5, 0.5))
    no = model.decide(Evidence(0.2, 0.9, 0.5, 0.5))
    assert yes.answerable and yes.score > 0.8
    assert not no.answerable and no.score < 0.5
    assert not model.decide(None).answerable
