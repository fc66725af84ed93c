"""``IndexScheduler``: the one place that decides which collection is indexed when.

Everything that wants a collection indexed asks here: an upload, a new folder, "re-index", the start-up
catch-up (``submit``: as soon as possible), an index found damaged by a search or the Knowledge tab
(``repair``: unless a sync of it is waiting or under way already), and the folder watcher (``touch``:
once its edits have been quiet for ``debounce_s``, or have waited ``max_delay_s`` under a constant stream
of them).

``workers`` threads (two by default) run syncs of different collections side by side, never two of one
collection (the store's writer lease would refuse the second anyway): a small watched edit in one
collection becomes searchable while a long upload into another is still indexing, instead of waiting for
it. The folders of a collection are read when its sync starts, so a folder added meanwhile is included
and a pending edit survives any change of the watched folders. Pause, resume and cancel reach the syncs
under way through their ``IndexControl``, which the indexer consults between files and embedding
batches. Progress, the last report per collection and a short activity log are readable at any time (the
UI polls them).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from app.knowledge.indexing import Activity, IndexingState, IndexService, describe_report, report_values
from kimas_desktop.control import IndexControl
from kimas_desktop.errors import Cancelled, EmbedderMismatchError, IndexingError, KimasError
from kimas_desktop.types import FileProblem, IndexProgress, IndexReport

__all__ = ["IndexScheduler"]

log = logging.getLogger(__name__)

WATCHER = "watcher"
REEMBEDDED = "built with another embedding model"
REPAIR = "repair of a damaged index"
QUIET_TRIGGERS = (WATCHER, "start-up check")  # a sync that changed nothing is not worth a log line


@dataclass(frozen=True)
class _Due:
    at: float  # monotonic time it may start
    first: float  # when the oldest change it covers was seen
    trigger: str
    reembed: bool = False  # from the source files with the current embedder, into new tables


class IndexScheduler:
    """``service()`` gives the indexer to use now; ``folders(name)`` a collection's folders (None: gone)."""

    def __init__(
        self,
        service: Callable[[], IndexService],
        folders: Callable[[str], Sequence[Path] | None],
        *,
        on_change: Callable[[], None] = lambda: None,
        debounce_s: float = 1.0,
        max_delay_s: float | None = None,
        log_hint: str = "",
        history: int = 50,
        workers: int = 2,
        hides: Callable[[str, FileProblem], bool] = lambda collection, problem: False,
    ) -> None:
        """``hides(collection, problem)``: a problem the user dismissed (no warning for it)."""
        self._hides = hides
        self._service = service
        self._folders = folders
        self._on_change = on_change
        self._debounce = debounce_s
        self._max_delay = max_delay_s if max_delay_s is not None else max(10 * debounce_s, 5.0)
        self._log_hint = log_hint
        self._cond = threading.Condition()
        self._pending: dict[str, _Due] = {}
        self._running: dict[str, IndexControl] = {}
        self._states: dict[str, IndexingState] = {}  # of the syncs under way
        self._removing: set[str] = set()  # not started while it is being removed
        self._paused = False
        self._answers = 0  # answers being written now (``answering``)
        self._closing = False
        self._activity: deque[Activity] = deque(maxlen=history)
        self._reports: dict[str, IndexReport] = {}
        self._max_workers = max(1, workers)
        self._workers: list[threading.Thread] = []

    # -- asking for work ----------------------------------------------------------------------------

    def submit(self, collection: str, trigger: str, *, reembed: bool = False) -> None:
        """Index ``collection`` as soon as possible (one request already waiting for it is merged)."""
        now = time.monotonic()
        with self._cond:
            old = self._pending.get(collection)
            again = reembed or (old is not None and old.reembed)
            self._pending[collection] = _Due(now, old.first if old else now, trigger, again)
            self._wake()
        self._on_change()

    def repair(self, collection: str) -> bool:
        """``collection``'s index is damaged (``IndexDamagedError``): rebuild it from its files, as soon as
        possible. Nothing new when a sync of it waits or runs already (each sync repairs first, and the
        damage is seen again if one began before it). True when this asked for the rebuild."""
        with self._cond:
            if collection in self._pending or collection in self._running or collection in self._removing:
                return False
            now = time.monotonic()
            self._pending[collection] = _Due(now, now, REPAIR)
            self._wake()
        self.note(
            collection,
            "Its index is damaged (a table is missing or unreadable); rebuilding it.",
            "problem",
            "damaged",
        )
        return True

    def touch(self, collection: str) -> None:
        """A file of ``collection`` changed on disk (the folder watcher's only call)."""
        now = time.monotonic()
        with self._cond:
            old = self._pending.get(collection)
            first = old.first if old else now
            due = min(now + self._debounce, first + self._max_delay)
            if old is not None and old.trigger != WATCHER:
                self._pending[collection] = replace(old, at=min(old.at, due))
            else:
                self._pending[collection] = _Due(due, first, WATCHER)
            self._wake()

    def _wake(self) -> None:
        """Under ``_cond``: start a worker while there is more waiting than workers (up to ``workers``)."""
        if not self._closing and len(self._workers) < min(
            self._max_workers, len(self._pending) + len(self._running)
        ):
            worker = threading.Thread(
                target=self._work, name=f"kimas-indexing-{len(self._workers)}", daemon=True
            )
            self._workers.append(worker)
            worker.start()
        self._cond.notify_all()

    # -- control ------------------------------------------------------------------------------------

    def pause(self) -> None:
        """Hold every sync: the one under way waits at its next step, the others do not start."""
        with self._cond:
            self._paused = True
            self._hold_or_go()
        self.note("", "Indexing paused.", code="paused")

    def resume(self) -> None:
        with self._cond:
            self._paused = False
            self._hold_or_go()
        self.note("", "Indexing resumed.", code="resumed")

    @contextmanager
    def answering(self) -> Iterator[None]:
        """While an answer is being written, syncs wait at their next step (every few embedding calls)
        and resume after it. The answer is what the user waits for, and two CPU-heavy jobs on a laptop's
        few cores slow each other far more than their share: llama.cpp's threads spin at barriers
        (bench/RESULTS.md, issue 28)."""
        with self._cond:
            self._answers += 1
            self._hold_or_go()
        try:
            yield
        finally:
            with self._cond:
                self._answers -= 1
                self._hold_or_go()

    @property
    def answering_now(self) -> bool:
        with self._cond:
            return self._answers > 0

    def _hold_or_go(self) -> None:
        """Pause or resume the syncs under way after a change of ``_paused`` or ``_answers`` (locked)."""
        hold = self._paused or self._answers > 0
        for control in self._running.values():
            if hold:
                control.pause()
            else:
                control.resume()
        if not hold:
            self._cond.notify_all()

    @property
    def paused(self) -> bool:
        return self._paused

    def cancel(self, collection: str | None = None) -> None:
        """Drop the waiting requests of ``collection`` (None: all) and stop its sync under way."""
        with self._cond:
            for name in [n for n in self._pending if collection in (None, n)]:
                del self._pending[name]
            for name, control in self._running.items():
                if collection in (None, name):
                    control.cancel()
        self._on_change()

    def remove(self, collection: str, timeout: float = 30.0) -> None:
        """Cancel ``collection``'s indexing, then delete it from the store (never during a sync)."""
        with self._cond:
            self._removing.add(collection)
        try:
            self.cancel(collection)
            with self._cond:
                if not self._cond.wait_for(lambda: collection not in self._running, timeout):
                    raise IndexingError(
                        "Indexing is still busy; try removing the collection again in a moment."
                    )
            self._service().remove(collection)
        finally:
            with self._cond:
                self._removing.discard(collection)
                self._reports.pop(collection, None)
                self._cond.notify_all()

    def close(self, timeout: float = 10.0) -> None:
        """Stop: cancel the sync under way (its written work stays) and end the worker."""
        with self._cond:
            self._closing = True
            self._pending.clear()
            for control in self._running.values():
                control.cancel()
            self._cond.notify_all()
            workers = list(self._workers)
        deadline = time.monotonic() + timeout
        for worker in workers:
            worker.join(max(0.0, deadline - time.monotonic()))

    # -- reading ------------------------------------------------------------------------------------

    def states(self) -> list[IndexingState]:
        """The syncs under way, the longest-running first (an idle one when there are none)."""
        with self._cond:
            running = sorted(self._states.values(), key=lambda s: s.started_at) or [
                IndexingState(active=False)
            ]
            return [replace(s, waiting=tuple(self._pending), paused=self._paused) for s in running]

    def state(self) -> IndexingState:
        """The longest-running sync under way (or an idle one)."""
        return self.states()[0]

    def idle(self) -> bool:
        """Nothing waiting and nothing running."""
        with self._cond:
            return not self._pending and not self._running

    def activity(self) -> list[Activity]:
        """Newest first."""
        with self._cond:
            return list(reversed(self._activity))

    def report(self, collection: str) -> IndexReport | None:
        with self._cond:
            return self._reports.get(collection)

    def note(
        self,
        collection: str,
        text: str,
        kind: Literal["info", "problem", "error"] = "info",
        code: str = "",
        **values: str | int | float,
    ) -> None:
        """Log ``text`` (English) for ``collection``; the UI says ``code`` with ``values`` instead."""
        with self._cond:
            self._activity.append(Activity(time.time(), collection, text, kind, code, values))
        log.log(logging.INFO if kind == "info" else logging.WARNING, "%s: %s", collection or "indexing", text)
        self._on_change()

    # -- the worker ---------------------------------------------------------------------------------

    def _next(self) -> tuple[str, _Due, IndexControl] | None:
        with self._cond:
            while not self._closing:
                now = time.monotonic()
                free = [n for n in self._pending if n not in self._running and n not in self._removing]
                ready = [n for n in free if self._pending[n].at <= now]
                if ready and not self._paused and not self._answers:
                    name = min(ready, key=lambda n: self._pending[n].at)
                    due = self._pending.pop(name)
                    control = IndexControl()
                    self._running[name] = control
                    return name, due, control
                waits = [self._pending[n].at - now for n in free if self._pending[n].at > now]
                held = self._paused or self._answers
                self._cond.wait(None if held or not waits else min(waits))
            return None

    def _work(self) -> None:
        while (job := self._next()) is not None:
            name, due, control = job
            try:
                self._run(name, due, control)
            except Exception:  # the worker must survive anything; details go to the log
                log.exception("indexing %s failed", name)
            finally:
                with self._cond:
                    self._running.pop(name, None)
                    self._states.pop(name, None)
                    self._cond.notify_all()
                self._on_change()

    def _run(self, name: str, due: _Due, control: IndexControl) -> None:
        trigger = due.trigger
        folders = self._folders(name)
        if folders is None:
            return  # removed
        # No folders left (the last one no longer watched): the sync takes their files out of the index.
        started = time.time()
        self._set(IndexingState(True, name, trigger, started_at=started))

        def progress(p: IndexProgress) -> None:
            state = IndexingState(
                True, name, trigger, p.files_done, p.files_total, p.current_file, p.eta_s, started
            )
            self._set(replace(state, ocr_pages_waiting=p.ocr_pages_waiting))

        try:
            control.checkpoint()  # paused or cancelled before it began
            service = self._service()
            if due.reembed:
                report = service.reembed(name, list(folders), progress, control)
            else:
                try:
                    report = service.index(name, list(folders), progress, control)
                except EmbedderMismatchError:
                    # Built with another embedding model than the one in use (a model switch, or a new
                    # default after an update): the index follows the configured model.
                    trigger = REEMBEDDED  # what the progress and the activity show from here on
                    self._set(IndexingState(True, name, trigger, started_at=started))
                    report = service.reembed(name, list(folders), progress, control)
        except Cancelled:
            self.note(name, "Indexing cancelled; what was indexed so far is kept.", code="cancelled")
            return
        except KimasError as err:
            why = {f"why_{k}": str(v) for k, v in err.values.items()} | {"why_code": err.code}
            self.note(name, f"Indexing stopped: {err}", "error", "stopped", why=str(err), **why)
            return
        except Exception as err:
            log.error("indexing %s failed unexpectedly", name, exc_info=err)
            hint = f" Details are in {self._log_hint}." if self._log_hint else ""
            what = f"{type(err).__name__}: {err}"
            self.note(
                name,
                f"Indexing failed unexpectedly ({what}).{hint}",
                "error",
                "failed" if self._log_hint else "failed_no_log",
                what=what,
                log=str(self._log_hint or ""),
            )
            return
        self._record(report, trigger)

    def _set(self, state: IndexingState) -> None:
        """Progress is polled, so it does not count as a change of the collections."""
        with self._cond:
            self._states[state.collection] = state

    def _record(self, report: IndexReport, trigger: str) -> None:
        with self._cond:
            self._reports[report.collection] = report
        dismissed = sum(
            1 for p in report.problems if p.kind == "failed" and self._hides(report.collection, p)
        )
        failed = report.failed - dismissed
        changed = report.indexed or report.deleted or failed
        if trigger in QUIET_TRIGGERS and not changed:
            return
        prefix = {
            WATCHER: "Files changed on disk: ",
            REEMBEDDED: "Re-embedded with the embedding model in use: ",
            REPAIR: "Damaged index rebuilt: ",
        }
        why = {WATCHER: "watcher", REEMBEDDED: "reembedded", REPAIR: "repair"}.get(trigger, "")
        kind: Literal["info", "problem"] = "problem" if failed else "info"
        text = prefix.get(trigger, "") + describe_report(report)
        self.note(report.collection, text, kind, "report", **report_values(report, why))
