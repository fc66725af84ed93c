"""Stopping work from another thread: ``CancelToken`` for an answer, ``IndexControl`` for a sync.

The reader of an answer (the UI's Stop button, Ctrl-C in the CLI) calls ``CancelToken.cancel()``. Work that
can end early checks ``cancelled`` between steps, and a backend that runs something long outside Python
(a llama.cpp decode in its worker process) registers a callback that interrupts it at once. Cancelled work
raises ``Cancelled``.

``IndexControl`` pauses, resumes and cancels a running sync (the UI, the CLI's Ctrl-C). The indexer
consults it between files and between embedding batches: while paused it waits there; once cancelled it
stops, keeping every file it finished (its chunks and manifest record) and nothing of the files it had not
finished, and raises ``Cancelled``. A later sync carries on from there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from kimas_desktop.errors import Cancelled

__all__ = ["CancelToken", "Cancelled", "IndexControl"]


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


class IndexControl:
    """Thread-safe switches for one sync (or several in a row)."""

    def __init__(self) -> None:
        self._running = threading.Event()
        self._running.set()
        self._cancelled = threading.Event()

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def pause(self) -> None:
        self._running.clear()

    def resume(self) -> None:
        self._running.set()

    def cancel(self) -> None:
        self._cancelled.set()
        self._running.set()  # wake a paused sync, so it stops

    def wait(self, timeout_s: float | None = None) -> bool:
        """Block while paused (at most ``timeout_s``); True when the sync may go on (not paused)."""
        return self._running.wait(timeout_s)

    def checkpoint(self) -> None:
        """Wait while paused; raise ``Cancelled`` once cancelled."""
        self._running.wait()
        if self._cancelled.is_set():
            raise Cancelled("indexing was cancelled")
