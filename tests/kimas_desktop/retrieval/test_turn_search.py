"""The turn search (``retrieval/turn_search.py``): follow-ups rewritten and searched with the files of
earlier answers, the drop rule, strategies by name, and no chat model loaded to describe a first question."""

import json

from kimas_desktop.events import (
    TraceReady,
)
from kimas_desktop.retrieval.strategies import StrategyContext, register_strategy
from kimas_desktop.trace import (
    ContextStage,
    RewriteStage,
)
from kimas_desktop.types import Message
from local_models.fake import ScriptedChatModel
from tests.kimas_desktop.pipeline_rig import (
    REX,
    VET,
    _found,
    by_schema,
    make,
    rex_asked_after_an_answer,
)


def test_follow_up_is_rewritten_and_history_is_analysed() -> None:
    replies = {
        "needs_history": json.dumps({"needs_history": "previous", "query": "dogs walks"}),
        "analysis": json.dumps({"analysis": "about dogs", "indices_of_related_messages": [0]}),
        "is_sufficient": json.dumps({"is_sufficient": True, "missing_info": "", "queries": []}),
        "sources": '{"sources": [1]}',
        "answer": json.dumps({"answer": "daily walks"}),
    }
    chat = ScriptedChatModel(by_schema(replies, "They need daily walks [1]."))
    pipe, _ = make(chat, context={"rewrite": "llm"})
    history = [Message("user", "Tell me about dogs"), Message("assistant", "Dogs are pets.")]
    events = list(pipe.ask("How often do they need it?", history))
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    assert trace.query.startswith("dogs walks")
    assert not _found(trace, RewriteStage).also_as_asked  # "they … it": no reading of its own
    assert trace.routes[0].collection == "pets"
    assert _found(trace, ContextStage).related == (0,)
    answer_prompt = next(m for m, s in chat.calls if s is None)
    # Earlier questions as a plain list: no "user:" lines a small model would continue as a transcript.
    assert "- Tell me about dogs" in answer_prompt[1].content
    assert "user:" not in answer_prompt[1].content
    assert "Dogs are pets." not in answer_prompt[1].content  # not related: left out


def test_a_wrong_guess_that_the_question_follows_up_does_not_lose_what_it_finds_alone() -> None:
    """The model takes a change of subject for a follow-up and searches the old topic's words with it; the
    question is also searched as asked, so the passage it finds alone stays in the evidence."""
    replies = {
        "needs_history": json.dumps(
            {
                "needs_history": "topic",
                "query": "Cats sleep sixteen hours a day pressure dogs daily walks park",
            }
        )
    }
    chat = ScriptedChatModel(by_schema(replies, ""))
    pipe, _ = make(chat, context={"rewrite": "llm"}, rerank={"top_n": 2})
    history = [Message("user", "Tell me about pets"), Message("assistant", "Cats sleep, dogs walk.")]
    result = pipe.retrieve("What should the tyre pressure of the car be?", history)
    assert "What should the tyre pressure of the car be?" in result.trace.agent_queries["cars"]
    assert any("2.2 bar" in h.chunk.text for h in result.hits)
    rewrite = _found(result.trace, RewriteStage)
    assert rewrite.depends == "topic" and rewrite.also_as_asked
    # A question searched as asked once is not searched twice.
    alone = pipe.retrieve("What should the tyre pressure of the car be?")
    assert not _found(alone.trace, RewriteStage).also_as_asked


def test_a_follow_up_is_also_searched_in_the_files_its_earlier_answers_came_from() -> None:
    """A follow-up by closeness that names something new ("When did Rex leave?" after an answer from
    pets.md): the rewrite's words find zoo.md best and the question's own words vet.md; kept to the file the
    conversation's answer came from, its search finds that file's passage about this Rex."""
    zoo = ("/k/zoo.md", ["Zoo keepers say the dogs sleep.", "The zoo dogs walk daily, zoo keepers say."])
    follow_up = rex_asked_after_an_answer(
        {"needs_history": "topic", "query": "zoo keepers dogs"}, 3, zoo, VET
    )
    kept = follow_up(("/k/pets.md",))
    assert REX in [h.chunk.text for h in kept.hits]
    assert _found(kept.trace, RewriteStage).within == ("/k/pets.md",)
    for sources in ((), ("/k/gone.md",)):  # no file named; a file the question's own search does not find
        lost = follow_up(sources)
        assert REX not in [h.chunk.text for h in lost.hits]
        assert _found(lost.trace, RewriteStage).within == ()


