"""The one helper for optional steps: our errors and timeouts degrade to the fallback with the reason; a
cancel and a bug do not."""

from __future__ import annotations

import time

import pytest

from kimas_desktop.answer.signals.agentic import SufficiencyJudge
from kimas_desktop.config import ContextConfig
from kimas_desktop.context.dependence import TurnDependence
from kimas_desktop.context.manager import QueryContextualizer
from kimas_desktop.errors import Cancelled, ModelError
from kimas_desktop.optional import optional, run_with_timeout
from kimas_desktop.types import Chunk, Hit, Message
from local_models.fake import HashEmbedder, ScriptedChatModel


def _raise(err: BaseException) -> str:
    raise err


def test_a_failed_step_gives_the_fallback_the_reason() -> None:
    assert optional(
        "step", lambda: _raise(ModelError("the worker died")), lambda why: f"fell back: {why}"
    ) == ("fell back: the worker died")
    slow = optional("slow", lambda: run_with_timeout(lambda: time.sleep(2) or "late", 0.05), lambda why: why)
    assert slow == "timed out"


def test_a_cancel_and_a_bug_are_not_degraded_answers() -> None:
    with pytest.raises(Cancelled):
        optional("step", lambda: _raise(Cancelled("stopped")), lambda why: why)
    with pytest.raises(ZeroDivisionError):
        optional("step", lambda: str(1 / 0), lambda why: why)


def test_the_reason_reaches_what_the_user_and_the_trace_see() -> None:
    history = [Message("user", "Tell me about the pump."), Message("assistant", "It moves water.")]
    rewrite = QueryContextualizer(
        ScriptedChatModel([ModelError("the chat server is unreachable")]),
        ContextConfig(rewrite="llm"),
        TurnDependence(HashEmbedder()),
    ).rewrite("How loud is it?", history)
    assert rewrite.method == "llm-fallback" and rewrite.note == "the chat server is unreachable"

    hit = Hit(Chunk("c1", "c", "/d/a.md", "The pump is quiet."), 1.0)
    judge = SufficiencyJudge(ScriptedChatModel([ModelError("the worker died")]), max_queries=2)
    reasons: list[str] = []
    assert optional("judgement", lambda: judge.judge("How loud is it?", [hit]), reasons.append) is None
    assert reasons == ["the worker died"]
