"""The turn decision (issue 23) with the real embedded embedding model: a question that changes topic is
searched as asked; a follow-up uses the turns it depends on, and only those reach the summarizer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import local_models
from kimas_desktop.config import ContextConfig, EmbeddingModelConfig
from kimas_desktop.context.dependence import (
    KEEPS_MEANING,
    TurnDependence,
    exchanges,
    fragment,
    opening,
    refers_by_description,
    too_vague,
    unresolved_reference,
)
from kimas_desktop.context.manager import ContextAnalyzer, QueryContextualizer
from kimas_desktop.protocols import Embedder
from kimas_desktop.types import Message
from local_models.embedders.query_memo import QueryMemo
from local_models.fake import ScriptedChatModel

KENYA = [
    Message("user", "What is the capital of Kenya?"),
    Message("assistant", "The capital of Kenya is Nairobi."),
    Message("user", "How many people live there?"),
    Message("assistant", "In July 2014 Kenya's population was approximately 45 million."),
]
WARSAW = "What is the name of Warsaw's first metro line's chief engineer?"


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    return local_models.build_embedder(EmbeddingModelConfig(), tmp_path_factory.mktemp("models"))


@pytest.fixture
def judge(embedder: Embedder) -> TurnDependence:
    return TurnDependence(embedder)


def test_references_and_vague_questions() -> None:
    assert unresolved_reference("How many people live there?") == "there"
    assert unresolved_reference("What about in the US?") == "what about"
    assert unresolved_reference("Who won the World Cup that year?") == "that"
    assert unresolved_reference("Why did Elon Musk start it?") == "it"  # nothing after it resolves it
    assert unresolved_reference("When did Tsar Nicholas II give up his throne?") is None
    assert unresolved_reference("Where do ice crystals that fall to the ground form?") is None
    assert unresolved_reference("How many moons are there around Mars?") is None
    # the question's own words say what "it" is; "same" and "former" before a word are not references
    assert unresolved_reference("What is frictional unemployment and why is it important?") is None
    assert unresolved_reference("When was same sex marriage legalized?") is None
    assert unresolved_reference("In which election was former Governor Mitt Romney a nominee?") is None
    assert unresolved_reference("What was his role in the war?") == "his"  # nothing before it
    assert unresolved_reference("Are there other interesting aspects about this article?") == "other"
    assert unresolved_reference("Was the latter any good?") == "latter"
    # "other" sets what it asks against something already said, unless the question says what against
    assert unresolved_reference("Which other personality is in the article?") == "other"
    assert unresolved_reference("Was there anything else noteworthy?") == "else"
    assert unresolved_reference("How are Mars and Venus similar to each other?") is None
    assert unresolved_reference("Are there planets other than Earth with water?") is None
    assert fragment("Mother's occupation?") and fragment("Date of publication?")
    assert fragment("the novel's Pulitzer prize winning year?")
    assert not fragment("What's the date of her death?")  # a question word
    assert not fragment("Wasn't he in a movie too?")  # an auxiliary
    assert not fragment("Name of the theme music")  # not asked
    assert not fragment("Compare the Rhine and the Danube?")  # an instruction
    assert too_vague("What are the risks?") and too_vague("What is the best?")
    assert not too_vague("What is disenclavement?")  # one rare word can carry a question
    assert not too_vague("What did Tesla study?")
    assert exchanges(KENYA) == [(0, 1), (2, 3)]


BOOK = [
    Message("user", "Who wrote The Adventures of Huckleberry Finn?"),
    Message("assistant", "Mark Twain wrote the book, published in 1884."),
]


def test_a_description_the_conversation_used_refers_back(judge: TurnDependence) -> None:
    assert refers_by_description("Is Tom Sawyer in the book?", BOOK) == "the book"
    assert refers_by_description("Is Tom Sawyer in the movie?", BOOK) is None  # never spoken of
    # what follows the noun says which one it is
    assert refers_by_description("Who wrote the book of Job?", BOOK) is None
    assert refers_by_description("Who is in the book Moby-Dick?", BOOK) is None
    assert refers_by_description("What is the book that won in 1885?", BOOK) is None
    assert refers_by_description("What does the book cover say?", BOOK) is None  # a longer description
    d = judge.decide("Is Tom Sawyer in the book?", BOOK)
    assert d.depends == "topic" and d.turns == (0, 1) and "the book" in d.reason
    d = judge.decide("Date of publication?", BOOK)
    assert d.depends == "topic" and d.turns == (0, 1) and "fragment" in d.reason


def test_a_change_of_topic_is_searched_as_asked(judge: TurnDependence) -> None:
    d = judge.decide(WARSAW, KENYA)
    assert d.depends == "self-contained" and d.turns == ()
    assert "unrelated" in d.reason or "own subject" in d.reason
    # The files of the old topic's answers: its search as asked is kept to them only if it finds one.
    assert d.sources(with_sources(KENYA)) == ("/docs/answer1.pdf", "/docs/answer3.pdf")


def test_follow_ups_name_the_turns_they_need(judge: TurnDependence) -> None:
    there = judge.decide("How many people live there?", KENYA[:2])
    assert there.depends == "previous" and there.turns == (0, 1)
    vague = judge.decide("What are the risks?", KENYA)
    assert vague.depends == "topic" and vague.turns == (0, 1, 2, 3)  # the topic's exchanges
    assert not there.own_reading and not vague.own_reading  # nothing to search as asked
    assert not there.searched_both_ways("How many people live there?", "How many people live there? Kenya")
    assert judge.decide("What is the capital of Kenya?", []).method == "first-turn"


def test_the_topic_restarts_where_the_conversation_changed_subject(judge: TurnDependence) -> None:
    history = [
        *KENYA,
        Message("user", WARSAW),
        Message("assistant", "The chief engineer of Warsaw's first metro line was Jerzy Lewandowski."),
    ]
    d = judge.decide("When did it open?", history)
    assert d.depends == "previous"
    assert d.turns == (4, 5)  # Warsaw, not Kenya


def test_a_question_that_stands_alone_on_the_subject_goes_on_with_the_topic(judge: TurnDependence) -> None:
    languages = "Which languages are spoken in Kenya?"
    assert judge.decide(languages, KENYA).subject  # stands alone, on the conversation's subject
    history = [*KENYA, Message("user", languages), Message("assistant", "Swahili and English.")]
    d = judge.decide("What are the risks?", history)
    assert d.topic == (0, 1) and d.turns == (0, 1, 2, 3, 4, 5)  # the topic still starts at the capital


def test_the_rewrite_follows_the_decision(embedder: Embedder) -> None:
    ctx = QueryContextualizer(
        ScriptedChatModel([]), ContextConfig(rewrite="heuristic"), TurnDependence(embedder)
    )
    asked = ctx.rewrite(WARSAW, KENYA)
    assert asked.method == "as-asked" and asked.query == WARSAW
    follow = ctx.rewrite("How many people live there?", KENYA[:2])
    assert follow.method == "heuristic" and "Kenya" in follow.query


def test_a_question_on_the_same_subject_keeps_a_few_of_its_terms(embedder: Embedder) -> None:
    """It stands alone ("Kenya" is in it), so nothing reaches the summarizer, but it stays on the
    conversation's subject; a question naming something new (Warsaw) keeps none of it."""
    ctx = QueryContextualizer(
        ScriptedChatModel([]), ContextConfig(rewrite="heuristic"), TurnDependence(embedder)
    )
    question = "Which languages are spoken in Kenya?"
    same = ctx.rewrite(question, KENYA)
    d = same.decision
    assert d.depends == "self-contained" and d.turns == () and d.subject
    assert same.method == "as-asked" and same.query.startswith(question)
    added = same.query[len(question) :].split()
    assert 1 <= len(added) <= 3 and same.note == f"kept the conversation's subject: {' '.join(added)}"
    assert ctx.rewrite(WARSAW, KENYA).decision.subject == ()
    far = ctx.rewrite("How do steam engines convert heat into work?", KENYA)
    assert far.query == "How do steam engines convert heat into work?" and far.decision.subject == ()


