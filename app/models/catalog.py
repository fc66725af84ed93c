"""The model catalog as the CLI and the Settings page see it (``local_models`` stays behind ``app``).

catalog(path=None) -> list[CatalogEntry]                      the catalog file's entries
status(paths, entries) -> list[ModelStatus]                   installed or not, fits this RAM; no network
pull(paths, name, on_progress=..., cancel=..., base_url="", catalog_file=None) -> InstallResult
    downloads that one model (DownloadProgress reports: bytes, speed, ETA; a CancelToken stops it
    and the next pull resumes); ``result.choice`` is the config section and values that select it.
choice(paths, name, catalog_file=None) -> ModelChoice         the config values of an installed model
    (``ModelUnavailableError`` with a sentence when it is not installed); no network
"""

from __future__ import annotations

from pathlib import Path

from app.paths import Paths
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import ModelUnavailableError
from local_models.catalog.catalog import (
    CatalogEntry,
    find_entry,
    installed_path,
    load_catalog,
    machine_ram_mb,
)
from local_models.catalog.download import DownloadProgress, ProgressCallback
from local_models.catalog.install import (
    InstallResult,
    ModelChoice,
    ModelStatus,
    choice_for,
    install,
    models_status,
)

__all__ = [
    "CatalogEntry",
    "DownloadProgress",
    "InstallResult",
    "ModelChoice",
    "ModelStatus",
    "catalog",
    "choice",
    "machine_ram_mb",
    "pull",
    "status",
]


def catalog(path: Path | None = None) -> list[CatalogEntry]:
    return load_catalog(path)


def status(paths: Paths, entries: list[CatalogEntry] | None = None) -> list[ModelStatus]:
    return models_status(entries if entries is not None else load_catalog(), paths.models_cache)


def pull(
    paths: Paths,
    name: str,
    *,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    base_url: str = "",
    catalog_file: Path | None = None,
) -> InstallResult:
    entry = find_entry(load_catalog(catalog_file), name)
    return install(entry, paths.models_cache, base_url=base_url, on_progress=on_progress, cancel=cancel)


def choice(paths: Paths, name: str, catalog_file: Path | None = None) -> ModelChoice:
    entry = find_entry(load_catalog(catalog_file), name)
    path = installed_path(entry, paths.models_cache)
    if path is None:
        raise ModelUnavailableError(f"{entry.title} is not installed yet: download it first.")
    return choice_for(entry, path)
