"""``ChatSession``: the chat of the desktop app, as plain methods the UI calls.

Chat turns and their history (which feeds the context manager), stopping and regenerating answers. The
answer pipeline comes from outside (the runtime builds it for the current settings); the sources an
answer quotes or cites are handed to ``on_sources`` as they arrive (the app serves those files). ``persist``
keeps a conversation (the app stores it): called when a question is asked, every ``persist_every_s`` while
its answer streams, and when the answer ends however it ends.
Errors reach people through ``explain``: a sentence and its code (the UI says it in the page's language),
with the details in the log.

A conversation in the model-alone mode (``Conversation.mode`` "model", issue 45) is answered by
``model_alone`` (``answer.model_alone.ModelAlone``) instead of the pipeline: same run, stop and saving.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace

from app.chat.conversation import AnswerRun, Conversation, Turn
from app.outcomes import Said
from kimas_desktop.answer.model_alone import AnswerMode, ModelAlone
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import OverLimitError
from kimas_desktop.events import CitationsReady, Event, QuoteReady, TraceReady
from kimas_desktop.pipeline import AskOptions, Pipeline
from kimas_desktop.text.words import truncate
from kimas_desktop.types import Message

__all__ = ["ChatSession", "attempt_options"]

REGENERATE_TEMPERATURES = (0.5, 0.7, 0.9, 1.1)
REFUSED_CHARS = 200  # what a turn keeps of a question over the limits


def attempt_options(attempt: int, *, try_anyway: bool = False, sources: Sequence[str] = ()) -> AskOptions:
    """How a Regenerate answers: sampled warmer each time (so it differs); a first answer as configured.
    The pipeline stays the same one (a Regenerate never rebuilds it). ``sources``: online sources the user
    asked for with this question."""
    if attempt <= 0:
        return AskOptions(try_anyway=try_anyway, sources=tuple(sources))
    step = REGENERATE_TEMPERATURES[min(attempt, len(REGENERATE_TEMPERATURES)) - 1]
    return AskOptions(temperature=step, try_anyway=try_anyway, sources=tuple(sources))


class ChatSession:
    """Answers questions in conversations; one answer runs per conversation at a time."""

    def __init__(
        self,
        *,
        pipeline: Callable[[], Pipeline],
        loading: Callable[[], bool],
        explain: Callable[[BaseException, str], Said],
        on_sources: Callable[[Iterable[str]], None],
        persist: Callable[[Conversation], None] = lambda conv: None,
        persist_every_s: float = 2.0,
        answering: Callable[[], AbstractContextManager[None]] = nullcontext,
        model_alone: Callable[[], ModelAlone] | None = None,
    ) -> None:
        self._pipeline = pipeline
        self._model_alone = model_alone
        self._loading = loading
        self._explain = explain
        self._on_sources = on_sources
        self._persist = persist
        self._persist_every_s = persist_every_s
        self._answering = answering  # held while an answer runs (background indexing waits)
        self._runs: dict[str, AnswerRun] = {}

    def new_conversation(self) -> Conversation:
        return Conversation()

    def ask(
        self,
        conv: Conversation,
        question: str,
        *,
        try_anyway: bool = False,
        replacing: Turn | None = None,
        sources: Sequence[str] = (),
    ) -> Iterator[Turn]:
        """Answer ``question`` in ``conv``: yields the (same, updated) turn after every change. An answer
        still being written in ``conv`` is stopped first (it keeps what it had).
        ``try_anyway``: the model answers even when the documents were judged not to.
        ``replacing``: the turn a Regenerate answers again (kept in the new turn's ``earlier``).
        A question over the ``[limits]`` fails at once with the reason; its turn keeps only its first
        ``REFUSED_CHARS`` characters (the whole question is never stored)."""
        question = question.strip()
        if not question:
            return
        if conv.turns and not conv.turns[-1].finished and conv.id in self._runs:
            conv.turns[-1].stopped_because = "you asked a new question"
        self.stop(conv)
        mode = conv.mode if self._model_alone is not None else "documents"
        history = conv.history(mode)
        refused = self._refusal(question)
        turn = self._new_turn(truncate(question, REFUSED_CHARS) if refused else question, replacing)
        turn.mode = mode
        conv.turns.append(turn)
        if refused is not None:
            self._fail(turn, refused)
        self._persist(conv)
        if refused is not None:
            yield turn
            return
        saved_at = time.monotonic()
        yield turn
        options = attempt_options(turn.attempt, try_anyway=try_anyway, sources=sources)
        run = AnswerRun(
            lambda cancel: self._answer(mode, question, history, cancel, options), self._answering
        )
        run.start()
        self._runs[conv.id] = run
        try:
            yield from self._follow(conv, turn, run, saved_at)
        finally:
            run.stop()
            if self._runs.get(conv.id) is run:
                del self._runs[conv.id]
            if turn.state == "running":  # the reader went away (a new question, or the page closed)
                turn.state, turn.status = "stopped", ""
            self._persist(conv)

    def _fail(self, turn: Turn, err: BaseException) -> None:
        """End ``turn`` as failed with the sentence for ``err``, and its code when its values are plain (a
        turn is stored), so the UI says it in the page's language (``ui.i18n.told``)."""
        said = self._explain(err, "answering")
        turn.state, turn.status, turn.error = "failed", "", said.english
        plain = {k: v for k, v in said.values.items() if isinstance(v, str | int | float)}
        if len(plain) == len(said.values):
            turn.error_code, turn.error_values = said.code, plain

    def _refusal(self, question: str) -> OverLimitError | None:
        """Why ``question`` is over the ``[limits]`` (None: it is not)."""
        try:
            self._pipeline().admit(question)
        except OverLimitError as err:
            return err
        except Exception:  # a pipeline that cannot be built: the answer's run meets it and says so
            return None
        return None

    def _answer(
        self,
        mode: AnswerMode,
        question: str,
        history: list[Message],
        cancel: CancelToken,
        options: AskOptions,
    ) -> Iterator[Event]:
        """The pipeline's answer, or the model alone's in that mode."""
        if mode == "model" and self._model_alone is not None:
            return self._model_alone().ask(question, history, cancel=cancel, temperature=options.temperature)
        return self._pipeline().ask(question, history, cancel=cancel, options=options)

    def set_mode(self, conv: Conversation, mode: AnswerMode) -> None:
        """Where ``conv``'s next answers come from; kept with it (an answer being written goes on)."""
        if conv.mode != mode:
            conv.mode = mode
            self._persist(conv)

    def _new_turn(self, question: str, replacing: Turn | None) -> Turn:
        loading = self._loading()
        turn = Turn(
            question,
            status="Loading the model…" if loading else "Thinking…",
            status_code="loading" if loading else "thinking",
        )
        if replacing is not None:
            turn.attempt = replacing.attempt + 1
            turn.earlier = [*replacing.earlier, replace(replacing, earlier=[])]
        return turn

    def _follow(self, conv: Conversation, turn: Turn, run: AnswerRun, saved_at: float) -> Iterator[Turn]:
        """Apply ``run``'s events to ``turn`` as they come (yielding it after each), saving ``conv`` every
        ``persist_every_s``; end it as failed, stopped or done."""
        for item in run.events():
            if isinstance(item, BaseException):
                self._fail(turn, item)
                yield turn
                return
            turn.apply(item)
            if isinstance(item, QuoteReady):  # its source can be opened while the answer streams
                self._on_sources(q.chunk.source for q in item.quotes)
            elif isinstance(item, CitationsReady):
                self._on_sources(c.chunk.source for c in item.citations)
            elif isinstance(item, TraceReady):
                self._on_sources(h.chunk.source for h in item.trace.evidence)
            if time.monotonic() - saved_at > self._persist_every_s:
                self._persist(conv)
                saved_at = time.monotonic()
            yield turn
        if turn.state == "running":  # ended without Done: stopped, or the pipeline just returned
            turn.state = "stopped" if run.stopped else "done"
            turn.status = ""
            yield turn

    def regenerate(self, conv: Conversation, sources: Sequence[str] = ()) -> Iterator[Turn]:
        """Ask the last question again, sampled warmer than the last try so the answer differs; the old
        answer stays in the new turn's ``earlier`` (and leaves the history). When that answer was a
        decline (the documents do not say), or the quote because the model writes none of its own (the
        embedded model, issue 69), the model is let to try this time."""
        self.stop(conv)
        if not conv.turns:
            return
        last = conv.turns.pop()
        declined = last.answerability is not None and not last.answerability.answerable
        try_anyway = declined or last.quote_only  # the quote was the answer: the model may write this time
        yield from self.ask(conv, last.question, try_anyway=try_anyway, replacing=last, sources=sources)

    def ask_model_alone(self, conv: Conversation) -> Iterator[Turn]:
        """The one click offered under a "no knowledge yet" reply: the chat switches to the model alone
        and its last question is asked again that way (the reply that offered it makes way)."""
        self.stop(conv)
        self.set_mode(conv, "model")
        if conv.turns and conv.turns[-1].no_knowledge:
            yield from self.ask(conv, conv.turns.pop().question)

    def stop(self, conv: Conversation) -> None:
        run = self._runs.get(conv.id)
        if run is not None:
            run.stop()

    def close(self) -> None:
        for run in list(self._runs.values()):
            run.stop()
