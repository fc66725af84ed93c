"""The support check reads the question's slot as the language does (issue 45, tuned on the dev kit's tune
split): a "when" clause inside another question asks no date, and a date is no count."""

from __future__ import annotations

from collections.abc import Sequence

from kimas_desktop.answer.writing.support import SupportChecker
from kimas_desktop.types import Chunk, Hit, Quote, SentenceSupport
from local_models.fake import HashEmbedder

REPORT = "In March 2013, Chairman Reince Priebus gave a report on the party's failures in 2012."
REFORMS = "The report of Chairman Reince Priebus proposed 219 reforms to the party."
JUNTA = "General Luis Paz, former Chairman of the Junta of Ecuador, has Luis as his first given name."
THEORY = (
    "Chomsky says postmodernist intellectuals do not respond like people in other fields when asked what "
    "their theories explain."
)


def check(question: str, answer: str, passages: Sequence[str]) -> tuple[SentenceSupport, ...]:
    """``answer`` checked against ``passages``; the first passage is the quote."""
    hits = [Hit(Chunk(str(i), "docs", f"/docs/{i}.md", t), 0.9) for i, t in enumerate(passages)]
    quote = [Quote(1, hits[0].chunk, 0, len(passages[0]), passages[0], 1.0)]
    return SupportChecker(HashEmbedder()).check(answer, hits, question, quote).sentences


def test_a_where_answer_without_a_name_is_still_a_miss() -> None:
    # Kept as the tune split showed it: a sentence in the quote's own common words that names no place.
    # Letting such sentences pass (a who or where answer may be no name) let this wrong one through.
    [s] = check("Where is Luis Paz from?", "Luis Paz is also known more casually as Luis. [1]", [JUNTA])
    assert not s.supported and s.reason == "misses the answer"


def test_a_when_clause_inside_a_why_question_asks_no_date() -> None:
    # A "when" clause made it a when question: a sentence with no date was marked as missing the answer.
    question = "Why do postmodernist intellectuals not respond like people in other fields when asked?"
    [s] = check(question, "They cannot say what their theories explain. [1]", [THEORY])
    assert s.supported and s.reason == ""


def test_a_date_is_no_answer_to_how_many() -> None:
    question = "How many reforms did Reince Priebus propose?"
    copied = "In March 2013, Chairman Reince Priebus gave a report on the party's failures in 2012."
    [s] = check(question, copied, [REPORT, REFORMS])
    assert not s.supported and s.reason == "misses the answer"
    [right] = check(question, "Reince Priebus proposed 219 reforms.", [REFORMS, REPORT])
    assert right.supported
