"""``InstallLock``: an exclusive lock on a file that the operating system lets go when its holder ends, killed
or not: ``flock`` on Linux and macOS, ``msvcrt.locking`` on Windows (the calls the ``filelock`` library makes
for the app's instance lock, ``app/instance_lock.py``; the installer runs before that library is installed,
so this is the standard-library copy of it). The file itself stays; only the lock on it counts.

Two locks keep an install safe to interrupt and to run twice at once (``install.py``, ``llama_build.py``):
``.venv/kimas-install.lock`` while anything is installed into the venv, and ``<wheel cache>/<key>.lock`` while
llama.cpp compiles for that key (one compile per machine at a time, whichever clone asks).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import TracebackType

__all__ = ["InstallLock"]


class InstallLock:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self, *, wait: bool = True, poll_s: float = 0.5) -> bool:
        """Hold the lock; with ``wait=False`` give up at once (False) when another process holds it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        while True:
            if _try_lock(fd):
                self._fd = fd
                return True
            if not wait:
                os.close(fd)
                return False
            time.sleep(poll_s)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            _unlock(fd)
            os.close(fd)

    def __enter__(self) -> InstallLock:
        self.acquire()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


if os.name == "nt":
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
