"""``FolderWatcher``: tells which collection changed on disk, while the app runs. It never indexes.

watchdog reports changes under each collection's folders (create, modify, delete, move, directory moves
included); each relevant one becomes ``on_change(collection)``. Deciding when to sync (debouncing an
editor's save storm into one sync) is the scheduler's job (``app.knowledge.scheduler.IndexScheduler.touch``), so
changing the watched folders (``watch``) only adds and removes watches on the one running observer: it
returns at once, and an edit still waiting for its sync is not lost.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

from indexer.sync.manifest import ignored_name

log = logging.getLogger(__name__)

_RELEVANT = {"created", "modified", "deleted", "moved", "closed"}
# What the kernel is asked to report. Without a filter inotify also queued an open and a close for every
# folder a sync's scan lists: a scan of 5,000 folders overflowed its queue (16,384 events), and watchdog's
# recovery, which lists every folder again, overflowed it again, for ever, at full CPU (bench.scale,
# issue 59).
_WATCHED = (
    FileCreatedEvent,
    DirCreatedEvent,
    FileModifiedEvent,
    FileDeletedEvent,
    DirDeletedEvent,
    FileMovedEvent,
    DirMovedEvent,
    FileClosedEvent,
)


def _ignored(path: str) -> bool:
    return any(ignored_name(part) for part in Path(path).parts[1:])


class _Handler(FileSystemEventHandler):
    def __init__(self, on_change: Callable[[str], None], collection: str) -> None:
        self._on_change = on_change
        self._collection = collection

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in _RELEVANT:
            return  # "opened"/"closed_no_write": our own reads must not trigger syncs
        if event.is_directory and event.event_type == "modified":
            return
        paths = [str(event.src_path)] + ([str(event.dest_path)] if event.dest_path else [])
        if all(_ignored(p) for p in paths):
            return
        self._on_change(self._collection)


class FolderWatcher:
    """One watchdog observer; ``watch()`` sets which folders it watches for which collection."""

    def __init__(self, on_change: Callable[[str], None]) -> None:
        self._on_change = on_change
        self._lock = threading.Lock()
        self._observer: Any = None
        self._watches: dict[tuple[str, Path], Any] = {}  # (collection, folder) → watchdog's handle

    def watch(self, folders_by_collection: Mapping[str, Sequence[Path]]) -> None:
        """Watch exactly these folders from now on; watches that stay are left untouched."""
        wanted = {
            (name, Path(f).expanduser().resolve()) for name, fs in folders_by_collection.items() for f in fs
        }
        with self._lock:
            if self._observer is None:
                self._observer = Observer()
                self._observer.daemon = True
                self._observer.start()
            for key in set(self._watches) - wanted:
                self._observer.unschedule(self._watches.pop(key))
            for name, folder in sorted(wanted - set(self._watches)):
                if not folder.is_dir():
                    log.warning("collection %s: folder %s does not exist; not watching it", name, folder)
                    continue
                handler = _Handler(self._on_change, name)
                self._watches[(name, folder)] = self._observer.schedule(
                    handler, str(folder), recursive=True, event_filter=list(_WATCHED)
                )

    def watched(self) -> dict[str, list[Path]]:
        with self._lock:
            out: dict[str, list[Path]] = {}
            for name, folder in sorted(self._watches):
                out.setdefault(name, []).append(folder)
            return out

    def close(self, timeout: float = 5.0) -> None:
        with self._lock:
            observer, self._observer = self._observer, None
            self._watches.clear()
        if observer is not None:
            observer.stop()
            observer.join(timeout)
