"""``CancellableChat`` binds one token to a chat model, so the pipeline's stages keep their plain
``ChatModel`` and every model call of one answer ends when that answer is stopped.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from kimas_desktop.control import CancelToken
from kimas_desktop.protocols import ChatModel
from kimas_desktop.types import ChatModelDescription, Message

__all__ = ["CancellableChat"]


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

    def describe(self) -> ChatModelDescription:
        return self._chat.describe()

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

    def close(self) -> None:
        """Nothing to release: the model it binds a token to belongs to its owner (the runtime), and
        outlives this one answer."""
