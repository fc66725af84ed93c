"""``FileScan``: the GGUF model files other apps keep on this computer, found where those apps keep them.

- LM Studio: ``~/.lmstudio/models`` and ``~/.cache/lm-studio/models`` (``publisher/repo/file.gguf``);
- GPT4All: its data folder (``nomic.ai/GPT4All``) and ``~/.cache/gpt4all``;
- Jan: ``~/jan/models`` and its data folder (``Jan/data``);
- Ollama: ``$OLLAMA_MODELS`` or ``~/.ollama/models`` (and the Linux service's ``/usr/share/ollama``): each
  manifest (``manifests/<host>/<namespace>/<model>/<tag>``, JSON) names the model's GGUF blob
  (``blobs/sha256-<hex>``).

The data folders are the platform's (``user_data_dirs``: ``%LOCALAPPDATA%``/``%APPDATA%`` on Windows,
``~/Library/Application Support`` on macOS, ``$XDG_DATA_HOME`` or ``~/.local/share`` elsewhere).
Vision projectors (``mmproj-*``) and the later parts of a split model are not models of their own.

The files read are not ours, so the scan reads them as data that may be hostile: only regular files are
opened (a FIFO, device or socket is never opened for reading: checked before ``open``, and again on what was
opened, without blocking), GGUF headers are read within ``gguf_header``'s limits, a manifest is read only up
to ``MAX_MANIFEST_BYTES`` and any JSON error or unexpected shape skips it, a digest must be
``sha256:<hex>`` so the blob it names is a file in ``blobs/``, and the whole scan stops at its time budget.
Each file skipped for a cause is recorded (``SkippedFile``: its path and a ``SkipReason`` code) in the
``FileScanReport``; nothing a file holds makes the scan raise.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from app.models.gguf_header import GgufError, GgufFacts, GgufLimitError, gguf_facts
from app.models.local_model import Kind, LocalModel, Source, fits_ram
from local_models.catalog.catalog import machine_ram_mb

__all__ = [
    "SCAN_BUDGET_S",
    "FileScan",
    "FileScanReport",
    "ModelFolders",
    "SkipReason",
    "SkippedFile",
    "user_data_dirs",
]

MAX_DEPTH = 5  # publisher/repo/file.gguf is 3 deep; Jan nests a little deeper; manifests host/ns/model/tag
MAX_MANIFEST_BYTES = 1 << 20  # a manifest is about 1 KB
SCAN_BUDGET_S = 10.0
OLLAMA_MODEL_LAYER = "application/vnd.ollama.image.model"
_LATER_PART = re.compile(r"-(\d{5})-of-\d{5}$")
_DIGEST = re.compile(r"sha256[:-][0-9a-fA-F]{64}")  # nothing else names a file in blobs/
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)

SkipReason = Literal[
    "not-a-regular-file",  # a FIFO, device or socket (or a link to one): never opened for reading
    "unreadable",  # the system refused to open or read it (permissions, a broken link)
    "not-gguf",  # not a GGUF file, or one cut short
    "beyond-limits",  # a GGUF header beyond gguf_header's limits (nesting, counts, sizes)
    "bad-manifest",  # an Ollama manifest that is too big, not JSON, or not shaped like one
    "bad-digest",  # an Ollama manifest whose model digest is not sha256:<hex> (a path out of blobs/?)
    "missing-blob",  # an Ollama manifest whose model blob is not in blobs/
    "out-of-time",  # the scan's time budget ran out here: this file and those after it were not read
]


@dataclass(frozen=True)
class SkippedFile:
    path: Path
    reason: SkipReason


@dataclass(frozen=True)
class FileScanReport:
    models: tuple[LocalModel, ...]
    skipped: tuple[SkippedFile, ...]  # each file skipped for a cause, once, in the order met


def user_data_dirs(home: Path) -> tuple[Path, ...]:
    """Where this platform keeps apps' data (platformdirs' ``user_data_dir``, without the dependency)."""
    if sys.platform == "win32":
        names = ("LOCALAPPDATA", "APPDATA")
        return tuple(Path(os.environ[n]) for n in names if os.environ.get(n))
    if sys.platform == "darwin":
        return (home / "Library" / "Application Support",)
    xdg = os.environ.get("XDG_DATA_HOME")
    return (Path(xdg) if xdg else home / ".local" / "share",)


@dataclass(frozen=True)
class ModelFolders:
    """The folders scanned, per app; ``ollama`` folders hold ``manifests/`` and ``blobs/``."""

    lm_studio: tuple[Path, ...] = ()
    gpt4all: tuple[Path, ...] = ()
    jan: tuple[Path, ...] = ()
    ollama: tuple[Path, ...] = ()

    @classmethod
    def of_this_computer(cls, home: Path | None = None) -> ModelFolders:
        home = home or Path.home()
        data = user_data_dirs(home)
        ollama = [Path(os.environ["OLLAMA_MODELS"])] if os.environ.get("OLLAMA_MODELS") else []
        ollama += [home / ".ollama" / "models"]
        if sys.platform.startswith("linux"):
            ollama.append(Path("/usr/share/ollama/.ollama/models"))
        return cls(
            lm_studio=(home / ".lmstudio" / "models", home / ".cache" / "lm-studio" / "models"),
            gpt4all=(*(d / "nomic.ai" / "GPT4All" for d in data), home / ".cache" / "gpt4all"),
            jan=(home / "jan" / "models", *(d / "Jan" / "data" for d in data)),
            ollama=tuple(ollama),
        )


class _Skip(Exception):
    """``path`` is skipped for ``reason`` (caught by the scan, never raised out of it)."""

    def __init__(self, path: Path, reason: SkipReason) -> None:
        super().__init__(path, reason)
        self.skipped = SkippedFile(path, reason)


def _open_regular(path: Path) -> BinaryIO:
    """``path`` open for reading, when it is a regular file (or a link to one). Its kind is checked before
    it is opened (opening a FIFO waits for a writer), then again on what was opened, non-blocking, in case
    it was swapped in between."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise _Skip(path, "not-a-regular-file")
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as err:
        raise _Skip(path, "unreadable") from err
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise _Skip(path, "not-a-regular-file")
    return os.fdopen(fd, "rb")


