"""``SourceRegistry``: the files the app may serve, i.e. those an answer has quoted or cited."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["SourceRegistry", "source_token"]


def source_token(path: str) -> str:
    """A stable, opaque handle for a source file (used in links that open it)."""
    return hashlib.sha256(path.encode("utf-8")).hexdigest()[:24]


class SourceRegistry:
    """``folders()`` gives the collections' folders now: a file is served only while inside one."""

    def __init__(self, folders: Callable[[], Iterable[Path]]) -> None:
        self._folders = folders
        self._by_token: dict[str, str] = {}
        self._lock = threading.Lock()

    def remember(self, paths: Iterable[str]) -> None:
        with self._lock:
            for p in paths:
                self._by_token[source_token(p)] = p

    def file(self, token: str) -> Path | None:
        """The cited file behind ``token``, if it still exists inside a collection's folder."""
        with self._lock:
            path = self._by_token.get(token)
        if path is None:
            return None
        file = Path(path).resolve()
        if not file.is_file():
            return None
        if any(file.is_relative_to(folder.resolve()) for folder in self._folders()):
            return file
        return None