def test_decision_indices_point_into_the_whole_history(embedder: Embedder) -> None:
    long = [Message("user", "Tell me about the pump."), Message("assistant", "It pumps.")] * 3
    history = [*long, *KENYA[:2]]
    ctx = QueryContextualizer(
        ScriptedChatModel([]), ContextConfig(rewrite="heuristic", history_turns=1), TurnDependence(embedder)
    )
    out = ctx.rewrite("How many people live there?", history)
    assert out.decision.turns == (6, 7)
    assert [history[i].content for i in out.decision.turns] == [m.content for m in KENYA[:2]]


def test_a_capable_model_can_add_the_history_but_never_take_it_away(embedder: Embedder) -> None:
    def ctx(needs: str, query: str) -> tuple[QueryContextualizer, ScriptedChatModel]:
        chat = ScriptedChatModel([json.dumps({"needs_history": needs, "query": query})])
        return QueryContextualizer(chat, ContextConfig(rewrite="llm"), TurnDependence(embedder)), chat

    alone, chat = ctx("no", "Warsaw metro first line chief engineer")
    out = alone.rewrite(WARSAW, KENYA)
    assert out.method == "as-asked" and out.query == WARSAW and out.decision.method == "llm"
    assert chat.calls[0][1] is not None and "needs_history" in json.dumps(chat.calls[0][1])
    added, _ = ctx("topic", "Kenya Nairobi metro chief engineer")
    out = added.rewrite(WARSAW, KENYA)  # the rules let it stand alone; the model says it needs the topic
    assert out.method == "llm" and out.query.startswith("Kenya Nairobi") and out.decision.turns == (0, 1)
    kept, _ = ctx("no", "How many people live there?")
    out = kept.rewrite("How many people live there?", KENYA[:2])  # "there" needs the previous turn
    assert out.method == "heuristic" and "Kenya" in out.query and out.decision.depends == "previous"
    assert "kept: it refers back" in out.note


