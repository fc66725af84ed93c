"""Issue 69: with the embedded chat model the answer is the quote, with its sources, and the model is not
asked to write (bench/RESULTS.md, "answer loops": its sentences added the gold beyond the quote for 0 of
250 held-out questions, and showed loops and unsupported sentences). A model whose description says it
writes (a bigger one the user picked) answers in its own words; Regenerate lets the embedded one write.

The real app and pipeline over an indexed collection; a scripted model stands in for the embedded one
(``writes=False``, as ``LlamaChatModel`` describes SmolLM2-135M: tests/local_models/llama/test_writes.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kimas_desktop.answer.outcome import QUOTE_START
from kimas_desktop.answer.phrases import language_of
from local_models.fake import ScriptedChatModel
from tests.rigs import ANSWER, indexed_rig, scripted
from tests.ui.english import english_runs
from ui.chat import render
from ui.chat.said import said_in
from ui.chat.trace_view import trace_markdown

QUESTION = "What is the launch code of Project Heliotrope?"
WRITTEN = ANSWER.split(" [")[0]


def _writing_calls(chat: ScriptedChatModel) -> list[object]:
    """The calls that asked the model for free text (an answer, not a JSON judgement)."""
    return [messages for messages, schema in chat.calls if schema is None]


def test_with_the_embedded_model_the_answer_is_the_quote_and_the_model_writes_nothing(tmp_path: Path) -> None:
    chat = ScriptedChatModel(scripted(), writes=False)
    rig = indexed_rig(tmp_path, chat=chat)
    try:
        conv = rig.session.chat.new_conversation()
        turn = list(rig.session.chat.ask(conv, QUESTION))[-1]
        assert turn.state == "done" and turn.quote_only and turn.answered_from_sources
        assert "PURPLE-OTTER-42" in turn.quotes[0].text
        assert turn.answer.startswith(QUOTE_START) and "PURPLE-OTTER-42" in turn.answer
        assert WRITTEN not in turn.answer
        assert [c.chunk.file_name for c in turn.citations] == ["heliotrope.pdf"]
        second = list(rig.session.chat.ask(conv, "And what is the launch code again?"))[-1]
        assert second.quote_only and "PURPLE-OTTER-42" in second.answer
        assert chat.calls == []  # no answer written, no context analysis for an answer never written
        shown = render.chat_messages(conv)
        assert "<mark class='kimas-answering'>PURPLE-OTTER-42</mark>" in shown[1]["content"]
        note = said_in("quote only", "en")
        assert [m["content"].count(note) for m in shown if m["role"] == "assistant"][:2] == [1, 0]
    finally:
        rig.session.close()


def test_a_model_that_writes_answers_in_its_own_words(tmp_path: Path) -> None:
    chat = ScriptedChatModel(scripted())  # a bigger model the user picked
    rig = indexed_rig(tmp_path, chat=chat)
    try:
        turn = list(rig.session.chat.ask(rig.session.chat.new_conversation(), QUESTION))[-1]
        assert turn.state == "done" and not turn.quote_only
        assert WRITTEN in turn.answer and _writing_calls(chat)
        assert said_in("quote only", "en") not in render.answer_markdown(turn, "1", tell_quote_only=True)
    finally:
        rig.session.close()


def test_regenerate_lets_the_embedded_model_write_as_the_user_asked(tmp_path: Path) -> None:
    chat = ScriptedChatModel(scripted(), writes=False)
    rig = indexed_rig(tmp_path, chat=chat)
    try:
        conv = rig.session.chat.new_conversation()
        assert list(rig.session.chat.ask(conv, QUESTION))[-1].quote_only
        again = list(rig.session.chat.regenerate(conv))[-1]
        assert again.state == "done" and not again.quote_only
        assert WRITTEN in again.answer and len(_writing_calls(chat)) == 1
    finally:
        rig.session.close()


def test_a_chinese_chat_says_once_in_chinese_that_answers_are_the_passage(tmp_path: Path) -> None:
    chat = ScriptedChatModel(scripted("发射代码是 PURPLE-OTTER-42 [1]。"), writes=False)
    # the fakes' word overlap reads no Chinese, so nothing is declined here: the test is of the words
    rig = indexed_rig(tmp_path, chat=chat, config={"grounding": {"decline": False}})
    try:
        conv = rig.session.chat.new_conversation()
        for question in ("Heliotrope 项目的发射代码是什么？", "Heliotrope 的发射代码又是什么？"):
            assert language_of(question) == "zh"
            turn = list(rig.session.chat.ask(conv, question))[-1]
            assert turn.state == "done" and turn.quote_only, turn.answer
        answers = [m["content"] for m in render.chat_messages(conv) if m["role"] == "assistant"]
        answers = [a for a in answers if "kimas-quotes" in a]  # not the traces
        note = said_in("quote only", "zh")
        assert "设置" in note and [a.count(note) for a in answers] == [1, 0]
        assert not english_runs(note) and _writing_calls(chat) == []
    finally:
        rig.session.close()


@pytest.mark.parametrize(
    "question",
    [
        QUESTION,
        "Heliotrope 项目的发射代码是什么？",
        "Heliotrope プロジェクトの発射コードは何ですか？",
        "Heliotrope परियोजना का लॉन्च कोड क्या है?",
    ],
)
def test_the_trace_of_an_answer_that_is_the_quote_says_no_model_was_asked(
    tmp_path: Path, question: str
) -> None:
    """Issue 69 follow-up: the trace ("How this answer was made") of an answer that is the quote said
    "Evidence given to the model", though no model was asked. It names the evidence the quote was chosen
    from and says the answer is the quote and why, in each language the trace speaks."""
    chat = ScriptedChatModel(scripted(), writes=False)
    rig = indexed_rig(tmp_path, chat=chat, config={"grounding": {"decline": False}})  # the fakes read no zh
    try:
        turn = list(rig.session.chat.ask(rig.session.chat.new_conversation(), question))[-1]
        assert turn.state == "done" and turn.quote_only and turn.trace is not None
        lang, trace = language_of(question), trace_markdown(turn.trace)
        heading, answer = said_in("tr evidence quote", lang), said_in("tr answer quote", lang, why="")
        assert heading.startswith("**") and heading in trace and said_in("tr evidence", lang) not in trace
        line = next(line for line in trace.splitlines() if line.startswith(answer.split(" ")[0]))
        assert line == said_in("tr answer quote", lang, why=said_in("re quote_only", lang)), trace
        assert lang == "en" or not english_runs(f"{heading} {line}"), (heading, line)
    finally:
        rig.session.close()


def test_the_trace_of_the_quote_in_place_of_a_model_not_ready_yet_says_why(tmp_path: Path) -> None:
    """The quote in the place of a chat model still being prepared (issue 71) was not written by a model
    either: its trace says so, and why."""
    from local_models.llama.pending import PendingLlamaChatModel

    rig = indexed_rig(tmp_path, chat_builder=PendingLlamaChatModel)
    try:
        turn = list(rig.session.chat.ask(rig.session.chat.new_conversation(), QUESTION))[-1]
        assert turn.state == "done" and turn.answer.startswith(QUOTE_START) and turn.trace is not None
        trace = trace_markdown(turn.trace)
        assert said_in("tr evidence quote", "en") in trace and said_in("tr evidence", "en") not in trace
        assert said_in("tr answer quote", "en", why=said_in("re model_not_ready", "en")) in trace
    finally:
        rig.session.close()
