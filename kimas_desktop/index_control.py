"""``IndexControl``: pause, resume and cancel a running sync from another thread (the UI, the CLI's Ctrl-C).

The indexer consults it between files and between embedding batches: while paused it waits there; once
cancelled it stops, keeping every file it finished (its chunks and manifest record) and nothing of the
files it had not finished, and raises ``Cancelled``. A later sync carries on from there.
"""

from __future__ import annotations

import threading

from kimas_desktop.errors import Cancelled

__all__ = ["IndexControl"]


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