def test_a_question_that_stands_alone_is_also_searched_in_the_conversations_files_it_finds() -> None:
    """Self-contained by the model's judgement, searched as asked: its own search ranks vet.md first,
    and finds pets.md, the file the conversation's answer came from, lower; kept to it, it keeps its
    passage. With no file named, the evidence is the search as asked alone."""
    asked = rex_asked_after_an_answer({"needs_history": "no", "query": "When did Rex leave?"}, 2, VET)
    kept = asked(("/k/pets.md",))
    assert _found(kept.trace, RewriteStage).depends == "self-contained"
    assert REX in [h.chunk.text for h in kept.hits]
    assert _found(kept.trace, RewriteStage).within == ("/k/pets.md",)
    alone = asked(())
    assert [h.chunk.source for h in alone.hits] == ["/k/vet.md", "/k/vet.md"]


def test_turbo_uses_keywords_without_llm_before_the_answer() -> None:
    chat = ScriptedChatModel(by_schema({"sources": '{"sources": [1]}'}, "ok"))
    pipe, searcher = make(chat, preset="turbo")
    list(
        pipe.ask("What is the tyre pressure please?", [Message("user", "hi"), Message("assistant", "hello")])
    )
    assert next(s for _, s in chat.calls) is None  # the first LLM call is the answer itself
    assert any(q == "tyre pressure" for _, q in searcher.searches)


def test_custom_strategy_registers_by_name() -> None:
    class Shout:
        uses_llm = False

        def queries(self, query: str, ctx: StrategyContext) -> list[str]:
            return [query.upper() + " ENGINE"]

    register_strategy("shout", Shout)
    chat = ScriptedChatModel(by_schema({"sources": "{}"}, "ok"))
    pipe, searcher = make(chat, preset="turbo", collections={"cars": {"strategy": "shout"}})
    result = pipe.retrieve("oil")
    assert ("cars", "OIL ENGINE") in searcher.searches
    assert result.trace.agent_queries["cars"] == ("oil", "OIL ENGINE")


def test_llm_strategy_failure_searches_with_the_query() -> None:
    chat = ScriptedChatModel(["not json"])
    pipe, _searcher = make(
        chat, preset="turbo", collections={"pets": {"strategy": "hyde"}, "cars": {"strategy": "hyde"}}
    )
    result = pipe.retrieve("cats sleep")
    assert result.trace.agent_queries["pets"] == ("cats sleep",)
    assert result.hits[0].chunk.text.startswith("Cats sleep")


def test_retrieving_a_first_question_does_not_load_the_chat_model_to_describe_it() -> None:
    class Counting(ScriptedChatModel):
        described = 0

        def describe(self):  # type: ignore[no-untyped-def]
            Counting.described += 1
            return super().describe()

    chat = Counting(by_schema({}, "ok"))
    pipe, _ = make(chat)
    assert pipe.retrieve("How often must the engine oil be changed?").hits
    assert Counting.described == 0  # a first question needs no rewrite, so no model description
    history = [Message("user", "Tell me about cars"), Message("assistant", "They have engines.")]
    pipe.retrieve("How often is it changed?", history)
    assert Counting.described == 1  # a follow-up's rewrite asks once; the pipeline keeps the answer


def test_narrowing_to_the_conversations_files_never_takes_the_first_place_of_what_the_question_finds() -> (
    None
):
    """Issue 69: a question that stands alone, asked fourth in a chat, was declined: the passage its own
    search ranked first (in another file) lost its place to passages of the files the earlier answers came
    from, which the narrowed search found again. It leads as in a new chat; the files' passage still
    comes along."""
    vet = ("/k/vet.md", ["When did Rex the vet leave the clinic? Rex left the clinic in June."])
    pets = ("/k/pets.md", ["Rex leave home.", "When did Rex sleep?", "Rex did walk when it rained."])
    asked = rex_asked_after_an_answer({"needs_history": "no", "query": "When did Rex leave?"}, 3, vet, pets)
    alone = asked(())
    assert alone.hits[0].chunk.source == "/k/vet.md"
    fourth = asked(("/k/pets.md",))
    assert _found(fourth.trace, RewriteStage).within == ("/k/pets.md",)
    assert fourth.hits[0].chunk.text == alone.hits[0].chunk.text
    assert any(h.chunk.source == "/k/pets.md" for h in fourth.hits)
