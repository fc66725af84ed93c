"""Inline [n] markers: after the sentences a cited source supports, never after unsupported ones."""

from __future__ import annotations

import pytest

from kimas_desktop.answer.writing.markers import (
    Marker,
    insert_markers,
    place_markers,
    renumber,
    shown_numbers,
)
from kimas_desktop.text.sentences import split_sentences
from kimas_desktop.types import SentenceSupport

ANSWER = (
    "The launch code is PURPLE-OTTER-42. Dana waters the plants on Mondays.\n\n"
    "The moon is made of cheese. Badges are renewed in March."
)


def _support(answer: str, verdicts: list[tuple[bool, int | None]]) -> list[SentenceSupport]:
    sentences = split_sentences(answer, "markdown")
    assert len(sentences) == len(verdicts)
    return [
        SentenceSupport(s.text, s.start, s.end, ok, 0.9 if ok else 0.1, 0.9 if ok else 0.1, n)
        for s, (ok, n) in zip(sentences, verdicts, strict=True)
    ]


def _draw(answer: str, markers: tuple[Marker, ...]) -> str:
    return insert_markers(answer, markers, lambda n: f"[{n}]")


def test_each_supported_sentence_ends_with_its_source() -> None:
    support = _support(ANSWER, [(True, 1), (True, 2), (False, 1), (True, 3)])
    marked = _draw(ANSWER, place_markers(ANSWER, support, {1, 2, 3}))
    assert marked == (
        "The launch code is PURPLE-OTTER-42.[1] Dana waters the plants on Mondays.[2]\n\n"
        "The moon is made of cheese. Badges are renewed in March.[3]"
    )


def test_no_marker_for_a_source_not_in_the_source_list() -> None:
    support = _support(ANSWER, [(True, 1), (True, 2), (True, 1), (True, 4)])
    markers = place_markers(ANSWER, support, {1, 2})
    assert [m.source for m in markers] == [1, 2, 1]


def test_a_marker_the_model_wrote_is_not_repeated() -> None:
    answer = "The launch code is PURPLE-OTTER-42 [1]. Dana waters the plants [2]."
    support = _support(answer, [(True, 1), (True, 1)])
    marked = _draw(answer, place_markers(answer, support, {1, 2}))
    assert marked == "The launch code is PURPLE-OTTER-42 [1]. Dana waters the plants [2].[1]"


def test_support_for_another_text_places_nothing() -> None:
    support = _support(ANSWER, [(True, 1), (True, 2), (True, 1), (True, 3)])
    assert place_markers("  " + ANSWER, support, {1, 2, 3}) == ()


def test_markers_past_a_streamed_prefix_are_left_out() -> None:
    support = _support(ANSWER, [(True, 1), (True, 2), (False, 1), (True, 3)])
    markers = place_markers(ANSWER, support, {1, 2, 3})
    assert _draw(ANSWER[:40], markers) == "The launch code is PURPLE-OTTER-42.[1] Dana"


@pytest.mark.parametrize(
    ("answer", "shown"),
    [
        ("备份服务器叫 Heron[12]。副本保存七天[3]。月亮是奶酪[7]。", "备份服务器叫 Heron[2]。副本保存七天[1]。月亮是奶酪。"),
        ("बैकअप सर्वर Heron है [12]। प्रतियाँ सात दिन रहती हैं [3]। चाँद पनीर है [7]।",
         "बैकअप सर्वर Heron है [2]। प्रतियाँ सात दिन रहती हैं [1]। चाँद पनीर है।"),
    ],
)  # fmt: skip
def test_written_markers_take_the_numbers_a_reader_meets_and_the_sentences_move_with_them(
    answer: str, shown: str
) -> None:
    """Issue 69: the quote's source (3) is met first, then 12; 7 is listed nowhere and its marker goes.
    Each checked sentence still covers its own words in the renumbered text."""
    sentences = split_sentences(answer, "markdown")
    support = [SentenceSupport(s.text, s.start, s.end, True, 0.9, 0.9, n) for s, n in zip(sentences, [12, 3, 7], strict=True)]  # fmt: skip
    numbers = shown_numbers(answer, first=[3], listed=[12, 3])
    assert numbers == {3: 1, 12: 2}
    text, moved = renumber(answer, support, numbers)
    assert text == shown
    assert [s.text for s in moved] == [s.text for s in split_sentences(shown, "markdown")]
    assert all(text[s.start : s.end] == s.text for s in moved)
    assert [s.source for s in moved] == [2, 1, None]
