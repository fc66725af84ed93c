"""``ClientChats``: each question another program asks (the OpenAI-compatible API, MCP) kept as a chat of
the app, so the Chat tab lists it and shows its answer, citations and trace ("How this answer was made")
like any question asked there. Its title says where it came from (``API · …``, ``MCP · …``).

The events pass through unchanged, as they come; the chat is saved once the answer ends (done, stopped
or failed), by the app's own ``persist`` (its ``ChatHistory.save``, which logs a failure and never raises)."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator

from app.chat.conversation import Conversation, Turn
from kimas_desktop.errors import KimasError
from kimas_desktop.events import Event
from kimas_desktop.text.words import truncate

__all__ = ["ClientChats"]


class ClientChats:
    """``persist`` keeps a chat (None: nothing is kept, as outside the app)."""

    def __init__(self, persist: Callable[[Conversation], None] | None = None) -> None:
        self._persist = persist

    def follow(self, events: Iterator[Event], question: str, via: str) -> Iterator[Event]:
        """``events`` as they come; the answer they make is kept as a chat titled ``via · question``."""
        if self._persist is None:
            return events
        return self._kept(events, question, via, self._persist)

    @staticmethod
    def _kept(
        events: Iterator[Event], question: str, via: str, persist: Callable[[Conversation], None]
    ) -> Iterator[Event]:
        turn = Turn(question)
        chat = Conversation(turns=[turn], title=f"{via} · {truncate(question, 80)}")
        try:
            for event in events:
                turn.apply(event)
                yield event
        except KimasError as err:
            turn.state, turn.error = "failed", str(err)
            raise
        finally:
            if isinstance(events, Generator):
                events.close()
            if turn.state == "running":
                turn.state = "stopped"
            persist(chat)
