"""``RunControl``: pause, resume and cancel for one indexing run (a ``kimas_desktop.indexing.IndexControl``)."""

from __future__ import annotations

import threading

from kimas_desktop.errors import Cancelled

__all__ = ["RunControl"]


class RunControl:
    """Set from any thread; ``checkpoint()`` is called by the run between its steps."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._paused = False
        self._cancelled = False

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def pause(self) -> None:
        with self._cond:
            self._paused = True

    def resume(self) -> None:
        with self._cond:
            self._paused = False
            self._cond.notify_all()

    def cancel(self) -> None:
        with self._cond:
            self._cancelled = True
            self._cond.notify_all()

    def checkpoint(self) -> None:
        """Return while running, wait while paused, raise ``Cancelled`` once cancelled."""
        with self._cond:
            while self._paused and not self._cancelled:
                self._cond.wait()
            if self._cancelled:
                raise Cancelled("indexing was cancelled; what was written so far is kept")
