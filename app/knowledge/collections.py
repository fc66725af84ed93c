"""``Knowledge``: the collections and their folders, with one set of rules for the app and the CLI.

A collection is an id in the config (its name, folders and routing settings) and, once indexed, tables in
the store. Its name is any text the user types and can change; its id never does
(``app.knowledge.collection_names``), and every method here takes either. Every change of the config goes
through ``ConfigStore.update``. The rules: a collection name is checked and unique; a folder must be a full path to an existing folder that does not hold KIMAs' own data directory;
uploads live in ``<data dir>/uploads/<collection id>/`` and go when the collection goes; a folder stops
being watched without the collection going (its files leave the index at the next sync). A store that cannot
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

from app.knowledge.collection_names import check_display_name, new_collection_id, owner_of
from app.knowledge.file_systems import virtual_file_system
from app.knowledge.uploads import CopiedFile, copy_uploads
from app.settings.config_store import ConfigStore
from kimas_desktop.config import CollectionConfig, Config
from kimas_desktop.errors import CollectionNotFoundError, ConfigError, IndexingError, KimasError
from kimas_desktop.protocols import ChunkSearcher
from kimas_desktop.retrieval.strategies import strategy_names
from kimas_desktop.types import CollectionInfo, FileProblem

__all__ = ["CollectionStatus", "Knowledge", "not_found"]


@dataclass(frozen=True)
class CollectionStatus:
    name: str  # its id
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
    title: str = ""  # the name the user sees ('' : its id)

    @property
    def shown(self) -> str:
        return self.title or self.name


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
            error = f"{type(err).__name__}: {err}"
            raise IndexingError(
                f"The collection store cannot be read ({error}).",
                code="store_unreadable",
                values={"error": error},
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
        """The collections' ids."""
        return list(self.folders_by_collection())

    def title(self, cid: str) -> str:
        """The name collection ``cid`` shows (its id when it was never given another)."""
        return self._config.current.collection(cid).title or cid

    def titles(self, ids: Sequence[str] | None = None) -> dict[str, str]:
        """Id → shown name, of every collection (or of ``ids``)."""
        return {cid: self.title(cid) for cid in (self.names() if ids is None else ids)}

    def find(self, name: str) -> str | None:
        """The id of the collection ``name`` names (its id or its name, any case); None: none does."""
        return owner_of(name, self.titles())

    def resolve(self, name: str) -> str:
        """Like ``find``, but a ``CollectionNotFoundError`` when no collection is named so."""
        cid = self.find(name)
        if cid is None:
            raise not_found(name.strip())
        return cid

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
            title=self.title(name),
        )

    def settings(self, name: str) -> CollectionConfig:
        return self._config.current.collection(name)

    # -- changing -----------------------------------------------------------------------------------

    def _id_for(self, name: str) -> tuple[str, str]:
        """(id, title) of the collection ``name`` names, or of a new one so named (its name checked)."""
        cid = self.find(name)
        if cid is not None:
            return cid, ""
        title = check_display_name(name)
        cid = new_collection_id(title, self.names())
        return cid, "" if title == cid else title

    def _ensure(
        self, name: str, change: Callable[[CollectionConfig], CollectionConfig]
    ) -> tuple[str, CollectionConfig]:
        """Apply ``change`` to the collection ``name`` names, a new one when none does (made a configured
        one, keeping the folders the store knows), saved in one update; its id and settings now."""
        cid, title = self._id_for(name)
        known = None if cid in self._config.current.collections else self.infos().get(cid)
        out: list[CollectionConfig] = []

        def apply(config: Config) -> Config:
            if cid in config.collections:
                current = config.collections[cid]
            else:
                current = CollectionConfig(title=title, folders=list(known.folders) if known else [])
            out.append(change(current))
            return _with(config, cid, out[-1])

        self._config.update(apply)
        return cid, out[-1]

    def create(self, name: str) -> str:
        """A new collection named ``name`` (any text); its id."""
        clean = check_display_name(name)
        if self.find(clean) is not None:
            raise _taken(clean)
        cid, _ = self._ensure(clean, lambda c: c)
        return cid

    def rename(self, name: str, new_name: str) -> tuple[str, str]:
        """Give the collection ``name`` names the name ``new_name``: its (unchanged) id and its new name.
        Nothing is re-indexed: the store, the uploads folder and the routing know it by its id."""
        cid = self.resolve(name)
        title = check_display_name(new_name)
        other = self.find(title)
        if other is not None and other != cid:
            raise _taken(title)
        self._ensure(cid, lambda c: c.model_copy(update={"title": "" if title == cid else title}))
        return cid, title

    def unwatch(self, name: str, folder: str | Path) -> tuple[str, Path, list[Path]]:
        """Stop watching ``folder`` as part of the collection ``name`` names (the collection stays; files
        on disk are untouched): its id, the folder as it was recorded, and the folders left. The next sync
        (``folders`` no longer lists it) takes that folder's files out of the index."""
        cid = self.resolve(name)
        folders = self.folders(cid) or []
        wanted = Path(str(folder).strip()).expanduser()
        match = next((f for f in folders if f == wanted or f.resolve() == wanted.resolve()), None)
        if match is None:
            listed = ", ".join(str(f) for f in folders) or "none"
            title = self.title(cid)
            raise ConfigError(
                f"'{folder}' is not a folder of '{title}' (its folders: {listed}).",
                code="folder_not_watched",
                values={"folder": folder, "name": title, "listed": listed},
            )
        if match.resolve() == (self.uploads_root / cid).resolve():
            raise ConfigError(
                "That is the folder of the files dropped onto this collection: remove them one by one in "
                "its file list, or remove the collection."
            )
        _, settings = self._ensure(
            cid, lambda c: c.model_copy(update={"folders": [f for f in c.folders if Path(f) != match]})
        )
        return cid, match, [Path(f) for f in settings.folders]

    def check_folder(self, folder: str) -> Path:
        """The folder as a resolved path, if it may join a collection; else a ``ConfigError``."""
        if not folder.strip():
            raise ConfigError("Type the full path of a folder on this computer.", code="folder_empty")
        path = Path(folder.strip()).expanduser()
        if not path.is_absolute():
            raise ConfigError(
                f"'{folder}' is not a full path: start it with / (or a drive letter).",
                code="folder_not_full_path",
                values={"folder": folder},
            )
        if not path.is_dir():
            raise ConfigError(f"There is no folder at {path}.", code="no_folder_at", values={"path": path})
        path = path.resolve()
        try:
            str(path).encode("utf-8")
        except UnicodeEncodeError:
            raise ConfigError(
                "That folder's name is not valid UTF-8 text, so it cannot be kept in the settings; rename it.",
                code="folder_not_utf8",
            ) from None
        virtual = virtual_file_system(path)
        if virtual is not None:
            raise ConfigError(virtual)
        data = self.data_dir.resolve()
        if path == data or data.is_relative_to(path):
            raise ConfigError(
                "That folder holds KIMAs' own data directory; choose a folder of documents.",
                code="folder_holds_data",
            )
        if path.is_relative_to(data):
            raise ConfigError(
                "That folder is inside KIMAs' own data directory; choose a folder of documents "
                "(files dropped onto a collection are kept there already).",
                code="folder_in_data",
            )
        return path

    def add_folder(self, name: str, folder: str | Path) -> tuple[Path, list[Path]]:
        """Add ``folder`` to collection ``name``; returns it and the collection's folders."""
        path = self.check_folder(str(folder))
        _, settings = self._ensure(name, lambda c: _adding(c, path))
        return path, [Path(f) for f in settings.folders]

    def add_uploads(
        self, name: str, files: Sequence[tuple[Path, str]], *, keep_folders: bool = False
    ) -> list[CopiedFile]:
        """Copy uploaded ``(temporary path, original name)`` files into the collection's managed folder;
        ``keep_folders``: the names are paths inside an uploaded folder, kept as subfolders."""
        if not files:
            raise ConfigError("No files were received.")
        cid, _ = self._id_for(name)
        target = self.uploads_root / cid
        copied = copy_uploads(target, files, keep_folders=keep_folders)
        self._ensure(name, lambda c: _adding(c, target))
        return copied

    def remove(self, name: str, remove_index: Callable[[str], None]) -> None:
        """Delete ``name``'s index (``remove_index``), its config entry and its uploaded files."""
        name = self.find(name) or name
        in_config = name in self._config.current.collections
        if not in_config and name not in self.infos():
            raise not_found(name)
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


def not_found(name: str) -> CollectionNotFoundError:
    """No collection is named ``name`` (with its code, ``KimasError.code``)."""
    english = f"There is no collection named '{name}'."
    return CollectionNotFoundError(english, code="no_collection_named", values={"name": name})


def _taken(name: str) -> ConfigError:
    english = f"There is already a collection named '{name}'; choose another name."
    return ConfigError(english, code="name_taken", values={"name": name})
