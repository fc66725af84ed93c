"""``SourceRegistry``: the files the app may serve, i.e. those shown in this run's answers or file lists.

A link that opens a file carries a token, ``HMAC(key, path)`` with a key drawn at random when the process
starts: nobody can compute the token of a path they guess, and a token stops working when the app
restarts. A token opens a file only once the app has shown that file (a passage of an answer, an open
chat's citations, the document list: ``remember``), and only while the file is still inside one of the
collections' folders.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from app.chat.conversation import Conversation

__all__ = ["SourceRegistry", "shown_sources", "source_token"]

# Drawn once per process: the tokens of one run mean nothing to anyone else, or to the next run.
_PROCESS_KEY = secrets.token_bytes(32)


def source_token(path: str) -> str:
    """An opaque handle for a source file (used in links that open it); unguessable without the key."""
    return hmac.new(_PROCESS_KEY, path.encode("utf-8", "surrogateescape"), hashlib.sha256).hexdigest()[:32]


def shown_sources(conv: Conversation) -> Iterator[str]:
    """The files a conversation shows: its quotes, citations and the evidence of its traces."""
    for turn in conv.turns:
        yield from (q.chunk.source for q in turn.quotes)
        yield from (c.chunk.source for c in turn.citations)
        if turn.trace is not None:
            yield from (h.chunk.source for h in turn.trace.evidence)


class SourceRegistry:
    """``folders()`` gives the collections' folders now: a file is served only while inside one."""

    def __init__(self, folders: Callable[[], Iterable[Path]]) -> None:
        self._folders = folders
        self._by_token: dict[str, str] = {}
        self._lock = threading.Lock()

    def remember(self, paths: Iterable[str]) -> None:
        with self._lock:
            for p in paths:
                self._by_token[source_token(p)] = p

    def file(self, token: str) -> Path | None:
        """The shown file behind ``token``, if it still exists inside a collection's folder."""
        with self._lock:
            path = self._by_token.get(token)
        if path is None:
            return None
        file = Path(path).resolve()
        if not file.is_file():
            return None
        if any(file.is_relative_to(folder.resolve()) for folder in self._folders()):
            return file
        return None
