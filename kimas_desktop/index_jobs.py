"""Indexing in the background, one collection at a time, with progress the UI reads by polling.

Two kinds of callers index: ``IndexJobs.submit`` (uploads, a new folder, "re-index", start-up catch-up),
run by one worker thread, and the folder watcher reacting to edits on disk. Both go through
``IndexJobs.tracked(service)``, which holds one lock around every run (so two never write a collection at
once) and records progress, reports and a short activity log.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, Protocol

from kimas_desktop.errors import KimasError
from kimas_desktop.types import IndexProgress, IndexReport

__all__ = ["Activity", "IndexJobs", "IndexService", "IndexingState", "describe_report"]

log = logging.getLogger(__name__)

ProgressCallback = Callable[[IndexProgress], None]


class IndexService(Protocol):
    """The write side of the collections, as the desktop session sees it (``indexer.Indexer``)."""

    def index(
        self, collection: str, folders: Sequence[Path], on_progress: ProgressCallback | None = None
    ) -> IndexReport: ...

    def remove(self, collection: str) -> None: ...


@dataclass(frozen=True)
class IndexingState:
    """What indexing is doing right now (``active`` False: idle)."""

    active: bool
    collection: str = ""
    trigger: str = ""
    files_done: int = 0
    files_total: int = 0
    current_file: str = ""
    eta_s: float | None = None
    started_at: float = 0.0
    waiting: tuple[str, ...] = ()  # collections queued after this one

    @property
    def fraction(self) -> float:
        return self.files_done / self.files_total if self.files_total else 0.0


@dataclass(frozen=True)
class Activity:
    at: float
    collection: str
    text: str
    kind: Literal["info", "problem", "error"] = "info"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def describe_report(report: IndexReport) -> str:
    """'2 files indexed (14 chunks), 1 unchanged, 1 skipped in 3.1 s'."""
    parts = []
    if report.indexed:
        parts.append(f"{_plural(report.indexed, 'file')} indexed ({_plural(report.chunks_added, 'chunk')})")
    if report.deleted:
        parts.append(f"{_plural(report.deleted, 'file')} removed")
    if report.unchanged:
        parts.append(f"{report.unchanged} unchanged")
    if report.skipped:
        parts.append(f"{report.skipped} skipped")
    if report.failed:
        parts.append(f"{report.failed} failed")
    return (", ".join(parts) or "no files found") + f" in {report.seconds:.1f} s"


class _Tracked:
    def __init__(self, jobs: IndexJobs, inner: IndexService, trigger: str) -> None:
        self._jobs, self._inner, self._trigger = jobs, inner, trigger

    def index(
        self, collection: str, folders: Sequence[Path], on_progress: ProgressCallback | None = None
    ) -> IndexReport:
        return self._jobs.run(self._inner, collection, folders, self._trigger, on_progress)

    def remove(self, collection: str) -> None:
        with self._jobs.lock:
            self._inner.remove(collection)


@dataclass(frozen=True)
class _Job:
    collection: str
    folders: tuple[Path, ...]
    service: IndexService
    trigger: str


class IndexJobs:
    """A queue of indexing jobs run by one worker thread; every run's progress is readable at any time."""

    def __init__(self, on_change: Callable[[], None], *, log_hint: str = "", history: int = 50) -> None:
        self.lock = threading.RLock()  # held by whoever is indexing
        self._on_change = on_change
        self._log_hint = log_hint
        self._state_lock = threading.Lock()
        self._state = IndexingState(active=False)
        self._pending: dict[str, _Job] = {}
        self._order: queue.Queue[str | None] = queue.Queue()
        self._activity: deque[Activity] = deque(maxlen=history)
        self.reports: dict[str, IndexReport] = {}
        self._worker: threading.Thread | None = None
        self._closed = False

    # -- reading ---------------------------------------------------------------------------------

    def state(self) -> IndexingState:
        with self._state_lock:
            return replace(self._state, waiting=tuple(self._pending))

    def activity(self) -> list[Activity]:
        """Newest first."""
        with self._state_lock:
            return list(reversed(self._activity))

    def note(self, collection: str, text: str, kind: Literal["info", "problem", "error"] = "info") -> None:
        with self._state_lock:
            self._activity.append(Activity(time.time(), collection, text, kind))
        log.log(logging.INFO if kind == "info" else logging.WARNING, "%s: %s", collection or "indexing", text)
        self._on_change()

    # -- running ---------------------------------------------------------------------------------

    def tracked(self, service: IndexService, trigger: str) -> IndexService:
        """``service`` with its runs serialized and tracked (give this one to the folder watcher)."""
        return _Tracked(self, service, trigger)

    def submit(self, collection: str, folders: Sequence[Path], service: IndexService, trigger: str) -> None:
        """Index ``collection`` in the background; a job already waiting for it is replaced."""
        job = _Job(collection, tuple(folders), service, trigger)
        with self._state_lock:
            known = collection in self._pending
            self._pending[collection] = job
            if self._worker is None and not self._closed:
                self._worker = threading.Thread(target=self._work, name="kimas-indexing", daemon=True)
                self._worker.start()
        if not known:
            self._order.put(collection)
        self._on_change()

    def cancel(self, collection: str) -> None:
        with self._state_lock:
            self._pending.pop(collection, None)

    def close(self) -> None:
        with self._state_lock:
            self._closed = True
            self._pending.clear()
        self._order.put(None)

    def _work(self) -> None:
        while True:
            name = self._order.get()
            if name is None:
                return
            with self._state_lock:
                job = self._pending.pop(name, None)
            if job is None:
                continue
            try:
                self.run(job.service, job.collection, job.folders, job.trigger, None)
            except KimasError as err:
                log.warning("indexing %s failed: %s", job.collection, err, exc_info=True)
            except Exception:  # the worker must survive anything; details go to the log
                log.exception("indexing %s failed", job.collection)

    def run(
        self,
        service: IndexService,
        collection: str,
        folders: Sequence[Path],
        trigger: str,
        on_progress: ProgressCallback | None,
    ) -> IndexReport:
        """Index now, in the caller's thread, holding the lock and tracking progress."""
        with self.lock:
            started = time.time()
            self._set(IndexingState(True, collection, trigger, started_at=started))

            def progress(p: IndexProgress) -> None:
                now = IndexingState(True, collection, trigger, started_at=started)
                self._set(
                    replace(
                        now,
                        files_done=p.files_done,
                        files_total=p.files_total,
                        current_file=p.current_file,
                        eta_s=p.eta_s,
                    )
                )
                if on_progress is not None:
                    on_progress(p)

            try:
                report = service.index(collection, list(folders), progress)
            except KimasError as err:
                self.note(collection, f"Indexing stopped: {err}", "error")
                raise
            except Exception as err:
                hint = f" Details are in {self._log_hint}." if self._log_hint else ""
                self.note(
                    collection, f"Indexing failed unexpectedly ({type(err).__name__}: {err}).{hint}", "error"
                )
                raise
            finally:
                self._set(IndexingState(False))
                self._on_change()
            self._record(report, trigger)
            return report

    def _set(self, state: IndexingState) -> None:
        """Progress is polled, so it does not count as a change of the collections."""
        with self._state_lock:
            self._state = state

    def _record(self, report: IndexReport, trigger: str) -> None:
        with self._state_lock:
            self.reports[report.collection] = report
        changed = report.indexed or report.deleted or report.failed
        if trigger in ("watcher", "start-up check") and not changed:
            self._on_change()
            return
        prefix = "Files changed on disk: " if trigger == "watcher" else ""
        kind: Literal["info", "problem"] = "problem" if report.failed else "info"
        self.note(report.collection, prefix + describe_report(report), kind)
