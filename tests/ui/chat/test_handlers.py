"""No lost input: a question sent while an answer streams, Regenerate, and switching chats mid-answer
(handlers without a browser, on the deterministic fakes through the real pipeline)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from app.chat.history import ChatHistory
from kimas_desktop.control import CancelToken
from kimas_desktop.types import Message
from tests.rigs import ANSWER, Rig, SlowChat, make_rig, scripted, write_docs
from tests.ui.english import english_runs
from ui.chat import handlers as chat_handlers
from ui.chat import render

LONG = ANSWER + " And " + " ".join(f"word{i}" for i in range(60))  # a backed sentence, then an unbacked one


def _indexed(tmp_path: Path, chat: SlowChat | None = None) -> Rig:
    rig = make_rig(tmp_path, chat=chat)
    rig.session.start()
    assert rig.session.add_uploads("docs", [(write_docs(tmp_path / "t") / "heliotrope.pdf", "x.pdf")]).ok
    rig.wait_idle()
    return rig


def _drain(
    updates: Iterator[chat_handlers.Drawn],
    into: list[chat_handlers.Drawn],
    times: list[float] | None = None,
) -> threading.Thread:
    def work() -> None:
        for u in updates:
            into.append(u)
            if times is not None:
                times.append(time.monotonic())

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread


def test_a_question_sent_while_an_answer_streams_stops_it_and_is_asked(tmp_path: Path) -> None:
    chat = SlowChat(LONG, delay_s=0.05)
    rig = _indexed(tmp_path, chat)
    s = rig.session
    first: list[chat_handlers.Drawn] = []
    conv_id = s.history.new().id
    reader = _drain(chat_handlers.submit(s, conv_id, "What is the launch code?", page="tab"), first)
    assert chat.started.wait(120)
    deadline = time.monotonic() + 600  # however busy the machine: some words are on screen
    while not s.history.get(conv_id).turns[-1].answer and time.monotonic() < deadline:
        time.sleep(0.01)
    second = list(
        chat_handlers.submit(s, conv_id, "Which launch code does Project Heliotrope use?", page="tab")
    )
    reader.join(120)
    assert not reader.is_alive()
    conv = s.history.get(conv_id)
    stopped, answered = conv.turns
    assert stopped.state == "stopped" and stopped.stopped_because == "you asked a new question"
    assert stopped.answer and len(stopped.answer) < len(LONG)  # it kept what it had written
    assert stopped.quotes  # and the sources found before the model wrote
    assert (
        answered.question == "Which launch code does Project Heliotrope use?"
        and answered.state == "done"
        and answered.answer == LONG
    )
    messages = second[-1][0]
    assert "_Stopped (you asked a new question)._" in messages[1]["content"]
    assert messages[1]["content"].startswith("<div class='kimas-quotes'")
    assert [m["content"] for m in messages if m["role"] == "user"] == [
        "What is the launch code?",
        "Which launch code does Project Heliotrope use?",
    ]
    # Both are stored as they ended.
    stored = ChatHistory(rig.data_dir).get(conv_id)
    assert [t.state for t in stored.turns] == ["stopped", "done"]


def test_a_stopped_answer_keeps_its_trace_and_lists_the_sources_found(tmp_path: Path) -> None:
    chat = SlowChat(LONG, delay_s=0.05)
    rig = _indexed(tmp_path, chat)
    s = rig.session
    out: list[chat_handlers.ChatUpdate] = []
    conv_id = s.history.new().id
    reader = _drain(chat_handlers.submit(s, conv_id, "What is the launch code?"), out)
    assert chat.started.wait(120)
    deadline = time.monotonic() + 600  # however busy the machine: some words are on screen
    while not s.history.get(conv_id).turns[-1].answer and time.monotonic() < deadline:
        time.sleep(0.01)
    chat_handlers.stop(s, conv_id)
    reader.join(120)
    turn = s.history.get(conv_id).turns[0]
    assert turn.state == "stopped" and turn.stopped_because == ""
    assert turn.trace is not None and turn.trace.evidence  # gathered before the model wrote
    content = out[-1][0][1]["content"]
    assert "_Stopped._" in content and "Sources found before it stopped" in content
    assert "<b>x.pdf</b>" in content.split("Sources found before it stopped")[1]


def test_a_chinese_answer_stopped_by_a_question_or_by_stop_says_so_in_chinese(tmp_path: Path) -> None:
    """The browser test no longer waits for the embedded model to be stopped (its length is the CPU's):
    the stopped wording a Chinese reader sees is held here, with a model that writes slowly."""
    chat = SlowChat("作者是张长旺 [1]。" + "".join(f" 第{i}句" for i in range(60)), delay_s=0.05)
    rig = make_rig(tmp_path, chat=chat)
    s = rig.session
    s.start()
    paper = tmp_path / "t" / "paper.zh.txt"
    paper.parent.mkdir(parents=True)
    paper.write_text("这篇 文章 的 作者 是 张长旺 , 他 在 旺知识 工作 。", "utf-8")  # words the fake hashes
    assert s.add_uploads("论文", [(paper, "paper.zh.txt")]).ok
    rig.wait_idle()
    conv_id = s.history.new().id

    def stop_midway(ask: str, then: Callable[[], list[chat_handlers.Drawn]]) -> str:
        """The last answer drawn after ``then`` stopped the one asking ``ask``."""
        out: list[chat_handlers.Drawn] = []
        chat.started.clear()
        reader = _drain(chat_handlers.submit(s, conv_id, ask, page="tab"), out)
        assert chat.started.wait(120)
        deadline = time.monotonic() + 600  # however busy the machine: some words are on screen
        while not s.history.get(conv_id).turns[-1].answer and time.monotonic() < deadline:
            time.sleep(0.01)
        after = then()
        reader.join(120)
        assert not reader.is_alive()
        drawn = [u for u in out + after if u is not None][-1]
        return [m["content"] for m in drawn[0] if "作者是张长旺" in m["content"]][-1]  # not its trace

    def ask_again() -> list[chat_handlers.Drawn]:
        return list(chat_handlers.submit(s, conv_id, "作者 在 哪里 工作 ?", page="tab"))

    def stop() -> list[chat_handlers.Drawn]:
        chat_handlers.stop(s, conv_id)
        return []

    by_question = stop_midway("这篇 文章 的 作者 是 谁 ?", ask_again)  # the answer to the new question
    by_stop = stop_midway("这篇 文章 是 谁 写 的 ?", stop)
    turns = s.history.get(conv_id).turns
    assert [t.state for t in turns] == ["stopped", "done", "stopped"]
    shown = render.answer_markdown(turns[0])
    assert "_已停止（你问了新的问题）。_" in shown and "**停止前找到的来源**" in shown, shown
    assert "_已停止。_" in by_stop and "**停止前找到的来源**" in by_stop, by_stop
    assert "张长旺" in by_question and "已停止" not in by_question
    for text in (shown, by_question, by_stop):
        assert not english_runs(text.replace("paper.zh.txt", "")), text


class WarmerChat(SlowChat):
    """Answers differently at each temperature (the real model samples; this makes it visible)."""

    def __init__(self) -> None:
        super().__init__(ANSWER, delay_s=0.0)
        self.temperatures: list[float] = []

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        cancel: CancelToken | None = None,
    ) -> Iterator[str]:
        self.temperatures.append(temperature)
        self._replies = scripted(f"{ANSWER} (sampled at {temperature})")  # type: ignore[assignment]
        yield from super().stream(messages, max_tokens=max_tokens, temperature=temperature, cancel=cancel)


def test_regenerate_answers_differently_and_keeps_the_earlier_answers(tmp_path: Path) -> None:
    chat = WarmerChat()
    rig = _indexed(tmp_path, chat)
    s = rig.session
    _, conv_id, _ = list(chat_handlers.submit(s, None, "What is the launch code?"))[-1]
    list(chat_handlers.regenerate(s, conv_id))
    messages, *_ = list(chat_handlers.regenerate(s, conv_id))[-1]
    conv = s.history.get(conv_id)
    [turn] = conv.turns
    assert chat.temperatures == [0.0, 0.5, 0.7]  # warmer each time: each answer differs
    assert turn.attempt == 2 and [t.answer for t in turn.earlier] == [
        f"{ANSWER} (sampled at 0.0)",
        f"{ANSWER} (sampled at 0.5)",
    ]
    assert turn.answer == f"{ANSWER} (sampled at 0.7)"
    said = [m.content for m in conv.history()]
    assert not any(e.answer in said for e in turn.earlier)  # replaced answers no longer feed the next turns
    content = messages[1]["content"]
    assert "2 earlier answers to this question" in content and "(sampled at 0.5)" in content
    # The versions survive a restart.
    stored = ChatHistory(rig.data_dir).get(conv_id).turns[0]
    assert [t.answer for t in stored.earlier] == [t.answer for t in turn.earlier]
    assert render.earlier_html(stored.earlier) == render.earlier_html(turn.earlier)


def test_opening_another_chat_mid_answer_stops_drawing_the_old_one(tmp_path: Path) -> None:
    chat = SlowChat(LONG, delay_s=0.05)
    rig = _indexed(tmp_path, chat)
    s = rig.session
    _, older, _ = list(chat_handlers.submit(s, None, "First chat?", page="tab"))[-1]
    chat.started.clear()
    _, current, _ = chat_handlers.new_chat(s, older, page="tab")
    out: list[chat_handlers.Drawn] = []
    times: list[float] = []
    reader = _drain(chat_handlers.submit(s, current, "What is the launch code?", page="tab"), out, times)
    assert chat.started.wait(120)
    time.sleep(0.3)  # words are streaming in
    _, shown, _ = chat_handlers.open_chat(s, current, older, page="tab")
    switched = time.monotonic()
    reader.join(120)
    assert not reader.is_alive() and shown == older
    # An update being sent when the tab switched went out before the switch; after it, the stream draws
    # nothing, and it ends on "no change" (Gradio sends a stream's last value again when it ends: that
    # drew the chat left over the one opened).
    # (The final "no change" may go out before open_chat returns: only its being last, and nothing drawn
    # after the switch, are the behaviour.)
    assert out and out[-1] is None
    assert all(u is None for t, u in zip(times, out, strict=True) if t > switched)
    assert all(u[1] == current for u in out if u is not None)
    turn = s.history.get(current).turns[0]
    assert turn.state == "stopped" and 0 < len(turn.answer) < len(LONG)


def test_regenerate_while_another_conversation_answers_both_complete(tmp_path: Path) -> None:
    """A Regenerate is an option of one answer, not another pipeline: the pipeline the other chat is
    answering with is neither rebuilt nor shut down under it."""
    chat = SlowChat(LONG, delay_s=0.02)
    rig = _indexed(tmp_path, chat)
    s = rig.session
    _, first, _ = list(chat_handlers.submit(s, None, "What is the launch code?", page="a"))[-1]
    pipeline = s.runtime.pipeline(s.config)
    chat.started.clear()
    _, second, _ = chat_handlers.new_chat(s, first, page="b")
    out: list[chat_handlers.Drawn] = []
    reader = _drain(
        chat_handlers.submit(s, second, "Which launch code does Project Heliotrope use?", page="b"), out
    )
    assert chat.started.wait(120)
    regenerated = list(chat_handlers.regenerate(s, first, page="a"))
    reader.join(120)
    assert not reader.is_alive() and regenerated
    a, b = s.history.get(first).turns[-1], s.history.get(second).turns[-1]
    assert (a.state, b.state) == ("done", "done"), (a.error, b.error)
    assert a.attempt == 1 and a.answer == LONG and b.answer == LONG
    assert s.runtime.pipeline(s.config) is pipeline  # the same pipeline served both
