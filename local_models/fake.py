"""Deterministic stand-ins for unit tests of our own logic (not of a model's behaviour).

``HashEmbedder`` maps each word to a SHA-256-seeded random vector and averages them, so texts that share
words are similar and the result never depends on Python's salted ``hash()``. ``ScriptedChatModel``
answers from a script and records every prompt it was given.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from kimas_desktop.control import CancelToken
from kimas_desktop.protocols import Vector
from kimas_desktop.types import ChatModelDescription, Message

__all__ = ["HashEmbedder", "ScriptedChatModel", "WordOverlapReranker"]

_WORD = re.compile(r"\w+", re.UNICODE)


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


class HashEmbedder:
    """Bag-of-words embedding from SHA-256-seeded word vectors. Same text → same vector, everywhere."""

    def __init__(self, dim: int = 64, model_id: str = "fake/hash-embedder") -> None:
        self._dim = dim
        self._model_id = model_id
        self._cache: dict[str, np.ndarray] = {}
        self.calls = 0

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def max_tokens(self) -> int:
        return 128

    def warm_up(self) -> None:
        return None

    def _word_vector(self, word: str) -> np.ndarray:
        vec = self._cache.get(word)
        if vec is None:
            seed = int.from_bytes(hashlib.sha256(word.encode("utf-8")).digest()[:8], "little")
            vec = np.random.default_rng(seed).standard_normal(self._dim).astype(np.float32)
            self._cache[word] = vec
        return vec

    def _embed(self, texts: Sequence[str]) -> Vector:
        self.calls += 1
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for i, text in enumerate(texts):
            words = _words(text) or ["<empty>"]
            row = np.sum([self._word_vector(w) for w in words], axis=0)
            out[i] = row / (np.linalg.norm(row) or 1.0)
        return out

    def embed_query(self, texts: Sequence[str]) -> Vector:
        return self._embed(texts)

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        return self._embed(texts)

    def count_tokens(self, text: str) -> int:
        return len(_words(text))


Script = Callable[[Sequence[Message], Mapping[str, Any] | None], str]


class ScriptedChatModel:
    """Replies from a list (in order, the last one repeating) or a function of (messages, schema).

    Every call is recorded in ``calls`` as (messages, json_schema); a reply that is an Exception
    instance is raised instead, to exercise fallbacks.
    """

    def __init__(
        self,
        replies: Sequence[str | BaseException] | Script = ("OK",),
        *,
        model_id: str = "fake/scripted-chat",
        context_size: int = 4096,
        judges: bool = False,
    ) -> None:
        self._replies = replies
        self._model_id = model_id
        self._context_size = context_size
        self._judges = judges
        self._lock = threading.Lock()
        self.calls: list[tuple[list[Message], Mapping[str, Any] | None]] = []

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def context_size(self) -> int:
        return self._context_size

    def warm_up(self) -> None:
        return None

    def describe(self) -> ChatModelDescription:
        """``judges`` as the test sets it: a fake stands for the embedded model unless told otherwise."""
        return ChatModelDescription(self._model_id, self._context_size, self._judges, chat_template="fake")

    def _reply(self, messages: Sequence[Message], schema: Mapping[str, Any] | None) -> str:
        with self._lock:
            self.calls.append((list(messages), schema))
            if callable(self._replies):
                reply: str | BaseException = self._replies(messages, schema)
            else:
                index = min(len(self.calls) - 1, len(self._replies) - 1)
                reply = self._replies[index]
        if isinstance(reply, BaseException):
            raise reply
        return reply

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        json_schema: Mapping[str, Any] | None = None,
        cancel: CancelToken | None = None,
    ) -> str:
        if cancel is not None:
            cancel.raise_if_cancelled()
        return self._reply(messages, json_schema)

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        cancel: CancelToken | None = None,
    ) -> Iterator[str]:
        text = self._reply(messages, None)
        for word in re.findall(r"\S+\s*|\s+", text):
            if cancel is not None:
                cancel.raise_if_cancelled()
            yield word

    def count_tokens(self, text: str) -> int:
        return len(_words(text)) + text.count(".")


class WordOverlapReranker:
    """Scores texts by the share of the query's words they contain."""

    model_id = "fake/word-overlap"

    def score(
        self, query: str, texts: Sequence[str], vectors: Sequence[Sequence[float] | None] = ()
    ) -> list[float]:
        q = set(_words(query))
        return [len(q & set(_words(t))) / (len(q) or 1) for t in texts]
