"""The support check marks a sentence sourced word for word that answers a question about another subject
(issue 45): asked what line runs between Boston and Washington, the line between Hartford and Springfield."""

from __future__ import annotations

from kimas_desktop.answer.writing.support import SupportChecker
from kimas_desktop.types import Chunk, Hit, Quote
from local_models.fake import HashEmbedder

SHUTTLE = (
    "Amtrak also runs the Valley Line shuttle between Hartford and Springfield, serving Windsor and Enfield."
)
RAIL = f"The Northeast Regional runs between Boston and Washington. {SHUTTLE}"
Q = "What line runs between Boston and Washington?"


def test_the_support_check_marks_a_sourced_sentence_about_another_subject() -> None:
    hits = [Hit(Chunk("r", "docs", "/docs/rail.md", RAIL), 0.9)]
    # The quote is the wrong passage: every name of it is in the slot an open question asks about.
    start = RAIL.index(SHUTTLE)
    quote = [Quote(1, hits[0].chunk, start, len(RAIL), SHUTTLE, 1.0)]
    checker = SupportChecker(HashEmbedder())
    other, right = checker.check(
        "The Valley Line runs between Hartford and Springfield. "
        "The Northeast Regional runs between Boston and Washington.",
        hits,
        Q,
        quote,
    ).sentences
    assert not other.supported and other.reason == "misses the answer"
    assert right.supported
