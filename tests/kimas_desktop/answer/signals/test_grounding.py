"""The grounder (quote + answerability) and the decline text, on the quote tests' fixtures.

The decision with the real models over real indexed files is in tests/local_models/test_grounding_real.py.
"""

from __future__ import annotations

from collections.abc import Sequence

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


class _Reads:
    """A reader that takes the sentences holding ``word`` to answer (the logic here is the grounder's)."""

    model_id = "reads-a-word"

    def __init__(self, word: str) -> None:
        self.word = word
        self.asked: list[str] = []

    def read(self, question: str, texts: Sequence[str]) -> list[float]:
        self.asked.append(question)
        return [0.9 if self.word in t else 0.05 for t in texts]


def test_the_reader_chooses_the_quote_when_asked_and_only_then() -> None:
    hits = [hit(KENYA, 0.6)]
    question = "What is the capital of Kenya?"
    reader = _Reads("Tanzania")
    unread = Grounder(HashEmbedder(), GroundingConfig(), reader).ground(question, hits)
    assert reader.asked == []  # weights at 0: the reader is not run
    read = Grounder(HashEmbedder(), GroundingConfig(reader_weight=5.0), reader).ground(question, hits)
    assert "Nairobi" in unread.quotes[0].text
    assert "Tanzania" in read.quotes[0].text and reader.asked == [question]


def test_evidence_the_reader_finds_no_answer_in_is_declined() -> None:
    hits = [hit(KENYA, 0.6)]
    question = "What is the capital of Kenya?"
    config = GroundingConfig(reader_declines_below=0.5)
    assert Grounder(HashEmbedder(), config, _Reads("Nairobi")).ground(question, hits).answerability.answerable
    declined = Grounder(HashEmbedder(), config, _Reads("no such word")).ground(question, hits)
    assert not declined.answerability.answerable
    assert "Nairobi" in declined.quotes[0].text  # the decision changed, not the quote


def test_a_decline_names_a_file_as_it_is_not_as_its_bidi_characters_draw_it() -> None:
    """Issue 70: ``invoice\\u202efdp.md`` reads "invoicedm.pdf" when printed raw (CLI, API, MCP answers)."""
    grounder = Grounder(HashEmbedder(), GroundingConfig())
    g = grounder.ground("What is the national bird of Peru?", [hit(KENYA, 0.3, "/docs/invoice\u202efdp.md")])
    text = decline_text("What is the national bird of Peru?", g.quotes)
    assert "invoice\\u202efdp.md" in text and "\u202e" not in text
