"""Comparisons read from the question and computed from the evidence (``answer/signals/compare.py``)."""

import pytest

from kimas_desktop.answer.signals.compare import compute, parse
from kimas_desktop.types import Chunk, Hit


def hits(*texts: str) -> list[Hit]:
    return [Hit(Chunk(f"c{i}", "docs", f"/k/doc{i}.md", t), 1.0) for i, t in enumerate(texts)]


@pytest.mark.parametrize(
    ("question", "order", "items"),
    [
        (
            "Which was founded first, the Rhine Company or the Elbe Works?",
            "earliest",
            ("Rhine Company", "Elbe Works"),
        ),
        (
            "Was the Rhine Company or the Elbe Works founded earlier?",
            "earliest",
            ("Rhine Company", "Elbe Works"),
        ),
        ("Who came later, Tesla or Edison?", "latest", ("Tesla", "Edison")),
        ("Which is taller: Mount Kenya or Kilimanjaro?", "largest", ("Mount Kenya", "Kilimanjaro")),
        ("Which is shorter, the Elbe or the Rhine?", "smallest", ("Elbe", "Rhine")),
        (
            "How many years passed between the founding of Alpha Mills and Beta Forge?",
            "difference",
            ("Alpha Mills", "Beta Forge"),
        ),
    ],
)
def test_comparisons_are_read_from_the_question(question: str, order: str, items: tuple[str, str]) -> None:
    c = parse(question)
    assert c is not None and c.order == order and c.items == items


@pytest.mark.parametrize(
    "question",
    [
        "What is the capital of Kenya?",
        "Which river is the longest in Europe?",
        "When was the Rhine Company founded?",
    ],
)
def test_other_questions_are_not_comparisons(question: str) -> None:
    assert parse(question) is None


def test_the_value_comes_from_the_sentence_that_names_the_thing_and_says_the_attribute() -> None:
    evidence = hits(
        "Tesla moved to New York in 1884. Nikola Tesla was born in 1856 in Smiljan.",
        "Thomas Edison was born in 1847 in Milan, Ohio. Edison opened Menlo Park in 1876.",
    )
    got = compute("Who was born first, Tesla or Edison?", evidence)
    assert got is not None
    assert [(v.item, v.text, v.n) for v in got.values] == [("Tesla", "1856", 1), ("Edison", "1847", 2)]
    assert got.text == "Edison came first: Tesla 1856 [1], Edison 1847 [2]."
    tesla = got.values[0]
    assert evidence[0].chunk.text[tesla.start : tesla.end] == "Nikola Tesla was born in 1856 in Smiljan."


def test_numbers_with_units_and_a_missing_value() -> None:
    evidence = hits(
        "The Rhine is 1,233 km long and flows through six countries.", "The Elbe is 1,094 km long."
    )
    got = compute("Which is longer, the Rhine or the Elbe?", evidence)
    assert got is not None and got.text == "Rhine is the larger: Rhine 1,233 km [1], Elbe 1,094 km [2]."
    assert compute("Which is longer, the Rhine or the Danube?", evidence) is None
