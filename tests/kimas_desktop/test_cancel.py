from __future__ import annotations

import threading

import pytest

from kimas_desktop.cancel import CancellableChat
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import Cancelled, KimasError
from kimas_desktop.types import Message
from local_models.fake import ScriptedChatModel

HELLO = [Message("user", "hi")]


def test_callbacks_run_once_when_cancelled_and_not_after_they_are_forgotten() -> None:
    token = CancelToken()
    calls: list[str] = []
    token.on_cancel(lambda: calls.append("a"))
    forget = token.on_cancel(lambda: calls.append("b"))
    forget()
    token.cancel()
    token.cancel()
    assert calls == ["a"]
    assert token.cancelled


def test_a_callback_registered_after_cancel_runs_at_once() -> None:
    token = CancelToken()
    token.cancel()
    ran = threading.Event()
    token.on_cancel(ran.set)
    assert ran.is_set()
    with pytest.raises(Cancelled):
        token.raise_if_cancelled()


def test_cancelled_is_a_kimas_error() -> None:
    assert issubclass(Cancelled, KimasError)


def test_a_bound_chat_stops_a_stream_between_words_and_refuses_new_calls() -> None:
    token = CancelToken()
    chat = CancellableChat(ScriptedChatModel(["one two three four"]), token)
    stream = chat.stream(HELLO)
    assert next(stream) == "one "
    token.cancel()
    with pytest.raises(Cancelled):
        next(stream)
    with pytest.raises(Cancelled):
        chat.complete(HELLO)
