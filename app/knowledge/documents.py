"""``Documents``: the files of one collection, one by one (the Knowledge tab's document manager).

Each file the index knows, with its status (indexed, skipped or failed and why), chunk count and when it
was indexed; per file: remove it (its chunks and manifest record; an uploaded copy is deleted too, while
a file in a folder watched in place stays on disk), read it again, or dismiss its problem. Writes go
through ``indexer.sync.file_actions`` under the collection's writer lease, like a sync.

A dismissed problem is kept in ``dismissed-problems.json`` in the data dir, by collection, file and
reason: it no longer counts as a warning (on the collection, or after a start-up check) until the file
fails for another reason.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from indexer.upkeep.cards import card_from_json
from kimas_desktop.errors import ConfigError, IndexingError
from kimas_desktop.types import DocumentCard, FileProblem

if TYPE_CHECKING:
    from indexer import LanceStore

__all__ = ["DISMISSED_FILE", "Dismissals", "Document", "Documents"]

log = logging.getLogger(__name__)

DISMISSED_FILE = "dismissed-problems.json"


@dataclass(frozen=True)
class Document:
    path: str  # absolute
    name: str  # relative to the folder it is in
    status: Literal["indexed", "skipped", "failed"]
    reason: str  # why it was skipped or failed; a note (e.g. unreadable pages) when indexed
    chunks: int
    pages: int
    indexed_at: float
    uploaded: bool  # a copy in the collection's uploads folder (removing it deletes the copy)
    dismissed: bool = False  # its problem was dismissed
    card: DocumentCard | None = None  # its title, outline and central sentences (``indexer.upkeep.cards``)

    @property
    def problem(self) -> bool:
        """Skipped, failed or indexed with a note, and not dismissed."""
        return bool(self.status != "indexed" or self.reason) and not self.dismissed


class Dismissals:
    """Dismissed problems by collection: ``{collection: {path: reason}}`` in one JSON file."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self._lock = threading.Lock()

    def _read(self) -> dict[str, dict[str, str]]:
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as err:
            log.warning("ignoring unreadable %s: %s", self.file, err)
            return {}
        if not isinstance(data, dict):
            return {}
        return {
            str(c): {str(p): str(r) for p, r in v.items()} for c, v in data.items() if isinstance(v, dict)
        }

    def _write(self, data: dict[str, dict[str, str]]) -> None:
        tmp = self.file.with_suffix(".tmp")
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
            os.replace(tmp, self.file)
        except OSError as err:
            raise IndexingError(f"could not save the dismissed problems to {self.file}: {err}") from err

    def of(self, collection: str) -> dict[str, str]:
        with self._lock:
            return self._read().get(collection, {})

    def hides(self, collection: str, problem: FileProblem) -> bool:
        return self.of(collection).get(problem.path) == problem.reason

    def set(self, collection: str, path: str, reason: str | None) -> None:
        """Dismiss ``path``'s problem ``reason`` (None: forget the dismissal)."""
        with self._lock:
            data = self._read()
            entries = data.setdefault(collection, {})
            if reason is None:
                entries.pop(path, None)
            else:
                entries[path] = reason
            if not entries:
                del data[collection]
            self._write(data)

    def forget_collection(self, collection: str) -> None:
        with self._lock:
            data = self._read()
            if data.pop(collection, None) is not None:
                self._write(data)


def _relative(path: str, folders: Sequence[Path]) -> str:
    file = Path(path)
    inside = [f for f in folders if file.is_relative_to(f)]
    if not inside:
        return file.name
    return str(file.relative_to(max(inside, key=lambda f: len(f.parts))))


class Documents:
    """``store()``: the collection store; ``folders(name)``: a collection's folders now."""

    def __init__(
        self,
        store: Callable[[], LanceStore],
        folders: Callable[[str], Sequence[Path] | None],
        uploads_root: Path,
        dismissals: Dismissals,
    ) -> None:
        self._store = store
        self._folders = folders
        self.uploads_root = uploads_root
        self.dismissals = dismissals
        self.wait_s = 10.0  # how long a removal waits for a sync of the collection to finish

    def _uploaded(self, collection: str, path: str) -> bool:
        root = (self.uploads_root / collection).resolve()
        return Path(path).resolve().is_relative_to(root)

    def list(self, collection: str) -> list[Document]:
        """The files of ``collection`` the index knows, by name (``CollectionNotFoundError``: none)."""
        store = self._store()
        if not store.has_collection(collection):
            return []
        folders = [Path(f).resolve() for f in self._folders(collection) or []]
        dismissed = self.dismissals.of(collection)
        out = []
        for r in store.manifest(collection).values():
            out.append(
                Document(
                    path=r.path,
                    name=_relative(r.path, folders),
                    status=r.status,
                    reason=r.reason,
                    chunks=r.chunks,
                    pages=r.pages,
                    indexed_at=r.indexed_at,
                    uploaded=self._uploaded(collection, r.path),
                    dismissed=bool(r.reason) and dismissed.get(r.path) == r.reason,
                    card=card_from_json(r.path, r.card),
                )
            )
        return sorted(out, key=lambda d: d.name.lower())

    def get(self, collection: str, path: str) -> Document:
        for doc in self.list(collection):
            if doc.path == path:
                return doc
        raise ConfigError(f"'{Path(path).name}' is not in collection '{collection}' any more.")

    def remove(self, collection: str, path: str) -> Document:
        """Take the file out of the index; an uploaded copy is deleted too (with its emptied folders)."""
        from indexer.sync.file_actions import remove_file

        doc = self.get(collection, path)
        remove_file(self._store(), collection, path, wait_s=self.wait_s)
        self.dismissals.set(collection, path, None)
        if doc.uploaded:
            self._delete_upload(collection, Path(path))
        return doc

    def _delete_upload(self, collection: str, file: Path) -> None:
        root = (self.uploads_root / collection).resolve()
        try:
            file.unlink(missing_ok=True)
            folder = file.parent.resolve()
            while folder != root and folder.is_relative_to(root) and not any(folder.iterdir()):
                folder.rmdir()
                folder = folder.parent
        except OSError as err:
            raise IndexingError(
                f"'{file.name}' is out of the index, but its uploaded copy could not be deleted: {err}"
            ) from err

    def reindex(self, collection: str, path: str) -> Document:
        """Have the next sync read the file again (call the scheduler afterwards)."""
        from indexer.sync.file_actions import forget_file

        doc = self.get(collection, path)
        if not Path(path).is_file():
            raise ConfigError(f"'{doc.name}' is not on disk any more; the next sync removes it.")
        forget_file(self._store(), collection, path, wait_s=self.wait_s)
        return doc

    def dismiss(self, collection: str, path: str) -> Document:
        doc = self.get(collection, path)
        if not doc.reason:
            raise ConfigError(f"'{doc.name}' has no problem to dismiss.")
        self.dismissals.set(collection, path, doc.reason)
        return doc
