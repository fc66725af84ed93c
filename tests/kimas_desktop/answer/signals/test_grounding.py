"""The grounder (quote + answerability) and the decline text, on the quote tests' fixtures.

The decision with the real models over real indexed files is in tests/local_models/test_grounding_real.py.
"""

from __future__ import annotations

from kimas_desktop.answer.outcome import DECLINE_START, decline_text
from kimas_desktop.answer.signals.grounding import Grounder
from kimas_desktop.config import GroundingConfig
from local_models.fake import HashEmbedder
from tests.kimas_desktop.answer.signals.test_quote import HERMES, KENYA, hit


def test_grounder_declines_without_the_key_word_and_answers_with_it() -> None:
    grounder = Grounder(HashEmbedder(), GroundingConfig())
    hits = [hit(KENYA, 0.6), hit(HERMES, 0.1, "/docs/it.pdf", 1)]
    good = grounder.ground("What is the capital of Kenya?", hits)
    bad = grounder.ground("What is the national bird of Peru?", hits)
    assert "Its capital and largest city is Nairobi." in good.quotes[0].text
    assert good.answerability.score > bad.answerability.score
    assert good.idf_from == "evidence"  # no synopsis given: IDF over the hits


def test_decline_text_names_the_closest_passages() -> None:
    grounder = Grounder(HashEmbedder(), GroundingConfig())
    g = grounder.ground("What is the national bird of Peru?", [hit(KENYA, 0.3)])
    text = decline_text("What is the national bird of Peru?", g.quotes)
    assert text.startswith("Your documents don't say “What is the national bird of Peru”")
    assert "[1] kenya.md, lines 1-3" in text
    assert text.startswith(DECLINE_START)
