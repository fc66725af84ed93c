"""The answer's slot: what a passage adds to the question, and the sentences that only restate it."""

from __future__ import annotations

from kimas_desktop.answer.signals.answer_slot import addresses, answer_part, answer_shaped, restates

KENYA_Q = "What is the capital of Kenya?"


def test_the_answer_part_is_what_the_passage_adds_in_the_slot_the_question_asks_for() -> None:
    assert answer_part(KENYA_Q, "Its capital and largest city is Nairobi.") == ("Nairobi",)
    assert answer_part(KENYA_Q, "Kenya is the capital of Kenya.") == ()
    when = "When were the Normans in Normandy?"
    assert answer_part(when, "In the 10th and 11th centuries Rollo ruled Normandy.") == (
        "10",
        "11",
        "centuries",
    )
    assert answer_part("Who ruled Normandy in 911?", "In 911 Rollo ruled Normandy.") == ("Rollo",)


def test_a_sentence_that_only_restates_the_question_is_told_from_one_that_answers() -> None:
    assert restates(KENYA_Q, "Kenya is the capital of Kenya. [1]")
    assert restates(KENYA_Q, "The answer is the capital of Kenya.")
    assert not restates(KENYA_Q, "The capital of Kenya is Nairobi.")
    assert not restates(KENYA_Q, "[1]")  # no words: nothing to restate
    assert addresses(KENYA_Q, "Kenya's capital is a large city.")
    assert addresses(KENYA_Q, "The answer is: 1013")  # nothing but the answer's own words and a fact
    assert not addresses(KENYA_Q, "Lions live in the Maasai Mara.")


def test_a_passage_is_answer_shaped_when_it_names_the_subject_and_adds_a_fact() -> None:
    q = "What language did the Normans speak?"
    assert answer_shaped(q, "The Normans spoke a language called Norman French.")
    assert not answer_shaped(q, "The ferry to the island leaves at 8 from Harwich.")  # no subject
    assert not answer_shaped(q, "The Normans spoke a language of their own.")  # nothing added


def test_other_scripts_chinese_and_hindi() -> None:
    # A number is a fact in every script; Hindi words, split by spaces, restate a question as English do.
    assert answer_part("审计什么时候开始？", "审计于2025年3月开始。") == ("2025", "3")
    assert answer_part("ऑडिट कब शुरू हुआ?", "ऑडिट 2025 में शुरू हुआ।") == ("2025",)
    assert restates("केन्या की राजधानी क्या है?", "केन्या की राजधानी केन्या है।")
    assert not restates("केन्या की राजधानी क्या है?", "केन्या की राजधानी नैरोबी है।")
