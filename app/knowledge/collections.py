"""``Knowledge``: the collections and their folders, with one set of rules for the app and the CLI.

A collection is a name in the config (its folders and routing settings) and, once indexed, a table in the
store. Every change of the config goes through ``ConfigStore.update``. The rules: a collection name is
checked; a folder must be a full path to an existing folder that does not hold KIMAs' own data directory;
uploads live in ``<data dir>/uploads/<collection>/`` and go when the collection goes. A store that cannot
be read is reported as such (``IndexingError``), never taken for "no collections yet". A collection whose
index is damaged (a table missing or unreadable) says so in its status, and is handed to ``on_damaged``
(the app rebuilds it).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from app.knowledge.file_systems import virtual_file_system
from app.knowledge.uploads import CopiedFile, check_collection_name, copy_uploads
from app.settings.config_store import ConfigStore
from kimas_desktop.config import CollectionConfig, Config
from kimas_desktop.errors import CollectionNotFoundError, ConfigError, IndexingError, KimasError
from kimas_desktop.protocols import ChunkSearcher
from kimas_desktop.retrieval.strategies import strategy_names
from kimas_desktop.types import CollectionInfo, FileProblem

__all__ = ["CollectionStatus", "Knowledge"]


@dataclass(frozen=True)
class CollectionStatus:
    name: str
    folders: tuple[str, ...]
    uploads_folder: str  # the managed folder for this collection's uploads (may not exist yet)
    files: int
    chunks: int
    embedding_model: str
    updated_at: float | None
    problems: tuple[FileProblem, ...]
    settings: CollectionConfig
    indexed: bool  # the store knows it
    needs_reembedding: bool = False  # built with another embedding model than the configured one
    damaged: str = ""  # why its index cannot be read (a sentence); it is rebuilt from its files


def _damage(info: CollectionInfo) -> tuple[str, tuple[FileProblem, ...]]:
    """Why ``info``'s index cannot be read ('' when it can), and its other problems: the store names the
    damage first among the problems, under the collection's own name (``LanceStore.collection``)."""
    first = info.problems[0] if info.problems else None
    if first is not None and first.path == info.name and first.kind == "failed":
        return first.reason, info.problems[1:]
    return "", info.problems


def _with(config: Config, name: str, settings: CollectionConfig | None) -> Config:
    """``config`` with collection ``name`` set to ``settings`` (None: removed)."""
    collections = {k: v.model_dump() for k, v in config.collections.items() if k != name}
    if settings is not None:
        collections[name] = settings.model_dump()
    return config.updated(collections=collections)


