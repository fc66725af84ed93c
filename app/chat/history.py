"""``ChatHistory``: the conversations the UI shows, live and stored.

A conversation being answered is one object shared by every page that shows it; the store
(``ConversationStore``) keeps each one from its first question on, and remembers which one was open so a
reload or a restart shows it again. Saving never stops an answer: a store that fails is logged and
``problem`` says so; a store that cannot be opened at all (a file from a newer KIMAs) leaves the chats
unsaved for this session, with the reason in ``problem``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from app.chat.conversation import Conversation
from app.chat.store import FILE_NAME, ConversationStore, ConversationSummary

__all__ = ["ChatHistory"]

log = logging.getLogger(__name__)
T = TypeVar("T")


class ChatHistory:
    def __init__(self, data_dir: Path) -> None:
        self._lock = threading.Lock()
        self._live: dict[str, Conversation] = {}
        self._deleted: set[str] = set()  # an answer stopping after its chat was deleted must not revive it
        self._pages: dict[str, str] = {}  # which conversation each open page shows
        self._drawing: dict[str, threading.Lock] = {}  # held while a stream hands a page its chat
        self._store: ConversationStore | None = None
        self.problem = ""
        try:
            self._store = ConversationStore(data_dir / FILE_NAME)
            self.problem = self._store.problem
        except Exception as err:  # StoreVersionError, or sqlite3/OS errors opening the file
            self.problem = f"{err} Conversations are not saved in this session."
            log.error("conversation store unavailable: %s", err)

    def get(self, conv_id: str | None) -> Conversation:
        """The conversation ``conv_id`` (live, or read from the store), or a new one."""
        with self._lock:
            conv = self._live.get(conv_id or "")
            if conv is None and conv_id and self._store is not None:
                conv = self._guard(lambda s: s.load(conv_id), None, failed="read")
            if conv is None:
                conv = Conversation()
            self._live[conv.id] = conv
            return conv

    def current(self) -> Conversation:
        """The conversation open last (on any page, before any restart), or a new one."""
        last = self._guard(lambda s: s.last_open(), None, failed="read") if self._store is not None else None
        return self.get(last)

    def new(self) -> Conversation:
        return self.get(None)

    def open(self, conv_id: str) -> Conversation:
        conv = self.get(conv_id)
        if conv.turns:
            self._guard(lambda s: s.remember_open(conv.id), None)
        return conv

    def show(self, page: str, conv_id: str, *, wait_s: float = 5.0) -> None:
        """Page ``page`` (a browser tab) now shows ``conv_id``: the one a reload or a restart opens (a
        chat never asked in is not stored, and a new one opens instead).

        Waits (up to ``wait_s``) for a stream drawing into the page to hand over what it is drawing, so
        that a switch is sent after it and a chat left is never drawn over the one opened."""
        drawing = self._page_lock(page)
        held = drawing.acquire(timeout=wait_s)
        try:
            with self._lock:
                self._pages[page] = conv_id
        finally:
            if held:
                drawing.release()
        self._guard(lambda s: s.remember_open(conv_id), None)  # what a reload or a restart shows

    @contextlib.contextmanager
    def drawing(self, page: str, conv_id: str) -> Iterator[bool]:
        """Whether ``page`` still shows ``conv_id``; a stream holds this while it yields what it draws
        (the web server sends a yielded value before it asks the stream for the next), so ``show`` of
        another chat waits until that value is on its way."""
        with self._page_lock(page):
            yield self.shows(page, conv_id)

    def _page_lock(self, page: str) -> threading.Lock:
        with self._lock:
            return self._drawing.setdefault(page, threading.Lock())

    def shows(self, page: str, conv_id: str) -> bool:
        """Whether ``page`` still shows ``conv_id`` (a page never seen shows whatever it asks for)."""
        with self._lock:
            return self._pages.get(page, conv_id) == conv_id

    def save(self, conv: Conversation) -> None:
        """Keep ``conv`` as it is now."""

        def write(store: ConversationStore) -> None:
            if conv.id in self._deleted:
                return
            store.save(conv)

        self._guard(write, None)

    def summaries(self, search: str = "") -> list[ConversationSummary]:
        return self._guard(lambda s: s.list(search), [], failed="read")

    def rename(self, conv_id: str, title: str) -> bool:
        with self._lock:
            if conv_id in self._live:
                self._live[conv_id].title = title.strip()
        return self._guard(lambda s: s.rename(conv_id, title), False)

    def delete(self, conv_id: str) -> bool:
        with self._lock:
            self._live.pop(conv_id, None)
            self._deleted.add(conv_id)
        return self._guard(lambda s: s.delete(conv_id), False)

    def _guard(self, action: Callable[[ConversationStore], T], fallback: T, *, failed: str = "saved") -> T:
        if self._store is None:
            return fallback
        try:
            result = action(self._store)
        except Exception as err:  # sqlite3.Error, OSError: the chat goes on unsaved
            log.error("conversation store failed", exc_info=err)
            self.problem = f"Conversations could not be {failed} ({type(err).__name__}: {err})."
            return fallback
        return result
