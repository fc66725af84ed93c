"""The word toolkit (kimas_desktop/text/words.py) and the modules that share it: the quote scorer's name
test, the support check's facts and the answer check's word runs."""

from __future__ import annotations

from kimas_desktop.answer.signals.quote import answer_type
from kimas_desktop.answer.signals.verify import verify
from kimas_desktop.answer.writing.support import facts
from kimas_desktop.text.words import (
    content_words,
    is_name,
    meaningful_stems,
    names,
    numbers,
    salient_terms,
    stem,
    stems,
)
from kimas_desktop.types import Chunk, Hit


def test_stems_meet_across_plural_and_verb_endings() -> None:
    assert stem("cities") == stem("city") == "city"
    assert stem("founded") == stem("Founding") == "found"
    assert stem("passes") == stem("passing") == "pass"
    assert stem("class") == "class"
    assert stem("Tesla's") == stem("tesla")
    assert stem("1990s") == "1990s"  # a token with a digit is kept as written
    assert stems("The servers were founded") == {"server", "found"}


def test_content_words_and_meaningful_stems_keep_order_and_numbers() -> None:
    assert content_words("What is the capital of Kenya?") == ["capital", "kenya"]
    assert meaningful_stems("The 3 cities were founded in 1990") == ["3", "city", "found", "1990"]


def test_names_are_capitalised_words_that_do_not_start_the_text() -> None:
    text = "Yesterday Tesla met Edison in Paris: The man I saw flew a B52."
    assert names(text) == ["Tesla", "Edison", "Paris"]
    assert not is_name("Yesterday", 0) and is_name("Tesla", 1)
    assert not is_name("I", 5) and not is_name("The", 3) and not is_name("B52", 4)


def test_numbers_drop_separators_and_a_closing_period() -> None:
    assert numbers("In 1,200 cases in 1990. Ratio 3.5 at 12:30.") == ["1200", "1990", "3.5", "12:30"]


def test_salient_terms_weigh_names_up() -> None:
    assert salient_terms(["the tower of the city. Visit Eiffel", "Eiffel designed the tower"])[0] == "Eiffel"


def test_support_facts_are_the_toolkits_numbers_and_names() -> None:
    sentence = "According to Source 2, Tesla paid 1,200 dollars [1]."
    assert facts(sentence) == ["2", "1200", "Tesla"]


def test_the_quote_scorer_does_not_take_a_capitalised_stopword_for_a_name() -> None:
    from kimas_desktop.answer.signals.quote import _has_type

    assert answer_type("Who founded the company?") == "name"
    assert not _has_type("name", "He said I would go there.", set())
    assert _has_type("name", "It was founded by Edison.", stems("Who founded the company?"))


def test_the_answer_check_matches_a_copy_that_inflects_a_word_differently() -> None:
    source = Hit(Chunk("c1", "docs", "/docs/race.txt", "The marathon passes through five boroughs."), 1.0)
    verdict = verify("marathon passing through five boroughs", "Where does the marathon go?", [source])
    assert verdict.answerable, verdict.reason
    changed = verify("marathon passing through six boroughs", "Where does the marathon go?", [source])
    assert not changed.answerable
