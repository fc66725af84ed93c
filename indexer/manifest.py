"""The file manifest (what was indexed, from which bytes) and the plan that compares it with the folders.

A manifest record is written only after all of its file's chunks are stored, so a record always
describes chunks that exist. Files are compared by size and modification time first; only files whose
stat changed are read and hashed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Status = Literal["indexed", "skipped", "failed"]

_TEMP_SUFFIXES = (
    "~", ".swp", ".swo", ".swx", ".tmp", ".temp", ".part", ".crdownload", ".download", ".bak", ".orig",
)  # fmt: skip


@dataclass(frozen=True)
class FileRecord:
    """One manifest entry: a file as last indexed (or skipped, or failed) and why."""

    path: str  # absolute
    size: int
    mtime_ns: int
    hash: str  # blake2b of the content; "" when the file was never read (too large)
    chunks: int
    status: Status
    reason: str = ""  # why it was skipped or failed; notes about unreadable pages when indexed
    pages: int = 0
    indexed_at: float = 0.0
    card: str | None = None  # the document's outline and card as JSON (``indexer.cards``)


def lacks_card(record: FileRecord) -> bool:
    """Indexed by a version before document cards: read again (its vectors are re-used) to make one."""
    return record.status == "indexed" and record.card is None


@dataclass(frozen=True)
class FileStat:
    path: str
    size: int
    mtime_ns: int


def ignored_name(name: str) -> bool:
    """Hidden files and folders, editor swap and backup files, partial downloads."""
    return (
        name.startswith((".", "~$"))
        or name.endswith(_TEMP_SUFFIXES)
        or (name.startswith("#") and name.endswith("#"))
    )


def shown_path(path: str) -> str:
    """``path`` as text that can be stored and printed: bytes of a name that are not UTF-8 as ``\\xff``."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _unnamable(path: str) -> bool:
    """A path the OS gave as bytes that are not UTF-8 (Python keeps them as surrogates): no table, log or
    terminal can hold it as it is."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def scan_folders(folders: Sequence[Path]) -> tuple[dict[str, FileStat], list[Path], list[str]]:
    """Every indexable-looking file under ``folders`` (symlinked folders are not followed), the folders
    that do not exist, and the files whose names are not valid UTF-8 (``shown_path``), which are skipped."""
    files: dict[str, FileStat] = {}
    missing: list[Path] = []
    unnamable: list[str] = []
    for folder in folders:
        if not folder.is_dir():
            missing.append(folder)
            continue
        for root, dirs, names in os.walk(folder, followlinks=False):
            dirs[:] = sorted(d for d in dirs if not ignored_name(d))
            for name in sorted(names):
                if ignored_name(name):
                    continue
                path = os.path.join(root, name)
                if _unnamable(path):
                    if os.path.isfile(path):
                        unnamable.append(shown_path(path))
                    continue
                try:
                    st = os.stat(path)
                except OSError:  # vanished while we walked, or a dangling link
                    continue
                if os.path.isfile(path):
                    files[path] = FileStat(path, st.st_size, st.st_mtime_ns)
    return files, missing, unnamable


def under(path: str, folder: Path) -> bool:
    prefix = str(folder).rstrip(os.sep) + os.sep
    return path.startswith(prefix)


@dataclass(frozen=True)
class SyncPlan:
    """What a sync must do. ``changed`` files must be read; ``vanished`` ones are gone from disk (they may
    turn out to have moved); ``kept`` are records under a folder that is missing right now (an unmounted
    drive must not wipe a collection)."""

    unchanged: list[FileRecord]
    changed: list[FileStat]
    vanished: list[FileRecord]
    kept: list[FileRecord]


def plan_sync(
    manifest: Mapping[str, FileRecord],
    files: Mapping[str, FileStat],
    folders: Sequence[Path],
    missing: Sequence[Path],
) -> SyncPlan:
    unchanged: list[FileRecord] = []
    changed: list[FileStat] = []
    for path, stat in files.items():
        record = manifest.get(path)
        same = record is not None and record.size == stat.size and record.mtime_ns == stat.mtime_ns
        if record is not None and same and not lacks_card(record):
            unchanged.append(record)
        else:
            changed.append(stat)
    vanished: list[FileRecord] = []
    kept: list[FileRecord] = []
    for path, record in manifest.items():
        if path in files:
            continue
        if any(under(path, m) for m in missing) and any(under(path, f) for f in folders):
            kept.append(record)
        else:
            vanished.append(record)
    return SyncPlan(unchanged, changed, vanished, kept)
