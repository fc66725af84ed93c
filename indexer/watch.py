"""``FolderWatcher``: keeps collections live while the app runs.

watchdog observers report changes under each collection's folders; every change (create, modify, delete,
move, directory moves included) only marks the collection dirty and pushes its deadline ``debounce_s``
into the future. When a collection has been quiet for ``debounce_s`` (or has waited ``max_delay_s``
under a constant stream of changes), one worker thread runs an incremental ``Indexer.index`` on it, so an
editor's save storm becomes one sync, and that sync costs what changed, not the collection's size.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from indexer.manifest import ignored_name
from kimas_desktop.index_jobs import IndexService
from kimas_desktop.types import IndexReport

log = logging.getLogger(__name__)

_RELEVANT = {"created", "modified", "deleted", "moved", "closed"}


def _ignored(path: str) -> bool:
    return any(ignored_name(part) for part in Path(path).parts[1:])


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: FolderWatcher, collection: str) -> None:
        self._watcher = watcher
        self._collection = collection

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in _RELEVANT:
            return  # "opened"/"closed_no_write": our own reads must not trigger syncs
        if event.is_directory and event.event_type == "modified":
            return
        paths = [str(event.src_path)] + ([str(event.dest_path)] if event.dest_path else [])
        if all(_ignored(p) for p in paths):
            return
        self._watcher.touch(self._collection)


class FolderWatcher:
    """Watches ``folders_by_collection`` and syncs each collection after its changes settle.

    ``indexer`` is an ``Indexer``, or anything with its ``index(collection, folders)`` (the desktop
    session passes its job queue, so watcher syncs and other indexing never overlap).

    ``catch_up``: sync every collection once right after ``start()`` (changes made while the app was
    closed). ``on_report`` gets each sync's report; ``on_error`` each failure (also logged). Syncs run on
    one worker thread, one at a time.
    """

    def __init__(
        self,
        indexer: IndexService,
        folders_by_collection: Mapping[str, Sequence[Path]],
        debounce_s: float,
        on_report: Callable[[IndexReport], None] | None = None,
        *,
        catch_up: bool = True,
        max_delay_s: float | None = None,
        on_error: Callable[[str, Exception], None] | None = None,
    ) -> None:
        self._indexer = indexer
        self._folders = {
            name: [Path(f).expanduser().resolve() for f in fs] for name, fs in folders_by_collection.items()
        }
        self._debounce = debounce_s
        self._max_delay = max_delay_s if max_delay_s is not None else max(10 * debounce_s, 5.0)
        self._on_report = on_report
        self._on_error = on_error
        self._catch_up = catch_up
        self._cond = threading.Condition()
        self._due: dict[str, float] = {}  # collection → when to sync
        self._first: dict[str, float] = {}  # collection → first change not yet synced
        self._running: str | None = None
        self._stopping = False
        self._observer: Any = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        observer = Observer()
        for name, folders in self._folders.items():
            for folder in folders:
                if folder.is_dir():
                    observer.schedule(_Handler(self, name), str(folder), recursive=True)
                else:
                    log.warning("collection %s: folder %s does not exist; not watching it", name, folder)
        observer.daemon = True
        observer.start()
        self._observer = observer
        self._thread = threading.Thread(target=self._loop, name="kimas-watcher", daemon=True)
        self._thread.start()
        if self._catch_up:
            with self._cond:
                now = time.monotonic()
                for name in self._folders:
                    self._due[name] = now
                    self._first.setdefault(name, now)
                self._cond.notify_all()

    def stop(self, timeout: float | None = None) -> None:
        """Stop watching; a sync under way finishes first (up to ``timeout`` seconds)."""
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout)
            self._observer = None
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def touch(self, collection: str) -> None:
        """Note a change in ``collection``: it syncs once changes have been quiet for ``debounce_s``."""
        with self._cond:
            now = time.monotonic()
            first = self._first.setdefault(collection, now)
            self._due[collection] = min(now + self._debounce, first + self._max_delay)
            self._cond.notify_all()

    def idle(self) -> bool:
        """True when no sync is due or running."""
        with self._cond:
            return not self._due and self._running is None

    def _next(self) -> str | None:
        """Wait for the next collection whose deadline has passed (None when stopping)."""
        with self._cond:
            while not self._stopping:
                now = time.monotonic()
                ready = [name for name, due in self._due.items() if due <= now]
                if ready:
                    name = min(ready, key=lambda n: self._due[n])
                    del self._due[name]
                    self._first.pop(name, None)
                    self._running = name
                    return name
                wait = min(self._due.values()) - now if self._due else None
                self._cond.wait(wait)
            return None

    def _loop(self) -> None:
        while True:
            name = self._next()
            if name is None:
                return
            try:
                report = self._indexer.index(name, self._folders[name])
            except Exception as err:
                log.exception("syncing collection %s failed", name)
                if self._on_error is not None:
                    self._on_error(name, err)
            else:
                if self._on_report is not None:
                    self._on_report(report)
            finally:
                with self._cond:
                    self._running = None
                    self._cond.notify_all()
