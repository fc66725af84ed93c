"""The Hindi light stemmer and folding (issue 42): inflected forms of a real word meet, short words stay."""

from __future__ import annotations

from kimas_desktop.text import devanagari
from kimas_desktop.text.words import stem


def test_the_forms_of_a_noun_share_a_stem() -> None:
    forms = ["लड़का", "लड़के", "लड़कों", "लडके"]  # boy, boys / oblique, oblique plural, without the nukta
    assert {devanagari.stem(f) for f in forms} == {"लडक"}


def test_chandrabindu_and_anusvara_are_one() -> None:
    assert devanagari.fold("गाँव") == devanagari.fold("गांव") == "गांव"


def test_every_suffix_is_as_long_as_its_group_says() -> None:
    for size, group in enumerate(devanagari._SUFFIXES, start=1):
        assert all(len(suffix) == size for suffix in group), size


def test_a_stem_keeps_more_than_one_character() -> None:
    assert devanagari.stem("की") == "की"  # "of": no suffix taken off a two-character word
    assert devanagari.stem("नदी") == "नद"


def test_the_shared_stem_reads_hindi_and_leaves_english_as_it_was() -> None:
    assert stem("लड़कों") == stem("लड़के")
    assert stem("cities") == "city"
