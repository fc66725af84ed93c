"""Cancellation as a token the work checks, not a thread abandoned by a timeout.

The reader of an answer (the UI's Stop button, Ctrl-C in the CLI) calls ``CancelToken.cancel()``. Work that
can end early checks ``cancelled`` between steps, and a backend that runs something long outside Python
(a llama.cpp decode in its worker process) registers a callback that interrupts it at once. Cancelled work
raises ``Cancelled``.

``CancellableChat`` binds one token to a chat model, so the pipeline's stages keep their plain
``ChatModel`` and every model call of one answer ends when that answer is stopped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kimas_desktop.errors import Cancelled
from kimas_desktop.types import Message

if TYPE_CHECKING:
    from kimas_desktop.protocols import ChatModel

__all__ = ["CancelToken", "CancellableChat", "Cancelled"]


class CancelToken:
    """Set once by whoever stops the work; thread-safe. Callbacks run once, in the cancelling thread."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self) -> None:
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise Cancelled("stopped")

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run ``callback`` when the token is cancelled (at once if it already is). Returns a function
        that unregisters it; call that when the work it would interrupt is over."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return lambda: self._forget(callback)
        callback()
        return lambda: None

    def _forget(self, callback: Callable[[], None]) -> None:
        with self._lock:
            if callback in self._callbacks:
                self._callbacks.remove(callback)


class CancellableChat:
    """A ``ChatModel`` whose every call carries ``token``; a cancelled token refuses new calls."""

    def __init__(self, chat: ChatModel, token: CancelToken) -> None:
        self._chat = chat
        self._token = token

    @property
    def model_id(self) -> str:
        return self._chat.model_id

    @property
    def context_size(self) -> int:
        return self._chat.context_size

    def warm_up(self) -> None:
        self._chat.warm_up()

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        json_schema: Mapping[str, Any] | None = None,
        cancel: CancelToken | None = None,
    ) -> str:
        self._token.raise_if_cancelled()
        return self._chat.complete(
            messages,
            max_tokens=max_tokens,
            temperature=temperature,
            json_schema=json_schema,
            cancel=self._token,
        )

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        cancel: CancelToken | None = None,
    ) -> Iterator[str]:
        self._token.raise_if_cancelled()
        return self._chat.stream(messages, max_tokens=max_tokens, temperature=temperature, cancel=self._token)

    def count_tokens(self, text: str) -> int:
        return self._chat.count_tokens(text)
