import json
import time

from kimas_desktop.config import ContextConfig
from kimas_desktop.context.dependence import TurnDependence
from kimas_desktop.context.manager import ContextAnalyzer, heuristic_rewrite
from kimas_desktop.context.manager import QueryContextualizer as _Contextualizer
from kimas_desktop.errors import ModelError
from kimas_desktop.protocols import ChatModel
from kimas_desktop.types import Message
from local_models.fake import HashEmbedder, ScriptedChatModel


def QueryContextualizer(chat: ChatModel, config: ContextConfig, **kw: bool) -> _Contextualizer:
    """The contextualizer over a deterministic embedder (these tests are about its mechanics; the
    decision itself is tested with the real embedder in test_dependence.py)."""
    return _Contextualizer(chat, config, TurnDependence(HashEmbedder()), **kw)


HISTORY = [
    Message("user", "How do I configure the Zephyr scheduler plugin?"),
    Message("assistant", "Set the Zephyr scheduler's interval in plugin.toml."),
]


def test_first_turn_never_calls_the_llm() -> None:
    chat = ScriptedChatModel(['{"query": "x"}'])
    out = QueryContextualizer(chat, ContextConfig(rewrite="llm")).rewrite("What is Zephyr?", [])
    assert out.query == "What is Zephyr?" and out.method == "first-turn"
    assert chat.calls == []


def test_heuristic_carries_the_topic_into_a_follow_up() -> None:
    q = heuristic_rewrite("Where is the code for it?", HISTORY)
    assert q.startswith("Where is the code for it?")
    assert "Zephyr" in q and "scheduler" in q.lower()


def test_llm_rewrite_is_used_and_keeps_the_users_words() -> None:
    chat = ScriptedChatModel(
        [json.dumps({"needs_history": "previous", "query": "Zephyr scheduler plugin source location"})]
    )
    out = QueryContextualizer(chat, ContextConfig(rewrite="llm")).rewrite(
        "Where is the code for it?", HISTORY
    )
    assert out.method == "llm"
    assert out.query.startswith("Zephyr scheduler plugin source location")
    assert "code" in out.query  # the question's own keyword survives
    assert chat.calls[0][1] is not None  # constrained by a JSON schema


def test_every_llm_failure_falls_back_to_the_heuristic() -> None:
    expected = heuristic_rewrite("Where is the code for it?", HISTORY)
    for reply in (
        "not json",
        '{"needs_history": "previous", "query": 5}',
        '{"other": "x"}',
        '{"needs_history": "maybe", "query": "x"}',
        ModelError("boom"),
        '{"needs_history": "topic", "query": ""}',
    ):
        chat = ScriptedChatModel([reply])
        out = QueryContextualizer(chat, ContextConfig(rewrite="llm")).rewrite(
            "Where is the code for it?", HISTORY
        )
        assert out.method == "llm-fallback", reply
        assert out.query == expected


def test_timeout_falls_back() -> None:
    def slow(messages, schema):  # type: ignore[no-untyped-def]
        time.sleep(0.5)
        return '{"query": "late"}'

    chat = ScriptedChatModel(slow)
    out = QueryContextualizer(chat, ContextConfig(rewrite="llm", timeout_s=0.05)).rewrite("And it?", HISTORY)
    assert out.method == "llm-fallback"


def test_auto_uses_the_heuristic_for_the_tiny_model_and_none_when_disabled() -> None:
    chat = ScriptedChatModel(['{"needs_history": "previous", "query": "q"}'])
    assert (
        QueryContextualizer(chat, ContextConfig(), small_model=True).rewrite("it?", HISTORY).method
        == "heuristic"
    )
    assert (
        QueryContextualizer(chat, ContextConfig(), small_model=False).rewrite("it?", HISTORY).method == "llm"
    )
    off = QueryContextualizer(chat, ContextConfig(enabled=False)).rewrite("it?", HISTORY)
    assert off.method == "none" and off.query == "it?"


def test_analysis_selects_related_messages() -> None:
    chat = ScriptedChatModel(
        [json.dumps({"analysis": "follows up on the plugin", "indices_of_related_messages": [0, 1, 1]})]
    )
    out = ContextAnalyzer(chat, ContextConfig()).analyze("Where is the code?", HISTORY)
    assert out.method == "llm" and out.related == (0, 1)
    assert out.messages == tuple(HISTORY)


def test_analysis_fallbacks() -> None:
    long_history = HISTORY * 4
    for reply in ("{}", '{"analysis": "a", "indices_of_related_messages": [99]}', ModelError("x")):
        out = ContextAnalyzer(ScriptedChatModel([reply]), ContextConfig()).analyze("q", long_history)
        assert out.method == "fallback"
        assert out.related == (4, 5, 6, 7)  # the last two turns
    off = ContextAnalyzer(ScriptedChatModel(["{}"]), ContextConfig(analysis=False)).analyze("q", HISTORY)
    assert off.method == "disabled" and off.messages == tuple(HISTORY)
    assert ContextAnalyzer(ScriptedChatModel(["{}"]), ContextConfig()).analyze("q", []).method == "none"
