"""The decider (``answer/decider.py``): quote and lexical decision, the model's answerability judgement,
the agentic second round, and declining without the model."""

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from kimas_desktop.answer.outcome import NOTHING_FOUND, NothingFound
from kimas_desktop.config import parse_config
from kimas_desktop.events import (
    AnswerDelta,
    CitationsReady,
    Done,
    QuoteReady,
    TraceReady,
)
from kimas_desktop.pipeline import AskOptions, Pipeline
from kimas_desktop.trace import (
    AgenticStage,
    AnswerCheckStage,
)
from kimas_desktop.types import Message
from local_models.fake import HashEmbedder, MemorySearcher, ScriptedChatModel, WordOverlapReranker
from tests.kimas_desktop.pipeline_rig import (
    BAND,
    CAR,
    MODEL_FINDS_NOTHING,
    MODEL_SAYS_ANSWERABLE,
    _found,
    asked_schemas,
    by_schema,
    make,
)


def test_agentic_round_searches_again_and_fuses() -> None:
    judge = json.dumps({"is_sufficient": False, "missing_info": "tyres", "queries": ["tyre pressure bar"]})
    replies = {"is_sufficient": judge, "answer": MODEL_FINDS_NOTHING}  # the check declines: search again
    chat = ScriptedChatModel(by_schema(replies, "answer"), judges=True)
    pipe, searcher = make(chat, routing={"top_k": 1}, rerank={"min_score": 0.0}, grounding=BAND)
    events = list(pipe.ask("engine oil change interval"))
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    assert _found(trace, AgenticStage).queries == ("tyre pressure bar",)
    assert ("cars", "tyre pressure bar") in searcher.searches
    assert any("Tyre" in h.chunk.text for h in trace.evidence)


def test_the_models_answerability_judgement_decides_whether_the_agentic_round_runs() -> None:
    judge = json.dumps({"is_sufficient": False, "missing_info": "tyres", "queries": ["tyre pressure bar"]})
    for verdicts, searched, declined in (
        ([True], False, False),  # the evidence answers: no second round
        ([False, True], True, False),  # it does not: search again, and the new evidence answers
        ([False, False], True, True),  # still not: declined
    ):
        said = iter(verdicts)

        def reply(
            messages: Sequence[Message], schema: Mapping[str, Any] | None, said: Iterator[bool] = said
        ) -> str:
            if schema is None:
                return "Change the engine oil every 10000 km."
            key = schema["required"][0]
            if key == "answer":
                return json.dumps({"answer": "every 10000 km" if next(said) else ""})
            return judge

        chat = ScriptedChatModel(reply, judges=True)
        pipe, searcher = make(
            chat, routing={"top_k": 1}, rerank={"min_score": 0.0}, retrieval={"k": 1}, grounding=BAND
        )
        events = list(pipe.ask("How often must the engine oil be changed?"))
        trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
        assert (("cars", "tyre pressure bar") in searcher.searches) is searched, verdicts
        assert [s.answerable for s in trace.stages if isinstance(s, AnswerCheckStage)] == verdicts
        done = events[-1]
        assert isinstance(done, Done) and done.answered_from_sources is not declined, verdicts
        if not searched:
            assert _found(trace, AgenticStage).skipped == "the evidence answers"


def test_agentic_failure_keeps_the_first_round() -> None:
    replies = {"is_sufficient": "garbage", "answer": MODEL_FINDS_NOTHING}
    chat = ScriptedChatModel(by_schema(replies, "answer"), judges=True)
    pipe, _ = make(chat, grounding=BAND)
    events = list(pipe.ask("engine oil"))
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    assert "judgement failed" in _found(trace, AgenticStage).fallback
    assert trace.evidence


def test_nothing_relevant_means_not_found_without_the_llm() -> None:
    chat = ScriptedChatModel(["should not be called"])
    pipe, _ = make(chat, preset="turbo", rerank={"min_score": 0.5})
    events = list(pipe.ask("volcanoes on mars"))
    assert events[-1] == Done(NothingFound(NOTHING_FOUND, "nothing close"))
    assert chat.calls == []


