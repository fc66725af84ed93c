"""The answer policy: a judging model refines the lexical decision only near the threshold, and only in
the direction its check gives evidence for; the embedded path is the lexical decision itself."""

from __future__ import annotations

import itertools

from kimas_desktop.answer.policy import AnswerPolicy
from kimas_desktop.answer.signals.verify import Verdict, VerdictKind
from kimas_desktop.config import GroundingConfig
from kimas_desktop.types import Answerability

KINDS: tuple[VerdictKind, ...] = ("verified", "near", "echo", "none", "invented")
BAND = GroundingConfig(threshold=0.4, model_rescues_from=0.3, model_doubts_below=0.5)


def lexical(score: float, threshold: float = 0.4) -> Answerability:
    return Answerability(score >= threshold, score, threshold)


def verdict(kind: VerdictKind) -> Verdict:
    return Verdict(kind == "verified", "words", "" if kind == "verified" else "why", kind)


def test_without_a_judging_model_the_decision_is_the_lexical_one_and_the_model_is_never_asked() -> None:
    policy = AnswerPolicy(BAND, judges=False)
    for score, kind in itertools.product((0.1, 0.35, 0.45, 0.9), KINDS):
        assert not policy.asks_model(lexical(score))
        d = policy.decide(lexical(score), verdict(kind))  # a verdict given anyway changes nothing
        assert d.answer is (score >= 0.4) and d.rule == "lexical"


def test_a_judging_model_is_asked_only_where_its_check_can_change_the_decision() -> None:
    policy = AnswerPolicy(BAND, judges=True)
    assert [policy.asks_model(lexical(s)) for s in (0.1, 0.29, 0.3, 0.45, 0.49, 0.5, 0.9)] == [
        False,
        False,
        True,
        True,
        True,
        False,
        False,
    ]
    assert not policy.asks_model(lexical(0.45), try_anyway=True)


def test_a_verified_copy_rescues_a_near_miss_and_an_empty_check_doubts_a_near_pass() -> None:
    policy = AnswerPolicy(BAND, judges=True)
    rescued = policy.decide(lexical(0.35), verdict("verified"))
    assert rescued.answer and rescued.rule == "rescued"
    doubted = policy.decide(lexical(0.45), verdict("none"))
    assert not doubted.answer and doubted.rule == "doubted"


def test_the_model_never_moves_a_decision_outside_the_band_or_against_its_evidence() -> None:
    policy = AnswerPolicy(BAND, judges=True)
    for score, kind in itertools.product([i / 20 for i in range(21)], KINDS):
        d = policy.decide(lexical(score), verdict(kind))
        if d.answer != (score >= 0.4):
            assert 0.3 <= score < 0.5, (score, kind)
            assert (kind, d.answer) in (("verified", True), ("none", False)), (score, kind)
    # "near", "echo" and "invented" copies are weak evidence either way: they never change a decision.
    for score, kind in itertools.product((0.35, 0.45), ("near", "echo", "invented")):
        assert policy.decide(lexical(score), verdict(kind)).rule == "lexical"  # type: ignore[arg-type]


def test_a_failed_check_and_try_anyway() -> None:
    policy = AnswerPolicy(BAND, judges=True)
    assert policy.decide(lexical(0.45), None).answer  # no evidence from the model: the lexical decision
    assert not policy.decide(lexical(0.35), None).answer
    tried = policy.decide(lexical(0.1), None, try_anyway=True)
    assert tried.answer and tried.rule == "try anyway"


def test_the_configured_check_switch_overrides_the_model_description() -> None:
    assert AnswerPolicy(BAND.model_copy(update={"llm_check": "on"}), judges=False).asks_model(lexical(0.45))
    assert not AnswerPolicy(BAND.model_copy(update={"llm_check": "off"}), judges=True).asks_model(
        lexical(0.45)
    )


def test_a_model_that_writes_no_answer_of_its_own_answers_with_the_quote_unless_asked_to_try() -> None:
    """Issue 69: the embedded model's sentences added nothing to the quote (bench/RESULTS.md "answer
    loops"); the quote is its answer, and it writes only when the user asks it to try."""
    quiet, writing = AnswerPolicy(BAND, judges=False, writes=False), AnswerPolicy(BAND, judges=False)
    answered = quiet.decide(lexical(0.9))
    assert quiet.form(answered, computed=False, focus=False) == "quote"
    assert not quiet.model_writes() and quiet.model_writes(try_anyway=True)
    tried = quiet.decide(lexical(0.9), try_anyway=True)
    assert quiet.form(tried, computed=False, focus=False) == "model"
    assert quiet.form(answered, computed=False, focus=False, quoted=False) == "model"  # no quote to give
    assert quiet.form(quiet.decide(lexical(0.1)), computed=False, focus=False) == "declined"
    assert quiet.form(answered, computed=False, focus=False, disagree=True) == "disagree"
    assert writing.form(answered, computed=False, focus=False) == "model" and writing.model_writes()
