"""A sentence that takes the question's words to other names answers another question (issue 45): asked
what line runs between two cities, "The coastal line runs between two other cities" is sourced word for
word and still no answer."""

from __future__ import annotations

from kimas_desktop.answer.signals.answer_slot import about_another

Q = "What line runs between Boston and Washington?"


def test_a_sentence_with_the_questions_words_and_other_names_is_about_another_subject() -> None:
    assert about_another(Q, "The Valley Line runs between Hartford and Springfield.")
    assert not about_another(Q, "The Northeast Regional runs between Boston and Washington.")
    # A name of several words is the subject as a whole: "New Haven" is not "New York".
    assert about_another(
        "What line runs between New York and Boston?", "The Valley Line runs between New Haven and Hartford."
    )
    assert not about_another(Q, "It runs between Boston and Washington [1].")
    assert not about_another(Q, "The answer is: Northeast Regional.")  # the answer alone names no place
    assert not about_another("Who founded the college?", "It was founded by John Harvard.")  # no names asked
    # The names asked, however their capitals were written, are the subject.
    assert not about_another("Who was elected Mayor of Istanbul?", "Erdogan was elected mayor of istanbul.")


def test_scripts_without_capitals_have_no_names_so_the_rule_says_nothing() -> None:
    assert not about_another("波士顿和华盛顿之间有哪条线路？", "哈特福德线路连接哈特福德和斯普林菲尔德。")
    assert not about_another("बोस्टन और वाशिंगटन के बीच कौन सी लाइन चलती है?", "हार्टफोर्ड लाइन हार्टफोर्ड से चलती है।")
