"""Entities of real sentences, extracted without a model (``kimas_desktop.text.entities``)."""

from __future__ import annotations

from kimas_desktop.text.entities import Entity, entity_key, extract_entities


def found(text: str) -> dict[str, str]:
    """key → kind."""
    return {e.key: e.kind for e in extract_entities(text)}


def test_multi_word_names_places_and_organisations() -> None:
    text = (
        "Nikola Tesla was born in Smiljan, in the Austrian Empire. He studied at the Graz University of "
        "Technology and later moved to New York City, where he worked for Thomas Edison."
    )
    got = found(text)
    assert got["nikola tesla"] == "name"
    assert got["thomas edison"] == "name"
    assert got["graz university of technology"] == "organisation"
    assert got["new york city"] == "place"
    assert got["smiljan"] == "place"
    assert "austrian empire" in got
    assert "he" not in got and "technology" not in got  # no stopword, no broken name


def test_sentence_openers_are_not_names_but_sentence_initial_names_stay() -> None:
    text = "However, the Bank of America grew. The company moved. Paris is large. Visitors love Paris."
    got = found(text)
    assert "however" not in got and "the company" not in got and "company" not in got
    assert got["bank of america"] == "organisation"
    assert "paris" in got  # first in a sentence, but also capitalised mid-sentence


def test_dates_get_one_key_however_written() -> None:
    a = found("Tesla was born on 10 July 1856.")
    b = found("Tesla was born July 10, 1856.")
    assert "1856-07-10" in a and "1856-07-10" in b
    got = found("It opened in March 1999 and closed in the 1990s; the building dates from 1816.")
    assert {"1999-03", "1990s", "1816"} <= got.keys()
    assert found("Released 2004-05-17.")["2004-05-17"] == "date"
    assert "may" not in found("We may go in May.")  # neither a name nor a date without a day or year


def test_numbers_with_units_scales_and_currencies() -> None:
    text = (
        "The reef stretches for 2,300 km and the budget was $5 million, up 12% on 3.2 million visitors. "
        "The car reached 45 km/h. He had 3 sisters."
    )
    got = found(text)
    assert {"2300 km", "$5 million", "12%", "3.2 million", "45 km/h"} <= got.keys()
    assert all(got[k] == "number" for k in ("2300 km", "$5 million", "12%"))
    assert "3" not in got  # a bare number without a unit is not an entity


def test_defined_terms_and_abbreviations() -> None:
    text = (
        "A deep neural network (DNN) is a model with many layers. The energy is stored in a process "
        'called carbon fixation. "Photosynthesis" is how plants make sugar.'
    )
    got = found(text)
    assert got["deep neural network"] == "term"
    assert got["dnn"] == "term"
    assert got["carbon fixation"] == "term"
    assert got["photosynthesis"] == "term"


def test_titles_do_not_end_a_name() -> None:
    got = found("He served the brotherhood of St. James at the Armenian Patriarchate of Jerusalem.")
    assert "st. james" in got
    assert "armenian patriarchate of jerusalem" in got


def test_keys_link_mentions_written_differently() -> None:
    assert entity_key("The  University of Warsaw's") == "university of warsaw"
    assert entity_key("NASA") == "nasa"
    keys = {e.key for e in extract_entities("Warsaw is the capital. The University of Warsaw's library.")}
    assert "university of warsaw" in keys


def test_each_entity_once_with_its_first_form() -> None:
    entities = extract_entities("NASA launched it. Then NASA waited. NASA is in Washington.")
    assert [e for e in entities if e.key == "nasa"] == [Entity("nasa", "NASA", "acronym")]
