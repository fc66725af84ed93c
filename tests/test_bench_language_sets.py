"""bench.language_sets.asked: the phrase a known-item question asks about, alone, whatever the language
the generator wrote the question in (app/evaluation/phrases.ASK; issue 46 changed the wording)."""

from __future__ import annotations

import pytest

from app.evaluation.phrases import Phrase, ask_about
from app.evaluation.questions import EvalQuestion
from bench.language_sets import asked


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("the Calloway signal box", "en"),
        ("检索增强生成", "zh"),
        ("日本語入力", "ja"),
        ("चीन की दीवार", "hi"),
    ],
)
def test_asked_is_the_phrase_alone_in_every_language(text: str, language: str) -> None:
    question = ask_about(Phrase(text, tuple(text.split()), language))
    assert asked(EvalQuestion("k1", question, True)) == text
