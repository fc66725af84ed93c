"""One running app per data directory.

Two apps on one data directory would each run a scheduler and a watcher over the same collections and
config (the collection lease keeps the index safe, but the second app's edits and chats would fight the
first's). ``InstanceLock`` holds an exclusive ``flock`` on ``<data dir>/kimas.lock`` while the app runs and
writes its pid and address into it, so a second ``kimas serve`` can say where the first one is. The
operating system drops the lock when the process ends, however it ends (even ``kill -9``): a stale lock
file never blocks a relaunch.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import IO

from kimas_desktop.errors import KimasError

__all__ = ["AlreadyRunningError", "InstanceLock"]


class AlreadyRunningError(KimasError):
    """Another app holds the data directory."""


class InstanceLock:
    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / "kimas.lock"
        self._file: IO[str] | None = None

    def acquire(self, url: str) -> None:
        """Take the data directory for this process, or raise ``AlreadyRunningError`` naming the holder."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        f = self.path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.seek(0)
            holder = _read(f.read())
            f.close()
            where = f" at {holder['url']}" if holder.get("url") else ""
            pid = f" (process {holder['pid']})" if holder.get("pid") else ""
            raise AlreadyRunningError(
                f"KIMAs is already running on this data directory{where}{pid}. Open it in your browser, "
                f"or stop it first; to run a second copy, give it another --data-dir."
            ) from None
        f.seek(0)
        f.truncate()
        f.write(json.dumps({"pid": os.getpid(), "url": url}))
        f.flush()
        self._file = f

    def release(self) -> None:
        if self._file is not None:
            self._file.close()  # closing drops the flock
            self._file = None


def _read(text: str) -> dict[str, object]:
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