def test_evidence_that_does_not_answer_is_declined_without_asking_the_model() -> None:
    chat = ScriptedChatModel(
        by_schema(
            {
                "is_sufficient": json.dumps({"is_sufficient": True, "missing_info": "", "queries": []}),
                "sources": json.dumps({"sources": [1]}),
            },
            "The dog was called Max.",
        )
    )
    pipe, _ = make(chat, routing={"top_k": 1}, rerank={"min_score": 0.0})
    events = list(pipe.ask("Which veterinarian vaccinated the dogs last winter?"))
    quote = next(e for e in events if isinstance(e, QuoteReady))
    assert not quote.answerability.answerable
    done = events[-1]
    assert isinstance(done, Done) and not done.answered_from_sources
    assert done.answer.startswith(
        "Your documents don't say “Which veterinarian vaccinated the dogs last winter”"
    )
    assert chat.calls == []  # no LLM step at all
    cites = next(e for e in events if isinstance(e, CitationsReady))
    assert cites.citations[0].chunk.chunk_id == quote.quotes[0].chunk.chunk_id
    # The user can still let the model try.
    tried = list(
        pipe.ask("Which veterinarian vaccinated the dogs last winter?", options=AskOptions(try_anyway=True))
    )
    assert tried[-1].answer == "The dog was called Max."  # type: ignore[union-attr]


def test_a_model_able_to_judge_declines_what_the_sources_do_not_state() -> None:
    chat = ScriptedChatModel(
        by_schema({"answer": MODEL_FINDS_NOTHING}, "Every 5000 km, they say."), judges=True
    )
    pipe, _ = make(chat, routing={"top_k": 1}, agentic={"enabled": False}, grounding=BAND)
    events = list(pipe.ask(CAR))
    answer = "".join(e.text for e in events if isinstance(e, AnswerDelta))
    # the model's answer was never asked for; the quote holds the manual's interval, so the decline
    # does not call the documents silent (issue 45)
    assert answer.startswith("The closest passage may answer this: “The engine oil must be changed")
    assert "5000" not in answer and None not in [schema for _, schema in chat.calls]
    done = next(e for e in events if isinstance(e, Done))
    assert done.answered_from_sources is False
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    assert "answer_check" in trace.timings_ms


def test_the_model_judging_answerable_lets_it_answer_and_a_failed_judgement_keeps_the_lexical_decision() -> (
    None
):
    for verdict in (MODEL_SAYS_ANSWERABLE["answer"], "not json at all"):
        replies = {"answer": verdict, "sources": json.dumps({"sources": [1]})}
        chat = ScriptedChatModel(by_schema(replies, "Every 10000 km [1]."), judges=True)
        pipe, _ = make(chat, routing={"top_k": 1}, agentic={"enabled": False}, grounding=BAND)
        events = list(pipe.ask(CAR))
        assert "".join(e.text for e in events if isinstance(e, AnswerDelta)).startswith("Every 10000 km")
        assert "answer" in asked_schemas(chat)


def test_the_embedded_model_is_not_asked_to_judge_unless_configured() -> None:
    emb = HashEmbedder()
    searcher = MemorySearcher(emb)
    searcher.add("cars", ["The engine oil must be changed every 10000 km."], "/k/car.pdf")
    for llm_check, asked in (("auto", False), ("off", False), ("on", True)):
        chat = ScriptedChatModel(by_schema({"sources": json.dumps({"sources": [1]})}, "Every 10000 km [1]."))
        config = parse_config({"preset": "turbo", "grounding": {"llm_check": llm_check, **BAND}})
        pipe = Pipeline(
            config=config, chat=chat, embedder=emb, reranker=WordOverlapReranker(), searcher=searcher
        )  # the fake describes itself as a model that does not judge, like the embedded one
        list(pipe.ask(CAR))
        assert ("answer" in asked_schemas(chat)) is asked, llm_check


def test_stopping_the_answer_during_the_model_judgement_stops_it_and_is_not_taken_for_a_failed_judgement() -> (
    None
):
    from kimas_desktop.errors import Cancelled

    def reply(messages: Sequence[Message], schema: Mapping[str, Any] | None) -> str:
        if schema is not None and schema["required"][0] == "answer":
            raise Cancelled("stopped")
        return "Every 10000 km [1]."

    chat = ScriptedChatModel(reply, judges=True)
    pipe, _ = make(chat, routing={"top_k": 1}, agentic={"enabled": False}, grounding=BAND)
    events = []
    try:
        for e in pipe.ask(CAR):
            events.append(e)
    except Cancelled:
        pass
    else:
        raise AssertionError("the cancel was swallowed")
    assert not any(isinstance(e, AnswerDelta) for e in events)
