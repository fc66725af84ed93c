"""``ConfigStore``: the config of a running app, and the one way to change it.

Every change (a collection created or removed, a folder added, settings saved) goes through ``update``:
read, modify and write under one lock, so two changes made at the same time are both kept. The lock is
held across processes too (``filelock`` on a lock file next to the config), and a config
another process wrote meanwhile (``kimas index`` while the app runs) is read again before it is changed.
The file is replaced atomically (``save_config``): a crash leaves the old one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock

from kimas_desktop.config import Config, load_config, save_config

__all__ = ["ConfigStore"]


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_mtime_ns, st.st_size


class ConfigStore:
    def __init__(self, path: Path, config: Config) -> None:
        self.path = path
        self._config = config
        self._lock = threading.Lock()
        self._seen = _stamp(path)

    @property
    def current(self) -> Config:
        return self._config

    def update(self, change: Callable[[Config], Config]) -> Config:
        """Apply ``change`` to the current config and save the result; returns it.

        ``change`` runs under the lock and may raise (a ``ConfigError`` with a sentence) to change nothing.
        """
        with self._lock, FileLock(self.path.with_name(self.path.name + ".lock")):
            current = self._config
            if _stamp(self.path) != self._seen:  # another process wrote the file
                current = load_config(self.path)
            new = change(current)
            save_config(new, self.path)
            self._config = new
            self._seen = _stamp(self.path)
            return new
