"""``ModelAlone``: the chat's "answer from the model alone" mode (issue 45): no retrieval, no quote, no
citations; the chat model answers from its own knowledge, with the conversation's history.

The question goes straight to the chat model the answer writer uses, streamed through the same guard
against loops and transcripts, with the same time budget (the history the model reads is cut to what it
reads before the first word is due, ``writing.budget``) and the same cancel token (Stop). Its outcome is
``answer.outcome.ModelAlone``: never ``Answered``, so nothing downstream takes it for a grounded answer.
Its trace says which model wrote it and that no retrieval ran (``RULE``).

The KIMAs paper has no such mode: it is what every peer app offers when there are no documents yet.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Literal

from kimas_desktop.answer.outcome import ModelAlone as ModelAloneOutcome
from kimas_desktop.answer.outcome import Stopped
from kimas_desktop.answer.writing.budget import PaceMeter, PromptSpeed, plan
from kimas_desktop.answer.writing.guard import StreamGuard, guard_stream
from kimas_desktop.clock import Clock
from kimas_desktop.config import SummarizerConfig
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import Cancelled
from kimas_desktop.events import AnswerDelta, Done, Event, Status, TraceReady
from kimas_desktop.protocols import ChatModel
from kimas_desktop.trace import (
    AnswerStage,
    BudgetStage,
    DecisionStage,
    FirstTokenStage,
    TotalStage,
    TraceBuilder,
)
from kimas_desktop.types import Message

__all__ = ["LABEL", "MODES", "RULE", "SYSTEM", "AnswerMode", "ModelAlone"]

AnswerMode = Literal["documents", "model"]
MODES: tuple[AnswerMode, ...] = ("documents", "model")

LABEL = "Not from your documents: the model answered from its own knowledge, which may be wrong."
RULE = "model alone: no retrieval ran, your documents were not read"
SYSTEM = (
    "You are a helpful assistant. Answer the user's question briefly and directly from your own general "
    "knowledge, in the language of the question. You have no documents and no sources: never cite any. "
    "If you do not know, say so."
)
WRITING = "The model answers alone (not from your documents)…"

Steps = Generator[Event, None, None]


class ModelAlone:
    """Answers a question with the chat model alone. Cheap to build; the model loads on first use."""

    def __init__(self, chat: ChatModel, config: SummarizerConfig) -> None:
        self._chat = chat
        self._config = config
        self._speed = PromptSpeed()

    def ask(
        self,
        question: str,
        history: Sequence[Message] = (),
        *,
        cancel: CancelToken | None = None,
        temperature: float | None = None,
    ) -> Steps:
        """Status, the answer's deltas, the trace, then ``Done(ModelAlone)``; a cancelled ``cancel`` ends
        it with ``Done(Stopped)`` and raises ``Cancelled``, as the pipeline's answers do."""
        chat = self._chat
        clock, trace = Clock(), TraceBuilder(question=question, query="")
        trace.add(DecisionStage(0.0, True, RULE, 0.0))
        self._speed.loaded(chat.describe().prompt_tokens_per_s)
        messages = self._messages(chat, question, history, clock, trace)
        prompt = sum(chat.count_tokens(m.content) for m in messages)
        yield TraceReady(trace.snapshot())  # so far: a stopped answer keeps it
        meter = PaceMeter(self._speed)
        yield Status("answer", WRITING, meter.reading(prompt))
        parts: list[str] = []
        guard, t = StreamGuard(), Clock()
        warm = self._config.temperature if temperature is None else temperature
        tokens = self._config.max_answer_tokens
        deltas = chat.stream(messages, max_tokens=tokens, temperature=warm, cancel=cancel)
        try:
            for delta in guard_stream(deltas, guard):
                if not parts:
                    trace.add(FirstTokenStage(clock.ms()))
                    if temperature is None:
                        self._speed.observe(prompt, t.ms() / 1000)
                parts.append(delta)
                yield AnswerDelta(delta)
                pace = meter.wrote(delta)
                if pace is not None:
                    yield Status("answer", WRITING, pace)
        except Cancelled:
            yield from _end(trace, clock, t, parts, guard, chat.model_id, Stopped("".join(parts)))
            raise
        text = guard.text.strip()
        yield from _end(trace, clock, t, parts, guard, chat.model_id, ModelAloneOutcome(text, chat.model_id))

    def _messages(
        self, chat: ChatModel, question: str, history: Sequence[Message], clock: Clock, trace: TraceBuilder
    ) -> list[Message]:
        """System, as much of the history as the time budget and the context allow (the latest kept),
        then the question; the budget goes into the trace."""
        budget = plan(self._config.first_token_s, clock.ms() / 1000, self._speed)
        system, asked = Message("system", SYSTEM), Message("user", question)
        room = self._config.context_tokens if budget.tokens is None else budget.tokens
        room = min(room, self._config.context_tokens) - chat.count_tokens(SYSTEM + question)
        kept: list[Message] = []
        for m in reversed([m for m in history if m.role in ("user", "assistant") and m.content.strip()]):
            cost = chat.count_tokens(m.content)
            if cost > room:
                break
            kept.insert(0, Message(m.role, m.content))
            room -= cost
        while kept and kept[0].role != "user":  # a history starts with a question
            kept.pop(0)
        cut = len([m for m in history if m.content.strip()]) - len(kept)
        prompt = sum(chat.count_tokens(m.content) for m in (system, *kept, asked))
        trace.add(
            BudgetStage(
                0.0,
                budget.target_s,
                budget.elapsed_s,
                budget.tokens_per_s,
                budget.speed_from,
                budget.tokens,
                prompt,
                0,
                cut,
                budget.tokens is not None and prompt > budget.tokens,
            )
        )
        return [system, *kept, asked]


def _end(
    trace: TraceBuilder,
    clock: Clock,
    t: Clock,
    parts: list[str],
    guard: StreamGuard,
    model: str,
    outcome: ModelAloneOutcome | Stopped,
) -> Steps:
    trace.add(AnswerStage(t.ms(), len(parts), guard.reason or "", model))
    trace.add(TotalStage(clock.ms()))
    yield TraceReady(trace.snapshot())
    yield Done(outcome)
