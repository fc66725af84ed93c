"""End to end through ``Pipeline.ask``: a question routed, searched, quoted, answered and cited; no
collections; the quote not waiting for the background context analysis. Each step has its own file:
``retrieval/test_turn_search.py``, ``answer/test_decider.py``, ``answer/test_writer.py``."""

import json
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from kimas_desktop.answer.outcome import NO_KNOWLEDGE, Answered, NothingFound
from kimas_desktop.config import parse_config
from kimas_desktop.events import (
    AnswerDelta,
    CitationsReady,
    Done,
    QuoteReady,
    Status,
    TraceReady,
)
from kimas_desktop.pipeline import Pipeline
from kimas_desktop.trace import (
    AgenticStage,
    ContextStage,
)
from kimas_desktop.types import ChatModelDescription, Message
from local_models.fake import HashEmbedder, MemorySearcher, ScriptedChatModel, WordOverlapReranker
from tests.kimas_desktop.pipeline_rig import (
    _found,
    by_schema,
    make,
)


def test_ask_routes_retrieves_answers_and_cites() -> None:
    chat = ScriptedChatModel(
        by_schema(
            {
                "is_sufficient": json.dumps({"is_sufficient": True, "missing_info": "", "queries": []}),
                "sources": json.dumps({"sources": [1]}),
            },
            "Change the engine oil every 10000 km [1].",
        )
    )
    pipe, _ = make(chat, routing={"top_k": 1}, grounding={"llm_check": "off"})  # the agentic round runs
    events = list(pipe.ask("How often must the engine oil be changed?"))
    assert isinstance(events[0], Status)
    answer = "".join(e.text for e in events if isinstance(e, AnswerDelta))
    assert answer.startswith("Change the engine oil")
    cites = next(e for e in events if isinstance(e, CitationsReady))
    assert cites.citations[0].chunk.source == "/k/car.pdf"
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    assert next(r.collection for r in trace.routes) == "cars"
    assert trace.agent_queries.keys() == {"cars"}  # only the routed collection was searched
    assert {
        "rewrite",
        "route",
        "retrieve",
        "rerank",
        "pack",
        "agentic",
        "first_token",
        "answer",
        "citations",
        "total",
    } <= trace.timings_ms.keys()
    assert _found(trace, AgenticStage).skipped == "the evidence answers"  # no model check said otherwise
    assert isinstance(events[-1], Done) and events[-1].answered_from_sources
    # the answer prompt carries the numbered evidence
    answer_prompt = next(m for m, s in chat.calls if s is None)
    assert "[1] (car.pdf" in answer_prompt[1].content


def test_no_collections_means_no_llm_and_a_hint() -> None:
    chat = ScriptedChatModel(["should not be called"])
    emb = HashEmbedder()
    pipe = Pipeline(
        config=parse_config({}),
        chat=chat,
        embedder=emb,
        reranker=WordOverlapReranker(),
        searcher=MemorySearcher(emb),
    )
    events = list(pipe.ask("anything?"))
    assert events[-1] == Done(NothingFound(NO_KNOWLEDGE, "no knowledge"))
    assert chat.calls == []


def test_the_quote_does_not_wait_for_the_context_analysis() -> None:
    """The context analysis (a model call) picks the earlier messages for the answer prompt only: the
    grounded quote is shown while it runs, and its choice still reaches the answer."""
    quote_shown = threading.Event()
    replies = by_schema(
        {
            "needs_history": json.dumps({"needs_history": "previous", "query": "dogs walks"}),
            "analysis": json.dumps({"analysis": "about dogs", "indices_of_related_messages": [0]}),
            "is_sufficient": json.dumps({"is_sufficient": True, "missing_info": "", "queries": []}),
            "sources": '{"sources": [1]}',
            "answer": json.dumps({"answer": "daily walks"}),
        },
        "They need daily walks [1].",
    )
    analysis_saw_the_quote: list[bool] = []

    def reply(messages: Sequence[Message], schema: Mapping[str, Any] | None) -> str:
        if schema is not None and schema["required"][0] == "analysis":
            analysis_saw_the_quote.append(quote_shown.wait(120))  # a hang guard, not a budget
        return str(replies(messages, schema))

    chat = ScriptedChatModel(reply)
    pipe, _ = make(chat, context={"rewrite": "llm"})
    history = [Message("user", "Tell me about dogs"), Message("assistant", "Dogs are pets.")]
    events = []
    for event in pipe.ask("How often do they need it?", history):
        if isinstance(event, QuoteReady):
            quote_shown.set()
        events.append(event)
    assert analysis_saw_the_quote == [True]
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    assert _found(trace, ContextStage).related == (0,)
    answer_prompt = next(m for m, s in chat.calls if s is None)
    assert "- Tell me about dogs" in answer_prompt[1].content


class _Described(ScriptedChatModel):
    """Counts how often the pipeline asks for the model's description (the real one loads the model)."""

    described = 0

    def describe(self) -> ChatModelDescription:
        self.described += 1
        return super().describe()


@pytest.mark.parametrize("writes", [True, False])
def test_the_chat_model_is_described_once_and_that_description_read_everywhere(writes: bool) -> None:
    """Issue 69 follow-up: the policy asked the model's ``describe()`` again for ``writes`` in every answer,
    beside the one description the pipeline holds (twice in the first answer, once in each after)."""
    chat = _Described(by_schema({}, "Change the engine oil every 10000 km [1]."), writes=writes)
    pipe, _ = make(chat)
    for question in ("How often must the engine oil be changed?", "How often must the oil be changed?"):
        done = list(pipe.ask(question))[-1]
        assert isinstance(done, Done) and isinstance(done.outcome, Answered)
        assert done.outcome.quote_only is not writes  # the one description's ``writes`` decided
    assert chat.described == 1