def test_the_summarizer_sees_only_the_turns_the_question_needs(judge: TurnDependence) -> None:
    analyzer = ContextAnalyzer(ScriptedChatModel([]), ContextConfig(analysis=False))
    alone = analyzer.analyze(WARSAW, KENYA, judge.decide(WARSAW, KENYA))
    assert alone.messages == () and alone.method == "none"
    reply = json.dumps({"analysis": "needs Kenya", "indices_of_related_messages": [0]})
    picked = ContextAnalyzer(ScriptedChatModel([reply]), ContextConfig()).analyze(
        "How many people live there?", KENYA[:2], judge.decide("How many people live there?", KENYA[:2])
    )
    assert picked.related == (0,) and picked.messages == (KENYA[0],)


def test_each_earlier_message_is_embedded_once(embedder: Embedder, tmp_path: Path) -> None:
    class Counting:
        def __init__(self) -> None:
            self.texts: list[str] = []

        def embed_query(self, texts):  # type: ignore[no-untyped-def]
            self.texts += list(texts)
            return embedder.embed_query(texts)

    counting = Counting()
    judge = TurnDependence(QueryMemo(counting))  # type: ignore[arg-type]  # as the app builds it
    judge.decide("How many people live there?", KENYA[:2])
    judge.decide("What is the capital of Uganda?", KENYA)
    assert counting.texts.count(KENYA[0].content) == 1


CANCER = [
    Message("user", "Tell me about the different types of cancer."),
    Message(
        "assistant", "Cancer types are named for the organ where they start: lung, breast, throat and skin."
    ),
    Message("user", "How common is lung cancer?"),
    Message("assistant", "Lung cancer is the most common cancer worldwide."),
]


def test_a_question_the_conversation_does_not_change_stands_alone(judge: TurnDependence) -> None:
    """Both questions are close to the conversation; only the second means something else without it."""
    about = opening(CANCER, exchanges(CANCER))
    assert about == "Tell me about the different types of cancer."  # the question says what it is about
    own, leaning = "What causes throat cancer?", "Is smoking the main cause?"
    assert judge.kept_meaning(own, about) >= KEEPS_MEANING > judge.kept_meaning(leaning, about)
    alone = judge.decide(own, CANCER)
    assert alone.depends == "self-contained" and "meaning kept" in alone.reason
    assert alone.subject  # still on the conversation's subject: its search keeps a few of its terms
    follow = judge.decide(leaning, CANCER)
    assert follow.depends == "topic" and "meaning kept" in follow.reason and follow.turns
    assert follow.own_reading  # it says what it asks: its search also reads it as asked
    assert follow.searched_both_ways(leaning, f"{leaning} cancer types")
    assert not follow.searched_both_ways(leaning, leaning)  # one reading: nothing to fuse
    # As asked, it is also searched in the files the answers it follows came from.
    # its turns are the whole topic, (0, 1, 2, 3): "How common is lung cancer?" stayed on its subject
    assert follow.turns == (0, 1, 2, 3)
    assert follow.sources(with_sources(CANCER)) == ("/docs/answer1.pdf", "/docs/answer3.pdf")
    assert follow.sources(CANCER) == ()  # answers that name no file
    there = judge.decide("How many people live there?", with_sources(KENYA[:2]))
    assert there.uses_history and there.sources(with_sources(KENYA[:2])) == ()  # not searched as asked


def with_sources(history: list[Message]) -> list[Message]:
    """The conversation as the app keeps it: each answer names the file it came from."""
    return [
        Message(m.role, m.content, (f"/docs/answer{i}.pdf",) if m.role == "assistant" else ())
        for i, m in enumerate(history)
    ]


def test_the_opening_takes_its_answer_when_its_question_names_no_subject() -> None:
    history = [Message("user", "What did they release?"), Message("assistant", "Hands All Over, in 2010.")]
    assert opening(history, exchanges(history)) == "What did they release? Hands All Over, in 2010."


def test_a_name_the_conversation_named_is_its_subject_not_a_new_one(judge: TurnDependence) -> None:
    same = judge.decide("What is the main export of Kenya today?", KENYA)
    assert "meaning kept" in same.reason  # Kenya alone does not make it stand alone: the meaning test does
    assert same.depends == "self-contained" and same.subject
    new = judge.decide("When did Kenya become independent from Britain?", KENYA)
    assert new.reason == "it names its own subject"