def _files(root: Path) -> Iterator[Path]:
    """Every file name under ``root`` (at most ``MAX_DEPTH`` folders down, links to folders not followed),
    sorted; FIFOs and the like too, for the reader to skip."""
    if not root.is_dir():
        return
    for folder, dirs, files in os.walk(root, onerror=lambda err: None):
        if len(Path(folder).relative_to(root).parts) >= MAX_DEPTH:
            dirs.clear()
        dirs.sort()
        yield from (Path(folder) / name for name in sorted(files))


def _gguf_files(root: Path) -> Iterator[Path]:
    """The GGUF files under ``root``, minus projectors and later parts of split models."""
    for path in _files(root):
        name = path.name.lower()
        if not name.endswith(".gguf") or name.startswith("mmproj"):
            continue
        part = _LATER_PART.search(path.name[:-5])
        if part is None or part.group(1) == "00001":
            yield path


def _ollama_name(manifest: Path, manifests: Path) -> str:
    """``llama3.2:3b`` for the default library; ``user/model:tag`` or ``host/user/model:tag`` otherwise."""
    parts = manifest.relative_to(manifests).parts
    host, path, tag = parts[0], "/".join(parts[1:-1]), parts[-1]
    if host == "registry.ollama.ai":
        path = path.removeprefix("library/")
        return f"{path}:{tag}"
    return f"{host}/{path}:{tag}"


def _model_digest(manifest: Path) -> str | None:
    """The digest of the model layer the Ollama manifest at ``manifest`` names; None when it names none."""
    with _open_regular(manifest) as f:
        try:
            data = f.read(MAX_MANIFEST_BYTES + 1)
        except OSError as err:
            raise _Skip(manifest, "unreadable") from err
    try:
        if len(data) > MAX_MANIFEST_BYTES:
            raise ValueError("too big for a manifest")
        parsed: object = json.loads(data.decode("utf-8"))  # deep nesting: RecursionError
    except (RecursionError, ValueError) as err:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise _Skip(manifest, "bad-manifest") from err
    layers = parsed.get("layers") if isinstance(parsed, dict) else None
    if not isinstance(layers, list) or not all(isinstance(layer, dict) for layer in layers):
        raise _Skip(manifest, "bad-manifest")
    digests = [layer.get("digest") for layer in layers if layer.get("mediaType") == OLLAMA_MODEL_LAYER]
    if not digests:
        return None
    if not isinstance(digests[0], str):
        raise _Skip(manifest, "bad-manifest")
    return digests[0]


