"""The chat (``ChatSession``) of a DesktopApp on deterministic fakes: answers stream with citations and feed
the history, declines, Stop (which reaches the model: a long model step in progress ends at once, not at
the pipeline's next event), Regenerate, and errors told as sentences."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from app.chat.served_files import source_token
from kimas_desktop.answer.outcome import NO_KNOWLEDGE
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import Cancelled, ModelError
from kimas_desktop.types import Message
from local_models.fake import ScriptedChatModel
from tests.rigs import ANSWER, SlowChat, indexed_rig, make_rig, scripted, write_docs


class BlockingJudge(ScriptedChatModel):
    """The agentic judgement (a JSON step before the answer) blocks until its call is cancelled."""

    def __init__(self) -> None:
        super().__init__(scripted("The launch code is 7-4-1."), judges=True)
        self.entered = threading.Event()
        self.cancelled_after: float | None = None
        self.woken_by_stop = False

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        json_schema: Mapping[str, Any] | None = None,
        cancel: CancelToken | None = None,
    ) -> str:
        if json_schema is None or "is_sufficient" not in json_schema.get("required", ()):
            return super().complete(messages, json_schema=json_schema, cancel=cancel)
        assert cancel is not None, "the pipeline did not pass the answer's cancel token to the model"
        done = threading.Event()
        cancel.on_cancel(done.set)
        started = time.perf_counter()
        self.entered.set()
        self.woken_by_stop = done.wait(600)  # only the stop wakes it, however busy the machine
        self.cancelled_after = time.perf_counter() - started
        raise Cancelled("stopped")


def test_stop_ends_a_model_step_in_progress_at_once(tmp_path: Path) -> None:
    chat = BlockingJudge()
    # A judging model whose check finds nothing (the scripted reply) makes the agentic round search again,
    # and its judgement is the step that blocks here; the band makes the check run whatever the score.
    band = {"model_rescues_from": 0.0, "model_doubts_below": 1.0}
    rig = make_rig(tmp_path, chat=chat, config={"agentic": {"enabled": True}, "grounding": band})
    s = rig.session
    assert s.add_uploads("docs", [(write_docs(tmp_path / "t") / "heliotrope.pdf", "heliotrope.pdf")]).ok
    rig.wait_idle()
    conv = s.chat.new_conversation()
    turns = s.chat.ask(conv, "What is the launch code of Project Heliotrope?")
    next(turns)
    threading.Thread(target=lambda: list(turns), daemon=True).start()
    assert chat.entered.wait(120), "the agentic judgement never ran"
    s.chat.stop(conv)
    deadline = time.perf_counter() + 120
    while chat.cancelled_after is None and time.perf_counter() < deadline:
        time.sleep(0.01)
    assert chat.cancelled_after is not None, "the model call was not cancelled"
    assert chat.woken_by_stop  # the stop reached the model call in progress (not a fixed 1 s budget)
    while conv.turns[-1].state == "running" and time.perf_counter() < deadline:
        time.sleep(0.01)
    assert conv.turns[-1].state == "stopped"


def test_no_knowledge_yet_says_how_to_add_some(tmp_path: Path) -> None:
    s = make_rig(tmp_path).session
    assert not s.knowledge.has_knowledge()
    turn = list(s.chat.ask(s.chat.new_conversation(), "Anything?"))[-1]
    assert turn.answer == NO_KNOWLEDGE and not turn.answered_from_sources


def test_ask_streams_cites_and_feeds_the_history(tmp_path: Path) -> None:
    rig = indexed_rig(tmp_path)
    s = rig.session
    conv = s.chat.new_conversation()
    answers = [t.answer for t in s.chat.ask(conv, "What is the launch code of Project Heliotrope?")]
    assert answers[0] == "" and answers[-1] == ANSWER
    partial = [a for a in answers if a and a != ANSWER]
    assert len(set(partial)) >= 3 and all(ANSWER.startswith(a) for a in partial)  # streamed word by word
    turn = conv.turns[-1]
    assert turn.citations[0].chunk.source.endswith("heliotrope.pdf") and turn.trace is not None
    token = source_token(turn.citations[0].chunk.source)
    assert s.sources.file(token) == Path(turn.citations[0].chunk.source).resolve()
    assert s.sources.file(source_token("/etc/passwd")) is None
    list(s.chat.ask(conv, "Which project has that launch code?"))
    last_prompt = next(m for m, schema in reversed(rig.chat.calls) if schema is None)[-1].content
    assert "Question: Which project has that launch code?" in last_prompt
    # The earlier question reaches the answer prompt as a plain list; earlier answers do not (a small model
    # copies them, or goes on writing "user:/assistant:" lines).
    assert "Earlier questions in this chat" in last_prompt
    assert "- What is the launch code of Project Heliotrope?" in last_prompt
    assert ANSWER not in last_prompt


def test_a_declined_answer_stays_out_of_the_history_and_regenerate_lets_the_model_try(tmp_path: Path) -> None:
    rig = indexed_rig(tmp_path)
    s = rig.session
    conv = s.chat.new_conversation()
    asked = len([c for c in rig.chat.calls if c[1] is None])
    turn = list(s.chat.ask(conv, "Which team painted the office kitchen in spring?"))[-1]
    assert turn.answer.startswith("Your documents don't say") and not turn.answered_from_sources
    assert turn.quotes and turn.answerability is not None and not turn.answerability.answerable
    assert len([c for c in rig.chat.calls if c[1] is None]) == asked  # the model was not asked
    assert [m.role for m in conv.history()] == ["user"]  # the decline does not feed later rewrites
    again = list(s.chat.regenerate(conv))[-1]
    assert again.answer == ANSWER  # this time the model answered
    assert len([c for c in rig.chat.calls if c[1] is None]) == asked + 1


def test_stop_keeps_the_partial_answer_and_releases_the_model(tmp_path: Path) -> None:
    chat = SlowChat(" ".join(f"word{i}" for i in range(200)), delay_s=0.02)
    rig = indexed_rig(tmp_path, chat=chat)
    s = rig.session
    conv = s.chat.new_conversation()
    stream = s.chat.ask(conv, "What is the launch code?")
    turn = next(stream)
    for turn in stream:
        if len(turn.answer.split()) >= 3:
            s.chat.stop(conv)
    assert turn.state == "stopped" and 3 <= len(turn.answer.split()) < 200
    assert chat.stream_closed.wait(5), "the model's stream was not closed"
    assert conv.history()[-1].content == turn.answer.strip()


def test_regenerate_and_new_chat(tmp_path: Path) -> None:
    rig = indexed_rig(tmp_path)
    s = rig.session
    conv = s.chat.new_conversation()
    list(s.chat.ask(conv, "What is the launch code?"))
    list(s.chat.regenerate(conv))
    assert [t.question for t in conv.turns] == ["What is the launch code?"]
    assert conv.turns[0].state == "done"
    assert list(s.chat.regenerate(s.chat.new_conversation())) == []  # nothing to regenerate


def test_errors_are_sentences_and_tracebacks_go_to_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(config: object) -> object:
        raise RuntimeError("disk on fire")

    rig = indexed_rig(tmp_path, chat_builder=broken)
    s = rig.session
    with caplog.at_level(logging.INFO):
        turn = list(s.chat.ask(s.chat.new_conversation(), "Hello?"))[-1]
    assert turn.state == "failed"
    assert "disk on fire" in turn.error and str(s.log_file) in turn.error and "Traceback" not in turn.error
    assert any(r.exc_info and "answering" in r.getMessage() for r in caplog.records)

    def model_error(config: object) -> object:
        raise ModelError("The chat model could not be loaded: the file is not a GGUF model.")

    rig2 = indexed_rig(tmp_path / "two", chat_builder=model_error)
    turn = list(rig2.session.chat.ask(rig2.session.chat.new_conversation(), "Hello?"))[-1]
    assert turn.error == "The chat model could not be loaded: the file is not a GGUF model."


def test_the_quotes_source_opens_while_the_answer_is_still_streaming(tmp_path: Path) -> None:
    chat = SlowChat(" ".join(f"word{i}" for i in range(40)), delay_s=0.02)
    s = indexed_rig(tmp_path, chat=chat).session
    conv = s.chat.new_conversation()
    for turn in s.chat.ask(conv, "What is the launch code of Project Heliotrope?"):
        if turn.quotes and not turn.citations:
            source = turn.quotes[0].chunk.source
            assert s.sources.file(source_token(source)) == Path(source).resolve()
            s.chat.stop(conv)
            break
    else:
        pytest.fail("no quote arrived before the citations")


def test_background_indexing_waits_while_an_answer_is_written(tmp_path: Path) -> None:
    seen: list[bool] = []

    def reply(messages, schema):  # type: ignore[no-untyped-def]
        seen.append(rig.session.indexing.answering_now)
        return scripted("The launch code is 7-4-1.")(messages, schema)

    rig = indexed_rig(tmp_path, chat=ScriptedChatModel(reply))
    conv = rig.session.chat.new_conversation()
    assert not rig.session.indexing.answering_now
    turns = list(rig.session.chat.ask(conv, "What is the launch code of Project Heliotrope?"))
    assert turns[-1].answer and seen and all(seen)
    deadline = time.monotonic() + 5  # the answer's thread lets go as it ends
    while rig.session.indexing.answering_now and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not rig.session.indexing.answering_now