class Knowledge:
    def __init__(
        self,
        config: ConfigStore,
        store: Callable[[], ChunkSearcher],
        data_dir: Path,
        *,
        hides: Callable[[str, FileProblem], bool] = lambda collection, problem: False,
        on_damaged: Callable[[str], object] = lambda collection: None,
    ) -> None:
        """``hides(collection, problem)``: the user dismissed it (not listed as a problem any more).
        ``on_damaged(collection)``: its index was found damaged while listing (the app rebuilds it)."""
        self._config = config
        self._store = store
        self.data_dir = data_dir
        self.uploads_root = data_dir / "uploads"
        self._hides = hides
        self._on_damaged = on_damaged

    # -- reading ------------------------------------------------------------------------------------

    def infos(self) -> dict[str, CollectionInfo]:
        """What the store knows; raises ``IndexingError`` when the store cannot be read."""
        try:
            return {c.name: c for c in self._store().collections()}
        except KimasError:
            raise
        except Exception as err:
            raise IndexingError(
                f"The collection store cannot be read ({type(err).__name__}: {err})."
            ) from err

    def has_knowledge(self) -> bool:
        return any(c.chunks > 0 for c in self.infos().values())

    def folders_by_collection(self, infos: dict[str, CollectionInfo] | None = None) -> dict[str, list[Path]]:
        """Every collection (configured or only in the store) and its folders."""
        infos = self.infos() if infos is None else infos
        config = self._config.current
        out: dict[str, list[Path]] = {}
        for name in sorted(set(config.collections) | set(infos)):
            folders = config.collections[name].folders if name in config.collections else infos[name].folders
            out[name] = [Path(f) for f in folders]
        return out

    def folders(self, name: str) -> list[Path] | None:
        """``name``'s folders now (None: no such collection); what a sync starting now indexes."""
        config = self._config.current
        if name in config.collections:
            return [Path(f) for f in config.collections[name].folders]
        return self.folders_by_collection().get(name)

    def names(self) -> list[str]:
        return list(self.folders_by_collection())

    def collections(self) -> list[CollectionStatus]:
        infos = self.infos()
        return [
            self._status(name, folders, infos.get(name))
            for name, folders in self.folders_by_collection(infos).items()
        ]

    def _status(self, name: str, folders: list[Path], info: CollectionInfo | None) -> CollectionStatus:
        damaged, problems = _damage(info) if info else ("", ())
        if damaged:
            self._on_damaged(name)
        return CollectionStatus(
            name=name,
            folders=tuple(str(f) for f in folders),
            uploads_folder=str(self.uploads_root / name),
            files=info.files if info else 0,
            chunks=info.chunks if info else 0,
            embedding_model=info.embedding_model if info else "",
            updated_at=info.updated_at if info else None,
            problems=tuple(p for p in problems if not self._hides(name, p)),
            settings=self._config.current.collection(name),
            indexed=info is not None,
            needs_reembedding=info.needs_reembedding if info else False,
            damaged=damaged,
        )

    def settings(self, name: str) -> CollectionConfig:
        return self._config.current.collection(name)

    # -- changing -----------------------------------------------------------------------------------

    def _ensure(self, name: str, change: Callable[[CollectionConfig], CollectionConfig]) -> CollectionConfig:
        """Apply ``change`` to collection ``name`` (made a configured one, keeping the folders the store
        knows), saved in one update."""
        name = check_collection_name(name)
        known = None if name in self._config.current.collections else self.infos().get(name)
        out: list[CollectionConfig] = []

        def apply(config: Config) -> Config:
            if name in config.collections:
                current = config.collections[name]
            else:
                current = CollectionConfig(folders=list(known.folders) if known else [])
            out.append(change(current))
            return _with(config, name, out[-1])

        self._config.update(apply)
        return out[-1]

    def create(self, name: str) -> str:
        clean = check_collection_name(name)
        if clean in self.names():
            raise ConfigError(f"There is already a collection named '{clean}'.")
        self._ensure(clean, lambda c: c)
        return clean

    def check_folder(self, folder: str) -> Path:
        """The folder as a resolved path, if it may join a collection; else a ``ConfigError``."""
        if not folder.strip():
            raise ConfigError("Type the full path of a folder on this computer.")
        path = Path(folder.strip()).expanduser()
        if not path.is_absolute():
            raise ConfigError(f"'{folder}' is not a full path: start it with / (or a drive letter).")
        if not path.is_dir():
            raise ConfigError(f"There is no folder at {path}.")
        path = path.resolve()
        try:
            str(path).encode("utf-8")
        except UnicodeEncodeError:
            raise ConfigError(
                "That folder's name is not valid UTF-8 text, so it cannot be kept in the settings; rename it."
            ) from None
        virtual = virtual_file_system(path)
        if virtual is not None:
            raise ConfigError(virtual)
        data = self.data_dir.resolve()
        if path == data or data.is_relative_to(path):
            raise ConfigError("That folder holds KIMAs' own data directory; choose a folder of documents.")
        if path.is_relative_to(data):
            raise ConfigError(
                "That folder is inside KIMAs' own data directory; choose a folder of documents "
                "(files dropped onto a collection are kept there already)."
            )
        return path

    def add_folder(self, name: str, folder: str | Path) -> tuple[Path, list[Path]]:
        """Add ``folder`` to collection ``name``; returns it and the collection's folders."""
        path = self.check_folder(str(folder))
        settings = self._ensure(name, lambda c: _adding(c, path))
        return path, [Path(f) for f in settings.folders]

    def add_uploads(
        self, name: str, files: Sequence[tuple[Path, str]], *, keep_folders: bool = False
    ) -> list[CopiedFile]:
        """Copy uploaded ``(temporary path, original name)`` files into the collection's managed folder;
        ``keep_folders``: the names are paths inside an uploaded folder, kept as subfolders."""
        if not files:
            raise ConfigError("No files were received.")
        target = self.uploads_root / check_collection_name(name)
        copied = copy_uploads(target, files, keep_folders=keep_folders)
        self._ensure(name, lambda c: _adding(c, target))
        return copied

    def remove(self, name: str, remove_index: Callable[[str], None]) -> None:
        """Delete ``name``'s index (``remove_index``), its config entry and its uploaded files."""
        in_config = name in self._config.current.collections
        if not in_config and name not in self.infos():
            raise CollectionNotFoundError(f"There is no collection named '{name}'.")
        try:
            remove_index(name)
        except CollectionNotFoundError:
            if not in_config:
                raise
        if in_config:
            self._config.update(lambda c: _with(c, name, None))
        uploads = self.uploads_root / name
        if uploads.is_dir() and uploads.resolve().parent == self.uploads_root.resolve():
            shutil.rmtree(uploads)

    def save_settings(self, name: str, values: dict[str, Any]) -> None:
        """Routing settings of ``name`` (description, examples, weights, language, strategy), validated."""
        strategy = values.get("strategy", "")
        if strategy and strategy not in strategy_names():
            raise ConfigError(f"Unknown rewrite strategy '{strategy}'.")

        def change(current: CollectionConfig) -> CollectionConfig:
            try:
                return CollectionConfig.model_validate({**current.model_dump(), **values})
            except ValidationError as err:
                problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors())
                raise ConfigError(f"Invalid setting in collections.{name}: {problems}") from None

        self._ensure(name, change)


def _adding(settings: CollectionConfig, folder: Path) -> CollectionConfig:
    if str(folder) in settings.folders:
        return settings
    return settings.model_copy(update={"folders": [*settings.folders, str(folder)]})
