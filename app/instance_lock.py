"""One running app per data directory.

Two apps on one data directory would each run a scheduler and a watcher over the same collections and
config (the collection lease keeps the index safe, but the second app's edits and chats would fight the
first's). ``InstanceLock`` holds an exclusive lock on ``<data dir>/kimas.lock`` while the app runs (the
``filelock`` library: ``flock`` on Linux and macOS, ``LockFileEx`` on Windows) and writes its pid and address
into ``kimas.lock.json``, so a second ``kimas serve`` can say where the first one is. The operating system
drops the lock when the process ends, however it ends (even ``kill -9``): a stale lock file never blocks a
relaunch. (Where the OS offers no lock call, ``filelock`` falls back to a marker file that records its
holder's pid and is broken once that process is gone.)
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from filelock import FileLock, Timeout

from kimas_desktop.errors import KimasError

__all__ = ["AlreadyRunningError", "InstanceLock"]


class AlreadyRunningError(KimasError):
    """Another app holds the data directory."""


class InstanceLock:
    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / "kimas.lock"
        self.holder_file = data_dir / "kimas.lock.json"
        self._lock: FileLock | None = None

    def acquire(self, url: str) -> None:
        """Take the data directory for this process, or raise ``AlreadyRunningError`` naming the holder."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(self.path, blocking=False)
        try:
            lock.acquire()
        except Timeout:
            holder = _read(self.holder_file)
            where = f" at {holder['url']}" if holder.get("url") else ""
            pid = f" (process {holder['pid']})" if holder.get("pid") else ""
            raise AlreadyRunningError(
                f"KIMAs is already running on this data directory{where}{pid}. Open it in your browser, "
                f"or stop it first; to run a second copy, give it another --data-dir."
            ) from None
        tmp = self.holder_file.with_name(self.holder_file.name + ".tmp")
        tmp.write_text(json.dumps({"pid": os.getpid(), "url": url}), "utf-8")
        os.replace(tmp, self.holder_file)
        self._lock = lock

    def release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None


def _read(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
