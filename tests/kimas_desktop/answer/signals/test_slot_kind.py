"""The answer slot as the support check reads it: counts without dates, in English, Chinese and Hindi."""

from __future__ import annotations

from kimas_desktop.answer.signals.answer_slot import answer_part


def test_a_count_question_takes_no_date_into_its_slot() -> None:
    q = "How many reforms did Reince Priebus propose?"
    assert answer_part(q, "In March 2013, Priebus gave a report on the failures in 2012.") == ()
    assert answer_part(q, "In 2013 Priebus proposed 219 reforms.") == ("219",)
    # A when question still takes the date; Chinese and Hindi keep every number (the rule is English).
    assert answer_part("When did Priebus give the report?", "In March 2013 he gave it.") == ("2013", "March")
    assert answer_part("审计持续了多少天？", "审计于2025年3月开始，持续了12天。") == ("2025", "3", "12")
    assert "12" in answer_part("ऑडिट कितने दिन चला?", "ऑडिट मार्च 2025 में शुरू हुआ और 12 दिन चला।")
    # "may" written lower-case is the verb, not the month.
    assert answer_part("When did it open?", "It may open in May 2024.") == ("2024", "May")
