"""The answer slot as the support check reads it: the question's own question word, and counts without
dates, in English, Chinese and Hindi."""

from __future__ import annotations

from kimas_desktop.answer.signals.answer_slot import answer_part, slot_kind


def test_a_when_after_another_question_word_is_a_clause_not_the_question() -> None:
    assert slot_kind("Why do intellectuals not respond when asked about their theories?") == ""
    assert slot_kind("Who answers the phone when the office is closed?") == "name"
    assert slot_kind("When did graphic design start?") == "number"
    assert slot_kind("In what year was the colony founded when the war ended?") == "number"
    assert slot_kind("审计什么时候开始？") == "number"
    assert slot_kind("ऑडिट कब शुरू हुआ?") == "number"


def test_a_count_question_takes_no_date_into_its_slot() -> None:
    q = "How many reforms did Reince Priebus propose?"
    assert answer_part(q, "In March 2013, Priebus gave a report on the failures in 2012.") == ()
    assert answer_part(q, "In 2013 Priebus proposed 219 reforms.") == ("219",)
    # A when question still takes the date; Chinese and Hindi keep every number (the rule is English).
    assert answer_part("When did Priebus give the report?", "In March 2013 he gave it.") == ("2013", "March")
    assert answer_part("审计持续了多少天？", "审计于2025年3月开始，持续了12天。") == ("2025", "3", "12")
    assert "12" in answer_part("ऑडिट कितने दिन चला?", "ऑडिट मार्च 2025 में शुरू हुआ और 12 दिन चला।")
