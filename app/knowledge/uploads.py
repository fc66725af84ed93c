"""Uploaded files land in a managed folder under the data dir: ``<data dir>/uploads/<collection>/``.

A browser sends only a file's name, and that name is untrusted: it may hold ``../``, an absolute or a
Windows path, control or bidirectional-override characters, a name Windows reserves (``CON``, ``NUL``…)
or one that is too long. ``safe_file_name`` turns any of them into one plain file name; ``copy_uploads``
copies files under such names, never overwriting a different file and never leaving the target folder.
Files of an uploaded folder keep their subfolders (``safe_relative_path``: each part made safe the same
way, ``..`` and empty parts dropped), so two ``README.md`` of different subfolders stay apart.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import shutil
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from kimas_desktop.errors import ConfigError, IndexingError

__all__ = [
    "CopiedFile",
    "check_collection_name",
    "copy_uploads",
    "safe_file_name",
    "safe_relative_path",
]

_RESERVED = {
    "CON", "PRN", "AUX", "NUL", "CLOCK$", "CONIN$", "CONOUT$",
    *(f"COM{i}" for i in range(10)), *(f"LPT{i}" for i in range(10)),
    *(f"COM{c}" for c in "¹²³"), *(f"LPT{c}" for c in "¹²³"),
}  # fmt: skip
_FORBIDDEN = set('<>:"/\\|?*')
MAX_DEPTH = 12  # subfolders kept below the upload folder (deeper ones are left out)
MAX_NAME_BYTES = 180  # well under the 255 bytes most file systems allow, leaving room for " (12)"
_COLLECTION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def safe_file_name(name: str, fallback: str = "file") -> str:
    """A file name that is safe on every common file system and names no other folder.

    Only the last path component counts (``../../x`` → ``x``, ``C:\\a\\b.pdf`` → ``b.pdf``); control,
    format (e.g. right-to-left override) and unassigned characters are dropped, characters Windows
    forbids become ``_``, leading/trailing dots and spaces go, reserved device names get a ``_`` prefix,
    and the name is cut to ``MAX_NAME_BYTES`` of UTF-8 keeping its extension.
    """
    text = unicodedata.normalize("NFC", name)
    base = re.split(r"[\\/]", text)[-1]
    out = []
    for ch in base:
        category = unicodedata.category(ch)
        if category[0] == "C":  # Cc control, Cf format, Cs surrogate, Co private use, Cn unassigned
            continue
        if category[0] == "Z":  # any space or line separator
            out.append(" ")
        elif ch in _FORBIDDEN:
            out.append("_")
        else:
            out.append(ch)
    clean = re.sub(r" {2,}", " ", "".join(out)).strip(" .")
    if not clean:
        return fallback
    stem, dot, ext = clean.rpartition(".")
    if not dot:
        stem, ext = clean, ""
    if stem.split(".")[0].upper().rstrip(" ") in _RESERVED:
        clean = "_" + clean
        stem = "_" + stem
    if len(clean.encode("utf-8")) > MAX_NAME_BYTES:
        suffix = f".{ext}" if ext and len(ext.encode("utf-8")) <= 16 else ""
        budget = MAX_NAME_BYTES - len(suffix.encode("utf-8"))
        head = (stem if suffix else clean).encode("utf-8")[:budget].decode("utf-8", "ignore").rstrip(" .")
        clean = (head or fallback) + suffix
    return clean


def safe_relative_path(name: str) -> tuple[str, ...]:
    """``name`` as a relative path of safe parts (``a/../b\\c.md`` → ``("a", "b", "c.md")``): each part
    made safe like ``safe_file_name``; ``.``, ``..`` and empty parts dropped; at most ``MAX_DEPTH``
    folders."""
    parts = [p for p in re.split(r"[\\/]", unicodedata.normalize("NFC", name)) if p.strip(" .")]
    if not parts:
        return (safe_file_name(name),)
    folders = [safe_file_name(p, "folder") for p in parts[:-1]][:MAX_DEPTH]
    return (*folders, safe_file_name(parts[-1]))


def check_collection_name(name: str) -> str:
    """The name, stripped, if it can name a collection; else a ``ConfigError`` saying what is allowed."""
    clean = name.strip()
    if not _COLLECTION.match(clean):
        raise ConfigError(
            f"'{clean}' cannot name a collection: use 1 to 64 letters, digits, '-' or '_' "
            "(no spaces), starting with a letter or digit."
        )
    return clean


@dataclass(frozen=True)
class CopiedFile:
    source_name: str  # the name the browser sent
    path: Path  # where it is now
    status: str  # "added", "renamed" (name taken by another file) or "unchanged" (same content was there)


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _candidates(folder: Path, name: str) -> Iterator[Path]:
    """``name``, then ``stem (2).ext``, ``stem (3).ext``…"""
    yield folder / name
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        stem, ext = name, ""
    for n in itertools.count(2):
        yield folder / (f"{stem} ({n}).{ext}" if ext else f"{stem} ({n})")


def copy_uploads(
    folder: Path, files: Sequence[tuple[Path, str]], *, keep_folders: bool = False
) -> list[CopiedFile]:
    """Copy each ``(temporary path, name the browser sent)`` into ``folder`` under a safe name.

    ``keep_folders``: the names are paths relative to an uploaded folder (``docs/a/README.md``), and the
    files go into the same subfolders of ``folder``; otherwise only the last part of a name counts.
    Identical content already under that name (or one of its ``name (n).ext`` variants) is left alone
    (``unchanged``); a name taken by other content gives the new file ``name (2).ext`` (``renamed``).
    Nothing is written outside ``folder``.
    """
    folder.mkdir(parents=True, exist_ok=True)
    root = folder.resolve()
    copied: list[CopiedFile] = []
    for src, sent_name in files:
        *subfolders, name = safe_relative_path(sent_name) if keep_folders else (safe_file_name(sent_name),)
        into = root.joinpath(*subfolders)
        if not into.resolve().is_relative_to(root):  # cannot happen after safe_file_name; refuse anyway
            raise IndexingError(f"refusing to write the upload {sent_name!r} outside {root}")
        try:
            into.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise IndexingError(
                f"could not make the folder for {sent_name!r}: {err.strerror or err}"
            ) from err
        digest = _digest(src)
        for target in _candidates(into, name):
            if not target.exists():
                break
            if target.is_file() and _digest(target) == digest:
                break
        if target.exists():
            copied.append(CopiedFile(sent_name, target, "unchanged"))
            continue
        if target.resolve().parent != into.resolve():  # cannot happen after safe_file_name; refuse anyway
            raise IndexingError(f"refusing to write the upload {sent_name!r} outside {root}")
        try:
            shutil.copyfile(src, target)
        except OSError as err:
            raise IndexingError(
                f"could not copy the uploaded file {sent_name!r}: {err.strerror or err}"
            ) from err
        copied.append(CopiedFile(sent_name, target, "added" if target.name == name else "renamed"))
    return copied