def _ollama_blob(manifest: Path, root: Path) -> Path | None:
    """The blob holding the model the manifest names; None when it names no model."""
    digest = _model_digest(manifest)
    if digest is None:
        return None
    if not _DIGEST.fullmatch(digest):  # "../../x.gguf", "/abs/x.gguf", "C:\\x": never joined to blobs/
        raise _Skip(manifest, "bad-digest")
    for name in (digest.replace(":", "-"), digest):  # older Ollama kept the colon
        if os.path.lexists(root / "blobs" / name):
            return root / "blobs" / name
    raise _Skip(manifest, "missing-blob")


class _Scan:
    """One scan's findings: the models read, the files skipped, the seen ones (overlapping folders)."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline  # time.monotonic()
        self._ram = machine_ram_mb()
        self._models: list[LocalModel] = []
        self._skipped: dict[Path, SkippedFile] = {}
        self._seen: set[tuple[Source, str, Path]] = set()

    def skip(self, skipped: SkippedFile) -> None:
        self._skipped.setdefault(skipped.path, skipped)

    def report(self) -> FileScanReport:
        return FileScanReport(tuple(self._models), tuple(self._skipped.values()))

    def add(self, path: Path, name: str, source: Source) -> None:
        """The model in the GGUF file at ``path`` (once, however many overlapping folders hold it)."""
        real = Path(os.path.realpath(path))  # Path.resolve raises on a link loop before Python 3.13
        if (source, name, real) in self._seen:
            return
        size, facts = self._read(path)
        self._seen.add((source, name, real))
        kind: Kind = "embedding" if facts.embedding else "chat"
        self._models.append(
            LocalModel(
                name=name,
                source=source,
                kind=kind,
                path=path,
                size_bytes=size,
                quantization=facts.quantization,
                context=facts.context_length,
                fits=fits_ram(size, self._ram),
            )
        )

    def _read(self, path: Path) -> tuple[int, GgufFacts]:
        with _open_regular(path) as f:
            try:
                return os.fstat(f.fileno()).st_size, gguf_facts(f, self.deadline)
            except GgufLimitError as err:
                late = time.monotonic() >= self.deadline
                raise _Skip(path, "out-of-time" if late else "beyond-limits") from err
            except GgufError as err:
                raise _Skip(path, "not-gguf") from err
            except OSError as err:
                raise _Skip(path, "unreadable") from err


def _candidates(folders: ModelFolders) -> Iterator[tuple[Source, Path, Path | None]]:
    """(source, file, Ollama folder or None) for each file to read: GGUF files, then Ollama manifests."""
    apps: tuple[tuple[Source, tuple[Path, ...]], ...] = (
        ("lm-studio", folders.lm_studio),
        ("gpt4all", folders.gpt4all),
        ("jan", folders.jan),
    )
    for source, roots in apps:
        for root in roots:
            yield from ((source, path, None) for path in _gguf_files(root))
    for root in folders.ollama:
        yield from (("ollama", manifest, root) for manifest in _files(root / "manifests"))


class FileScan:
    """``scan()`` lists the GGUF models in ``folders`` (default: this computer's well-known ones) and the
    files skipped, within ``budget_s`` seconds; ``find()`` the models only."""

    def __init__(self, folders: ModelFolders | None = None, budget_s: float = SCAN_BUDGET_S) -> None:
        self._folders = folders
        self._budget_s = budget_s

    def find(self) -> list[LocalModel]:
        return list(self.scan().models)

    def scan(self) -> FileScanReport:
        folders = self._folders or ModelFolders.of_this_computer()
        scan = _Scan(time.monotonic() + self._budget_s)
        for source, path, ollama in _candidates(folders):
            if time.monotonic() >= scan.deadline:
                scan.skip(SkippedFile(path, "out-of-time"))
                break
            try:
                if ollama is None:
                    scan.add(path, path.stem, source)
                elif (blob := _ollama_blob(path, ollama)) is not None:
                    scan.add(blob, _ollama_name(path, ollama / "manifests"), "ollama")
            except _Skip as skip:
                scan.skip(skip.skipped)
        return scan.report()
