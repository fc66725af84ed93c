"""A chat as the desktop app keeps it: turns with their answers, citations and traces.

``AnswerRun`` runs one ``Pipeline.ask`` in its own thread and hands its events over a queue. ``stop()``
cancels the run's ``CancelToken``: the reader (the UI) returns at once, and the model call in progress
ends within a token or a compute step, which frees the model for the next question. The pipeline's
generator is always closed in the thread that runs it.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Literal

from kimas_desktop.answer.model_alone import AnswerMode
from kimas_desktop.answer.outcome import Answered, NothingFound
from kimas_desktop.answer.tables.answer import TableAnswer
from kimas_desktop.answer.writing.budget import Pace
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import Cancelled
from kimas_desktop.events import (
    AnswerDelta,
    CitationsReady,
    Done,
    Event,
    QuoteReady,
    Status,
    SupportReady,
    TableReady,
    TraceReady,
)
from kimas_desktop.trace import Trace
from kimas_desktop.types import Answerability, Citation, Message, Quote, SentenceSupport

__all__ = ["AnswerRun", "Conversation", "Turn"]

log = logging.getLogger(__name__)

TurnState = Literal["running", "done", "stopped", "failed"]


@dataclass
class Turn:
    """One question and what became of it. Mutated only by the reader of its ``AnswerRun``."""

    question: str
    answer: str = ""
    status: str = ""  # what the pipeline is doing now, while running
    status_code: str = ""  # that step's code ("" none: ``status`` is said as it is) and its plain values,
    status_values: dict[str, tuple[str, ...]] = field(default_factory=dict)  # said by the UI (``Status``)
    pace: Pace | None = None  # how fast the model reads or writes now, while running (issue 46)
    state: TurnState = "running"
    error: str = ""  # a plain sentence for the user when state == "failed"
    error_code: str = ""  # that sentence's code ("" none) and values: the UI says it in the page's language
    error_values: dict[str, str | int | float] = field(default_factory=dict)
    citations: tuple[Citation, ...] = ()
    citations_available: bool = True
    citations_note: str = ""
    trace: Trace | None = None
    answered_from_sources: bool = True
    quotes: tuple[Quote, ...] = ()  # the grounded quote, shown above the answer
    answerability: Answerability | None = None
    support: tuple[SentenceSupport, ...] = ()  # per answer sentence, once the answer is checked
    uses_quote: bool | None = None  # False: the answer ignores or contradicts the quote
    table: TableAnswer | None = None  # the answer was computed over a table's rows (kept on save)
    started_at: float = field(default_factory=time.time)
    stopped_because: str = ""  # why it stopped, when not by the Stop button ("you asked a new question")
    attempt: int = 0  # 0: first answer; n: the n-th Regenerate (sampled warmer each time)
    earlier: list[Turn] = field(default_factory=list)  # the answers Regenerate replaced, oldest first
    mode: AnswerMode = "documents"  # "model": the model answered alone, not from the documents (issue 45)
    no_knowledge: bool = False  # asked from the documents while there were none (the model alone is offered)
    quote_only: bool = False  # the answer is the quote: the chat model writes none of its own (issue 69)

    @property
    def sources(self) -> tuple[str, ...]:
        """The files the answer was drawn from: its quote's, then its citations', each once."""
        chunks = [q.chunk for q in self.quotes] + [c.chunk for c in self.citations]
        return tuple(dict.fromkeys(c.source for c in chunks))

    @property
    def finished(self) -> bool:
        return self.state != "running"

    @property
    def trusted(self) -> bool:
        """Whether the answer may feed later turns: not declined, and no sentence flagged unsupported."""
        return self.answered_from_sources and all(s.supported for s in self.support)

    def apply(self, event: Event) -> None:
        if isinstance(event, Status):
            self.status, self.pace = event.message, event.pace
            self.status_code, self.status_values = event.code, dict(event.values)
        elif isinstance(event, QuoteReady):
            self.quotes = event.quotes
            self.answerability = event.answerability
        elif isinstance(event, AnswerDelta):
            self.answer += event.text
            self.status = ""
        elif isinstance(event, SupportReady):
            self.support = event.sentences
            self.uses_quote = event.uses_quote
        elif isinstance(event, CitationsReady):
            self.citations = event.citations
            self.citations_available = event.available
            self.citations_note = event.note
        elif isinstance(event, TableReady):
            self.table = event.answer
        elif isinstance(event, TraceReady):
            self.trace = event.trace
        elif isinstance(event, Done):
            self.answer = event.answer or self.answer
            self.answered_from_sources = event.answered_from_sources
            outcome = event.outcome
            self.no_knowledge = isinstance(outcome, NothingFound) and outcome.reason == "no knowledge"
            self.quote_only = isinstance(outcome, Answered) and outcome.quote_only
            self.state = "done"
            self.status = ""


def new_id() -> str:
    return uuid.uuid4().hex[:12]


@dataclass
class Conversation:
    """A chat: its turns in order. ``history`` is what the context manager sees. ``title`` is the first
    question until the user renames it. ``mode``: where its next answer comes from, the documents or the
    model alone (the user's choice, kept with the chat)."""

    id: str = field(default_factory=new_id)
    turns: list[Turn] = field(default_factory=list)
    title: str = ""
    created_at: float = field(default_factory=time.time)
    mode: AnswerMode = "documents"

    @property
    def display_title(self) -> str:
        if self.title:
            return self.title
        first = " ".join(self.turns[0].question.split()) if self.turns else ""
        return (first[:77] + "…" if len(first) > 80 else first) or "New chat"

    def history(self, mode: AnswerMode = "documents") -> list[Message]:
        """Finished turns with an answer, as user/assistant messages (failed turns are left out). A
        declined answer, or one with a sentence the sources do not back, is left out too (its question
        stays): its words would otherwise pad the next turns' query rewrites (issue 12). A model-alone
        answer is such an answer for the documents; for the model alone (``mode`` "model") its own
        answers stay too: it is a conversation with the model."""
        out: list[Message] = []
        for t in self.turns:
            if t.state in ("done", "stopped") and t.answer.strip():
                out.append(Message("user", t.question))
                if (t.trusted and t.mode == "documents") or mode == t.mode == "model":
                    out.append(Message("assistant", t.answer.strip(), t.sources))
        return out


class _End:
    pass


@dataclass(frozen=True)
class _Failed:
    error: BaseException


class AnswerRun:
    """One ``ask`` running in a worker thread; ``events()`` reads it, ``stop()`` ends it early."""

    def __init__(
        self,
        start: Callable[[CancelToken], Iterator[Event]],
        hold: Callable[[], AbstractContextManager[None]] = nullcontext,
    ) -> None:
        """``hold``: held while the answer runs (the app's background indexing waits meanwhile)."""
        self._start = start
        self._hold = hold
        self._queue: queue.Queue[Event | _End | _Failed] = queue.Queue()
        self._stop = CancelToken()
        self._thread = threading.Thread(target=self._work, name="kimas-answer", daemon=True)

    def start(self) -> AnswerRun:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.cancel()

    @property
    def stopped(self) -> bool:
        return self._stop.cancelled

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def _work(self) -> None:
        with self._hold():
            self._answer()

    def _answer(self) -> None:
        events: Iterator[Event] | None = None
        try:
            events = self._start(self._stop)
            for event in events:
                if self._stop.cancelled:
                    break
                self._queue.put(event)
        except Cancelled:
            pass  # stopped on purpose; the reader has gone
        except BaseException as err:  # handed to the reader, who turns it into a sentence
            self._queue.put(_Failed(err))
        finally:
            close = getattr(events, "close", None)
            if close is not None:
                close()  # runs the pipeline's cleanup here, in the thread that ran it
            self._queue.put(_End())

    def events(self, poll_s: float = 0.1) -> Iterator[Event | BaseException]:
        """The pipeline's events as they come; an exception it raised is yielded as a value, last.

        Returns as soon as ``stop()`` is called, even while the pipeline is busy.
        """
        while not self._stop.cancelled:
            try:
                item = self._queue.get(timeout=poll_s)
            except queue.Empty:
                continue
            if isinstance(item, _End):
                return
            if isinstance(item, _Failed):
                yield item.error
                return
            yield item
