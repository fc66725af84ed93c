"""The file manifest (what was indexed, from which bytes) and the plan that compares it with the folders.

A manifest record is written only after all of its file's chunks are stored, so a record always
describes chunks that exist. Files are compared by size and modification time first; only files whose
stat changed are read and hashed.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISLNK, S_ISREG
from typing import Literal

from indexer.chunking import chunked_before
from indexer.tables import is_table_file, keeps_tables
from kimas_desktop.types import FileProblem

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
    card: str | None = None  # the document's outline and card as JSON (``indexer.upkeep.cards``)


def lacks_card(record: FileRecord) -> bool:
    """Indexed by a version before document cards, or a spreadsheet or CSV by a version before tables
    (skipped as unsupported, or read as text), or chunked by an older ``CHUNKING`` (``chunked_before``):
    read again (its vectors are re-used where a chunk is unchanged) to make them."""
    if _keeps_tables(os.path.splitext(record.path)[1].lower()):  # a document too: since issue 43
        if record.status == "skipped" and record.reason.startswith("unsupported file type"):
            return is_table_file(record.path)
        if record.status == "indexed" and '"tables"' not in (record.card or ""):
            return True
    return record.status == "indexed" and (record.card is None or chunked_before(record.card))


@functools.cache
def _keeps_tables(suffix: str) -> bool:
    """``keeps_tables`` by suffix, once per suffix: parsing every manifest path took 1.7 s a sync at 38,000
    files (issue 59)."""
    return keeps_tables("file" + suffix)


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


def scan_folders(folders: Sequence[Path]) -> tuple[dict[str, FileStat], list[Path], list[FileProblem]]:
    """Every indexable-looking file under ``folders``, the folders that do not exist, and the files
    skipped with their reason: names that are not valid UTF-8 (``shown_path``), and links that lead out
    of the watched folder.

    Links (symlinks, and on Windows junctions) are followed only while they stay inside the watched
    folder: a link to a file inside is indexed under the link's name; a link to a folder inside is not
    walked again (its files are indexed where they really are, and a link to a parent cannot loop); a
    link to a file or a folder outside (``/etc/passwd``, ``~/.ssh``) is skipped, with the reason in the
    collection's file list."""
    files: dict[str, FileStat] = {}
    missing: list[Path] = []
    refused: list[FileProblem] = []
    for folder in folders:
        if not folder.is_dir():
            missing.append(folder)
            continue
        inside = _Inside(folder)
        for root, dirs, names in os.walk(folder, followlinks=False):
            dirs[:] = sorted(d for d in dirs if not ignored_name(d) and inside.walks(root, d, refused))
            for name in sorted(names):
                if not ignored_name(name):
                    _scan_file(os.path.join(root, name), inside, files, refused)
    return files, missing, refused


def _scan_file(path: str, inside: _Inside, files: dict[str, FileStat], refused: list[FileProblem]) -> None:
    if _unnamable(path):
        if os.path.isfile(path):
            refused.append(FileProblem(shown_path(path), _UNNAMABLE, "skipped"))
        return
    try:
        st = os.lstat(path)  # one call for a plain file (at 38,000 files a sync's scan took 4 s, issue 59)
        if S_ISLNK(st.st_mode):
            if not inside.holds(target := os.path.realpath(path)):
                refused.append(FileProblem(path, _outside("file", target), "skipped"))
                return
            st = os.stat(path)
    except OSError:  # vanished while we walked, or a dangling link
        return
    if S_ISREG(st.st_mode):
        files[path] = FileStat(path, st.st_size, st.st_mtime_ns)


_UNNAMABLE = "its name is not valid UTF-8 text: rename the file to index it"


def _outside(kind: str, target: str) -> str:
    return (
        f"a link to a {kind} outside the watched folder ({shown_path(target)}): links are followed only "
        "inside the folder"
    )


class _Inside:
    """Whether a path stays inside one watched folder once its links are resolved."""

    def __init__(self, folder: Path) -> None:
        self._real = os.path.normcase(os.path.realpath(folder))

    def holds(self, real_path: str) -> bool:
        real_path = os.path.normcase(real_path)
        return real_path == self._real or real_path.startswith(self._real.rstrip(os.sep) + os.sep)

    def walks(self, root: str, name: str, refused: list[FileProblem]) -> bool:
        """Whether the walk goes into the folder ``name`` of ``root`` (a folder the walk went into): only a
        real folder, not a link or junction. A link out of the watched folder is added to ``refused`` with
        its reason; a link to a folder within is left out (what it shows is walked at its real place).
        Resolving every folder's real path cost 2.5 s a sync at 38,000 files: a folder that is no link
        (Windows junctions are not seen as links: there every folder is resolved) is inside as it is."""
        path = os.path.join(root, name)
        if os.name != "nt" and not os.path.islink(path):
            return True
        real_root = os.path.realpath(root)
        target = os.path.realpath(path)
        if not self.holds(target):
            refused.append(FileProblem(shown_path(path), _outside("folder", target), "skipped"))
            return False
        return os.path.normcase(target) == os.path.normcase(os.path.join(real_root, name))


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
