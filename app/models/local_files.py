"""``FileScan``: the GGUF model files other apps keep on this computer, found where those apps keep them.

- LM Studio: ``~/.lmstudio/models`` and ``~/.cache/lm-studio/models`` (``publisher/repo/file.gguf``);
- GPT4All: its data folder (``nomic.ai/GPT4All``) and ``~/.cache/gpt4all``;
- Jan: ``~/jan/models`` and its data folder (``Jan/data``);
- Ollama: ``$OLLAMA_MODELS`` or ``~/.ollama/models`` (and the Linux service's ``/usr/share/ollama``): each
  manifest (``manifests/<host>/<namespace>/<model>/<tag>``, JSON) names the model's GGUF blob
  (``blobs/sha256-<hex>``).

The data folders are the platform's (``user_data_dirs``: ``%LOCALAPPDATA%``/``%APPDATA%`` on Windows,
``~/Library/Application Support`` on macOS, ``$XDG_DATA_HOME`` or ``~/.local/share`` elsewhere).
Only GGUF headers are read (``gguf_header``); a file that cannot be read is skipped. Vision projectors
(``mmproj-*``) and the later parts of a split model are not models of their own.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from app.models.gguf_header import GgufError, read_gguf_facts
from app.models.local_model import Kind, LocalModel, Source, fits_ram
from local_models.catalog.catalog import machine_ram_mb

__all__ = ["FileScan", "ModelFolders", "user_data_dirs"]

MAX_DEPTH = 5  # publisher/repo/file.gguf is 3 deep; Jan nests a little deeper
OLLAMA_MODEL_LAYER = "application/vnd.ollama.image.model"
_LATER_PART = re.compile(r"-(\d{5})-of-\d{5}$")


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


def _gguf_files(root: Path) -> Iterator[Path]:
    """The GGUF files under ``root`` (at most ``MAX_DEPTH`` folders down), sorted, minus projectors and
    later parts of split models."""
    if not root.is_dir():
        return
    for folder, dirs, files in os.walk(root, onerror=lambda err: None):
        if len(Path(folder).relative_to(root).parts) >= MAX_DEPTH:
            dirs.clear()
        dirs.sort()
        for name in sorted(files):
            stem = name[:-5]
            if not name.lower().endswith(".gguf") or name.lower().startswith("mmproj"):
                continue
            part = _LATER_PART.search(stem)
            if part is None or part.group(1) == "00001":
                yield Path(folder) / name


def _ollama_name(manifest: Path, manifests: Path) -> str:
    """``llama3.2:3b`` for the default library; ``user/model:tag`` or ``host/user/model:tag`` otherwise."""
    parts = manifest.relative_to(manifests).parts
    host, path, tag = parts[0], "/".join(parts[1:-1]), parts[-1]
    if host == "registry.ollama.ai":
        path = path.removeprefix("library/")
        return f"{path}:{tag}"
    return f"{host}/{path}:{tag}"


def _ollama_blob(manifest: Path, root: Path) -> Path | None:
    try:
        layers = json.loads(manifest.read_text("utf-8")).get("layers", [])
    except (OSError, ValueError, AttributeError):
        return None
    for layer in layers if isinstance(layers, list) else []:
        if isinstance(layer, dict) and layer.get("mediaType") == OLLAMA_MODEL_LAYER:
            digest = str(layer.get("digest", ""))
            for name in (digest.replace(":", "-"), digest):  # older Ollama kept the colon
                if digest and (root / "blobs" / name).is_file():
                    return root / "blobs" / name
    return None


class FileScan:
    """``find()`` lists the GGUF models in ``folders`` (default: this computer's well-known ones)."""

    def __init__(self, folders: ModelFolders | None = None) -> None:
        self._folders = folders

    def find(self) -> list[LocalModel]:
        folders = self._folders or ModelFolders.of_this_computer()
        ram = machine_ram_mb()
        found: list[LocalModel] = []
        seen: set[tuple[Source, str, Path]] = set()
        apps: tuple[tuple[Source, tuple[Path, ...]], ...] = (
            ("lm-studio", folders.lm_studio),
            ("gpt4all", folders.gpt4all),
            ("jan", folders.jan),
        )
        for source, roots in apps:
            for root in roots:
                for path in _gguf_files(root):
                    found += self._model(path, path.stem, source, ram, seen)
        for root in folders.ollama:
            manifests = root / "manifests"
            listed = sorted(p for p in manifests.rglob("*") if p.is_file()) if manifests.is_dir() else []
            for manifest in listed:
                blob = _ollama_blob(manifest, root)
                if blob is not None:
                    found += self._model(blob, _ollama_name(manifest, manifests), "ollama", ram, seen)
        return found

    @staticmethod
    def _model(
        path: Path, name: str, source: Source, ram: int, seen: set[tuple[Source, str, Path]]
    ) -> list[LocalModel]:
        """The one model at ``path`` (nothing when unreadable, or listed already from an overlapping
        folder of the same app)."""
        try:
            real, size, facts = path.resolve(), path.stat().st_size, read_gguf_facts(path)
        except (OSError, GgufError):
            return []
        if (source, name, real) in seen:
            return []
        seen.add((source, name, real))
        kind: Kind = "embedding" if facts.embedding else "chat"
        return [
            LocalModel(
                name=name,
                source=source,
                kind=kind,
                path=path,
                size_bytes=size,
                quantization=facts.quantization,
                context=facts.context_length,
                fits=fits_ram(size, ram),
            )
        ]
