"""Issue 45: a support check that catches wrong answers, not only unsupported words; the quote in place of
an answer no source backs; declines that do not contradict the quote shown above them. Through the
pipeline, with the embedded model's kind of output scripted."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from kimas_desktop.answer.outcome import DECLINE_START, Answered
from kimas_desktop.answer.writing.support import SupportChecker
from kimas_desktop.config import parse_config
from kimas_desktop.events import AnswerDelta, Done, Event, QuoteReady, SupportReady, TraceReady
from kimas_desktop.pipeline import Pipeline
from kimas_desktop.trace import SupportStage
from kimas_desktop.types import Chunk, Hit, Message, Quote
from local_models.fake import HashEmbedder, MemorySearcher, ScriptedChatModel, WordOverlapReranker

KENYA = "Kenya is a country in East Africa. Its capital and largest city is Nairobi."
NORMANS = (
    "The Normans were the people who in the 10th and 11th centuries gave their name to Normandy, a "
    "region in France."
)
SPOKEN = "The Normans spoke a language called Norman French."
FLED = "King Ethelred of England fled to Normandy in 1013."
QUOTE_START = "Your documents say:"  # what the user reads, spelled out
SET_ASIDE = "The model's own answer was set aside"
MAY_ANSWER = "The closest passage may answer this:"
SHIPS = "The harbour office keeps the ferry timetable for the island routes."


def writes(answer: str):  # type: ignore[no-untyped-def]
    """The embedded model: streams ``answer``; its look-back step cites source 1."""

    def reply(messages: Sequence[Message], schema: Mapping[str, Any] | None) -> str:
        return answer if schema is None else json.dumps({"sources": [1]})

    return reply


def ask(
    question: str,
    answer: str,
    *,
    passages: Sequence[str] = (KENYA, NORMANS, SPOKEN, FLED, SHIPS),
    history: Sequence[Message] = (),
    preset: str = "turbo",
    **grounding: Any,
) -> list[Event]:
    emb = HashEmbedder()
    searcher = MemorySearcher(emb)
    searcher.add("atlas", list(passages), "/k/atlas.md")
    config = parse_config(
        {"preset": preset, "grounding": {"decline": False, **grounding}, "rerank": {"min_score": 0.0}}
    )
    chat = ScriptedChatModel(writes(answer))  # a model that does not judge, like the embedded one
    pipe = Pipeline(config=config, chat=chat, embedder=emb, reranker=WordOverlapReranker(), searcher=searcher)
    return list(pipe.ask(question, history))


def support(events: list[Event]) -> SupportReady:
    return next(e for e in events if isinstance(e, SupportReady))


def done(events: list[Event]) -> Done:
    last = events[-1]
    assert isinstance(last, Done)
    return last


def test_a_sentence_that_restates_the_question_is_marked_and_the_quote_takes_its_place() -> None:
    events = ask("What is the capital of Kenya?", "Kenya is the capital of Kenya. [1]")
    [restated] = support(events).sentences
    assert not restated.supported
    assert restated.reason == "restates the question" and "Nairobi" in restated.lacks
    # Every sentence of the model is marked: the answer is the quote, and says the model's was set aside.
    outcome = done(events).outcome
    assert isinstance(outcome, Answered) and outcome.set_aside == "Kenya is the capital of Kenya. [1]"
    assert outcome.text.startswith(QUOTE_START) and "Nairobi" in outcome.text and SET_ASIDE in outcome.text
    assert [c.n for c in outcome.citations] == [1] and "Nairobi" in outcome.citations[0].sentence
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    stage = trace.find(SupportStage)
    assert stage is not None and stage.set_aside


def test_an_answer_without_what_the_quote_answers_is_marked_and_one_with_it_is_not() -> None:
    question = "What is the capital of Kenya?"
    events = ask(question, "The capital of Kenya is its largest city.")
    [missed] = support(events).sentences
    assert not missed.supported and missed.reason == "misses the answer" and "Nairobi" in missed.lacks
    right = support(ask(question, "The capital of Kenya is Nairobi [1].")).sentences[0]
    assert right.supported and right.reason == ""


def test_an_invented_number_is_marked_and_the_sourced_sentence_beside_it_is_not() -> None:
    answer = "The Normans were in Normandy in the 10th and 11th centuries. The answer is: 1066"
    events = ask("When were the Normans in Normandy?", answer)
    sourced, invented = support(events).sentences
    assert sourced.supported
    assert not invented.supported and invented.missing == ("1066",)
    assert invented.reason == "not in the sources"
    outcome = done(events).outcome  # one sentence is backed: the model's answer stands, marked
    assert isinstance(outcome, Answered) and outcome.text == answer and not outcome.set_aside


def test_a_number_of_another_passage_is_no_answer_to_the_question() -> None:
    # 1013 is in a source (Ethelred's flight to Normandy), not in what the quote answers.
    answer = "The Normans were in Normandy in the 10th and 11th centuries. The answer is: 1013"
    events = ask("When were the Normans in Normandy?", answer)
    assert "11th centuries" in next(e for e in events if isinstance(e, QuoteReady)).quotes[0].text
    sourced, wrong = support(events).sentences
    assert sourced.supported
    assert not wrong.supported and wrong.reason == "misses the answer" and "11" in wrong.lacks


def test_a_decline_whose_quote_holds_an_answer_does_not_call_the_documents_silent() -> None:
    question = "What language did the Normans speak?"
    events = ask(question, "unused", decline=True, threshold=0.99)  # declined whatever the evidence
    quote = next(e for e in events if isinstance(e, QuoteReady)).quotes[0]
    assert "Norman French" in quote.text
    text = "".join(e.text for e in events if isinstance(e, AnswerDelta))
    assert text.startswith(MAY_ANSWER) and "Norman French" in text and DECLINE_START not in text
    assert not done(events).answered_from_sources  # still a decline: the decision is not changed
    # A quote that does not name the question's subject keeps the plain decline.
    far = ask("Which ferry company runs the night crossing?", "unused", decline=True, threshold=0.99)
    assert "".join(e.text for e in far if isinstance(e, AnswerDelta)).startswith(DECLINE_START)


def test_a_value_from_a_source_as_close_to_the_question_as_the_quote_is_not_taken_for_a_miss() -> None:
    # The quote may be the wrong passage: the model's value comes from a source sentence that holds as
    # much of the question, so the sentence is not marked for missing the quote's.
    quoted = "The first teaching hospitals were the bimaristans of the Islamic world."
    other = "The first teaching hospital opened in Baghdad in 805."
    hits = [Hit(Chunk(str(i), "h", f"/k/{i}.md", t), 0.9) for i, t in enumerate((quoted, other))]
    quote = Quote(1, hits[0].chunk, 0, len(quoted), quoted, 1.0)
    question = "Where was the first teaching hospital opened?"
    report = SupportChecker(HashEmbedder()).check("It opened in Baghdad.", hits, question, [quote])
    assert report.sentences[0].reason != "misses the answer"


def test_a_name_written_with_a_dotted_capital_in_the_source_is_found() -> None:
    # "İstanbul" lower-cases to "i̇stanbul" (a combining dot): the answer's "Istanbul" is the same name.
    source = "Erdoğan was elected Mayor of İstanbul in the 1994 local elections."
    hits = [Hit(Chunk("t", "h", "/k/t.md", source), 0.9)]
    answer = "Erdoğan was elected Mayor of Istanbul in 1994."
    [s] = (
        SupportChecker(HashEmbedder())
        .check(answer, hits, "Who was elected Mayor of Istanbul in 1994?")
        .sentences
    )
    assert s.missing == () and s.supported


def test_a_when_question_answered_without_a_number_or_a_date_is_marked() -> None:
    # Its words are a source's, but it says nothing of when: no answer, though it is not about the
    # question's words either. Every sentence marked: the quote, which holds the centuries, is shown.
    answer = "They gave their name to a region in France. [1]"
    events = ask("When were the Normans in Normandy?", answer)
    [s] = support(events).sentences
    assert not s.supported and s.reason == "misses the answer"
    outcome = done(events).outcome
    assert isinstance(outcome, Answered) and outcome.set_aside == answer
    assert outcome.text.startswith(QUOTE_START) and "11th centuries" in outcome.text


def test_a_follow_up_declined_beside_a_quote_on_the_conversations_subject_may_be_answered_there() -> None:
    # "they" are the Normans: the question names nothing, and the quote shares none of its words
    # ("spoke", not "speak"), but it names the subject the conversation gave the query, with a name in it.
    dialect = "Their descendants spoke Norman French, the dialect of the Normans."
    history = [
        Message("user", "When were the Normans in Normandy?"),
        Message("assistant", "In the 10th and 11th centuries."),
    ]
    events = ask(
        "What language did they speak?",
        "unused",
        passages=(KENYA, dialect, SHIPS),
        history=history,
        preset="full",  # the conversation's subject joins the query
        decline=True,
        threshold=0.99,
    )
    assert "Norman French" in next(e for e in events if isinstance(e, QuoteReady)).quotes[0].text
    text = "".join(e.text for e in events if isinstance(e, AnswerDelta))
    assert text.startswith(MAY_ANSWER) and "Norman French" in text and DECLINE_START not in text
