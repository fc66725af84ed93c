"""``DesktopSession``: everything the desktop app does, as plain methods the UI calls.

The UI (``ui/``) only lays out widgets and turns these values into markup; all decisions live here:
chat turns and their history (which feeds the context manager), stopping and regenerating answers,
collections (create, remove, uploads copied into ``<data dir>/uploads/<collection>/``, folders watched in
place, per-collection routing settings), background indexing with progress, a folder watcher that keeps
collections live, app settings saved to the config file, and loading models in the background.

Errors reach people as sentences: a ``KimasError``'s message as it is, anything else as one line that
points to the log file, where the traceback goes.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import shutil
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

from pydantic import ValidationError

from kimas_desktop.app_settings import (
    SettingsForm,
    apply_settings,
    describe_models,
    preset_config,
    settings_form,
)
from kimas_desktop.config import CollectionConfig, Config, save_config
from kimas_desktop.conversation import AnswerRun, Conversation, Turn
from kimas_desktop.errors import CollectionNotFoundError, ConfigError, KimasError
from kimas_desktop.events import CitationsReady, QuoteReady, TraceReady
from kimas_desktop.index_jobs import Activity, IndexingState, IndexJobs, IndexService
from kimas_desktop.pipeline import Pipeline
from kimas_desktop.protocols import ChunkSearcher
from kimas_desktop.strategies import strategy_names
from kimas_desktop.types import CollectionInfo, FileProblem, IndexReport
from kimas_desktop.uploads import CopiedFile, check_collection_name, copy_uploads

__all__ = [
    "Backends",
    "CollectionStatus",
    "DesktopSession",
    "ModelState",
    "Outcome",
    "SettingsForm",
    "Watcher",
    "source_token",
]

log = logging.getLogger(__name__)
T = TypeVar("T")


class Watcher(Protocol):
    """Keeps collections in step with their folders (``indexer.FolderWatcher``)."""

    def start(self) -> None: ...

    def stop(self) -> None: ...


WatcherFactory = Callable[
    [Config, IndexService, Mapping[str, Sequence[Path]], Callable[[IndexReport], None]], Watcher
]


@dataclass(frozen=True)
class Backends:
    """What the session needs from outside the core; ``cli/serve_cmd.py`` wires the real ones.

    Factories take the current ``Config`` so a settings change (another chat or embedding model) reaches
    the next answer and the next indexing run without a restart.
    """

    searcher: ChunkSearcher
    index_service: Callable[[Config], IndexService]
    watcher: WatcherFactory
    pipeline: Callable[[Config], Pipeline]
    warm_up: Callable[[Config], None]  # load the chat and embedding models; raises ModelError


@dataclass(frozen=True)
class Outcome:
    ok: bool
    message: str


@dataclass(frozen=True)
class ModelState:
    phase: Literal["loading", "ready", "failed"]
    message: str


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


def source_token(path: str) -> str:
    """A stable, opaque handle for a source file (used in links that open it)."""
    return hashlib.sha256(path.encode("utf-8")).hexdigest()[:24]


@dataclass
class _Sources:
    by_token: dict[str, str] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


class DesktopSession:
    """One running desktop app. Cheap to build; ``start()`` begins loading models and watching folders."""

    def __init__(self, *, config: Config, config_path: Path, data_dir: Path, backends: Backends) -> None:
        self._config = config
        self.config_path = config_path
        self.data_dir = data_dir
        self.log_file = data_dir / "kimas.log"
        self._b = backends
        self._lock = threading.RLock()
        self._version = 0
        self._jobs = IndexJobs(self._changed, log_hint=str(self.log_file))
        self._pipe: tuple[Config, Pipeline] | None = None
        self._runs: dict[str, AnswerRun] = {}
        self._sources = _Sources()
        self._model = ModelState("loading", "Loading model…")
        self._warm_generation = 0
        self._watcher: Watcher | None = None

    # -- lifecycle ------------------------------------------------------------------------------

    @property
    def config(self) -> Config:
        return self._config

    @property
    def uploads_root(self) -> Path:
        return self.data_dir / "uploads"

    def start(self, *, sync: bool = True) -> None:
        """Load models in the background, catch up on edits made while closed, and watch folders."""
        self._warm_up_async(self._config)
        if sync:
            for name, folders in self._folders_by_collection().items():
                if folders:
                    self._submit(name, folders, "start-up check")
        self._restart_watcher()

    def close(self) -> None:
        for run in list(self._runs.values()):
            run.stop()
        self._jobs.close()
        self._stop_watcher()

    @property
    def version(self) -> int:
        """Goes up whenever something the Knowledge tab shows may have changed."""
        return self._version

    def _changed(self) -> None:
        with self._lock:
            self._version += 1

    def _explain(self, err: BaseException, doing: str) -> str:
        if isinstance(err, KimasError):  # expected: the sentence is enough on screen, details in the log
            log.info("%s: %s", doing, err, exc_info=err)
            return str(err)
        log.error("%s failed unexpectedly", doing, exc_info=err)
        return (
            f"Something went wrong while {doing} ({type(err).__name__}: {err}). "
            f"Details are in {self.log_file}."
        )

    def _attempt(self, doing: str, action: Callable[[], str]) -> Outcome:
        try:
            return Outcome(True, action())
        except Exception as err:
            return Outcome(False, self._explain(err, doing))

    # -- models ---------------------------------------------------------------------------------

    def model_state(self) -> ModelState:
        return self._model

    def _warm_up_async(self, config: Config) -> None:
        with self._lock:
            self._warm_generation += 1
            generation = self._warm_generation
            self._model = ModelState("loading", f"Loading model… ({describe_models(config)})")

        def work() -> None:
            try:
                self._b.warm_up(config)
                state = ModelState("ready", f"Ready: {describe_models(config)}.")
            except Exception as err:
                state = ModelState(
                    "failed", "The model could not be loaded: " + self._explain(err, "loading the model")
                )
            with self._lock:
                if generation == self._warm_generation:
                    self._model = state

        threading.Thread(target=work, name="kimas-warm-up", daemon=True).start()

    def _pipeline(self) -> Pipeline:
        with self._lock:
            if self._pipe is None or self._pipe[0] is not self._config:
                self._pipe = (self._config, self._b.pipeline(self._config))
            return self._pipe[1]

    # -- chat -----------------------------------------------------------------------------------

    def new_conversation(self) -> Conversation:
        return Conversation()

    def has_knowledge(self) -> bool:
        try:
            return any(c.chunks > 0 for c in self._b.searcher.collections())
        except Exception as err:
            self._explain(err, "listing collections")
            return False

    def ask(self, conv: Conversation, question: str, *, decline: bool = True) -> Iterator[Turn]:
        """Answer ``question`` in ``conv``: yields the (same, updated) turn after every change.
        ``decline=False``: the model answers even when the documents were judged not to."""
        question = question.strip()
        if not question:
            return
        self.stop(conv)
        history = conv.history()
        loading = self._model.phase == "loading"
        turn = Turn(question, status="Loading the model…" if loading else "Thinking…")
        conv.turns.append(turn)
        yield turn
        run = AnswerRun(
            lambda cancel: self._pipeline().ask(question, history, cancel=cancel, decline=decline)
        ).start()
        self._runs[conv.id] = run
        try:
            for item in run.events():
                if isinstance(item, BaseException):
                    turn.state, turn.status = "failed", ""
                    turn.error = self._explain(item, "answering")
                    yield turn
                    return
                turn.apply(item)
                if isinstance(item, QuoteReady):  # its source can be opened while the answer streams
                    self._remember_sources(q.chunk.source for q in item.quotes)
                elif isinstance(item, CitationsReady):
                    self._remember_sources(c.chunk.source for c in item.citations)
                elif isinstance(item, TraceReady):
                    self._remember_sources(h.chunk.source for h in item.trace.evidence)
                yield turn
            if turn.state == "running":  # ended without Done: stopped, or the pipeline just returned
                turn.state = "stopped" if run.stopped else "done"
                turn.status = ""
                yield turn
        finally:
            run.stop()
            if self._runs.get(conv.id) is run:
                del self._runs[conv.id]

    def regenerate(self, conv: Conversation) -> Iterator[Turn]:
        """Ask the last question again (its old answer is dropped from the history). When that answer
        was a decline (the documents do not say), the model is let to try this time."""
        self.stop(conv)
        if not conv.turns:
            return
        last = conv.turns.pop()
        declined = last.answerability is not None and not last.answerability.answerable
        yield from self.ask(conv, last.question, decline=not declined)

    def stop(self, conv: Conversation) -> None:
        run = self._runs.get(conv.id)
        if run is not None:
            run.stop()

    def new_chat(self, conv: Conversation) -> None:
        self.stop(conv)
        conv.turns.clear()

    def _remember_sources(self, paths: Iterator[str] | Sequence[str]) -> None:
        with self._sources.lock:
            for p in paths:
                self._sources.by_token[source_token(p)] = p

    def source_file(self, token: str) -> Path | None:
        """The cited file behind ``token``, if it still exists inside a collection's folder."""
        with self._sources.lock:
            path = self._sources.by_token.get(token)
        if path is None:
            return None
        file = Path(path).resolve()
        if not file.is_file():
            return None
        for folders in self._folders_by_collection().values():
            for folder in folders:
                if file.is_relative_to(folder.resolve()):
                    return file
        return None

    # -- knowledge ------------------------------------------------------------------------------

    def uploads_dir(self, collection: str) -> Path:
        return self.uploads_root / check_collection_name(collection)

    def _store_infos(self) -> dict[str, CollectionInfo]:
        try:
            return {c.name: c for c in self._b.searcher.collections()}
        except Exception as err:
            self._explain(err, "listing collections")
            return {}

    def _folders_by_collection(
        self, infos: Mapping[str, CollectionInfo] | None = None
    ) -> dict[str, list[Path]]:
        infos = self._store_infos() if infos is None else infos
        out: dict[str, list[Path]] = {}
        for name in sorted(set(self._config.collections) | set(infos)):
            if name in self._config.collections:
                out[name] = [Path(f) for f in self._config.collections[name].folders]
            else:
                out[name] = [Path(f) for f in infos[name].folders]
        return out

    def collections(self) -> list[CollectionStatus]:
        infos = self._store_infos()
        out = []
        for name, folders in self._folders_by_collection(infos).items():
            info = infos.get(name)
            report = self._jobs.reports.get(name)
            problems = info.problems if info is not None else (report.problems if report else ())
            out.append(
                CollectionStatus(
                    name=name,
                    folders=tuple(str(f) for f in folders),
                    uploads_folder=str(self.uploads_root / name),
                    files=info.files if info else 0,
                    chunks=info.chunks if info else 0,
                    embedding_model=info.embedding_model if info else "",
                    updated_at=info.updated_at if info else None,
                    problems=tuple(problems),
                    settings=self._config.collection(name),
                    indexed=info is not None,
                )
            )
        return out

    def collection_names(self) -> list[str]:
        return list(self._folders_by_collection())

    def indexing_state(self) -> IndexingState:
        return self._jobs.state()

    def activity(self) -> list[Activity]:
        return self._jobs.activity()

    def _set_config(self, config: Config) -> None:
        """Save ``config`` and make it current (the next answer uses it)."""
        save_config(config, self.config_path)
        with self._lock:
            self._config = config
        self._changed()

    def _with_collection(self, name: str, settings: CollectionConfig) -> Config:
        collections = {k: v.model_dump() for k, v in self._config.collections.items()}
        collections[name] = settings.model_dump()
        return self._config.updated(collections=collections)

    def _ensure_collection(self, name: str) -> CollectionConfig:
        """Make ``name`` a configured collection (keeping the folders the store knows), saved."""
        name = check_collection_name(name)
        if name in self._config.collections:
            return self._config.collections[name]
        info = self._store_infos().get(name)
        settings = CollectionConfig(folders=list(info.folders) if info else [])
        self._set_config(self._with_collection(name, settings))
        return settings

    def create_collection(self, name: str) -> Outcome:
        def act() -> str:
            clean = check_collection_name(name)
            if clean in self.collection_names():
                raise ConfigError(f"There is already a collection named '{clean}'.")
            self._ensure_collection(clean)
            return (
                f"Collection '{clean}' created. Now drop files or a folder onto it, or add a folder to watch."
            )

        return self._attempt("creating the collection", act)

    def remove_collection(self, name: str) -> Outcome:
        def act() -> str:
            if name not in self.collection_names():
                raise CollectionNotFoundError(f"There is no collection named '{name}'.")
            self._jobs.cancel(name)
            with contextlib.suppress(CollectionNotFoundError):  # created but never indexed
                self._jobs.tracked(self._b.index_service(self._config), "remove").remove(name)
            if name in self._config.collections:
                collections = {k: v.model_dump() for k, v in self._config.collections.items() if k != name}
                self._set_config(self._config.updated(collections=collections))
            uploads = self.uploads_root / name
            if uploads.is_dir() and uploads.resolve().parent == self.uploads_root.resolve():
                shutil.rmtree(uploads)
            self._restart_watcher()
            self._changed()
            return f"Collection '{name}' removed (folders you added stay where they are on disk)."

        return self._attempt("removing the collection", act)

    def add_uploads(self, name: str, files: Sequence[tuple[Path, str]]) -> Outcome:
        """Copy uploaded ``(temporary path, original name)`` files into the collection and index them."""

        def act() -> str:
            if not files:
                raise ConfigError("No files were received.")
            settings = self._ensure_collection(name)
            target = self.uploads_dir(name)
            copied: list[CopiedFile] = copy_uploads(target, files)
            if str(target) not in settings.folders:
                settings = settings.model_copy(update={"folders": [*settings.folders, str(target)]})
                self._set_config(self._with_collection(name, settings))
                self._restart_watcher()
            self._submit(name, [Path(f) for f in settings.folders], "upload")
            unchanged = sum(c.status == "unchanged" for c in copied)
            renamed = [c for c in copied if c.status == "renamed"]
            msg = f"{len(copied) - unchanged} new file(s) copied into '{name}'"
            msg += f" ({unchanged} already there)" if unchanged else ""
            msg += "; indexing in the background."
            if renamed:
                msg += " Renamed because the name was taken: " + ", ".join(
                    f"{c.source_name} → {c.path.name}" for c in renamed[:5]
                )
            return msg

        return self._attempt("adding the files", act)

    def add_folder(self, name: str, folder: str) -> Outcome:
        """Watch an existing local folder in place as part of collection ``name``."""

        def act() -> str:
            if not folder.strip():
                raise ConfigError("Type the full path of a folder on this computer.")
            path = Path(folder.strip()).expanduser()
            if not path.is_absolute():
                raise ConfigError(f"'{folder}' is not a full path: start it with / (or a drive letter).")
            if not path.is_dir():
                raise ConfigError(f"There is no folder at {path}.")
            path = path.resolve()
            if path == self.data_dir.resolve() or self.data_dir.resolve().is_relative_to(path):
                raise ConfigError(
                    "That folder holds KIMAs' own data directory; choose a folder of documents."
                )
            settings = self._ensure_collection(name)
            if str(path) not in settings.folders:
                settings = settings.model_copy(update={"folders": [*settings.folders, str(path)]})
                self._set_config(self._with_collection(name, settings))
                self._restart_watcher()
            self._submit(name, [Path(f) for f in settings.folders], "new folder")
            return f"Watching {path} for '{name}'; indexing in the background."

        return self._attempt("adding the folder", act)

    def reindex(self, name: str) -> Outcome:
        def act() -> str:
            folders = self._folders_by_collection().get(name)
            if folders is None:
                raise CollectionNotFoundError(f"There is no collection named '{name}'.")
            if not folders:
                raise ConfigError(f"'{name}' has no files yet: drop some onto it or add a folder.")
            self._submit(name, folders, "re-index")
            return f"Re-indexing '{name}' in the background."

        return self._attempt("re-indexing", act)

    def _submit(self, name: str, folders: Sequence[Path], trigger: str) -> None:
        self._jobs.submit(name, folders, self._b.index_service(self._config), trigger)

    def collection_settings(self, name: str) -> CollectionConfig:
        return self._config.collection(name)

    @staticmethod
    def strategy_choices() -> list[str]:
        return ["", *strategy_names()]

    def save_collection_settings(
        self,
        name: str,
        *,
        description: str,
        examples: Sequence[str],
        mixin_weight: float,
        scale: float,
        language: str,
        strategy: str,
    ) -> Outcome:
        def act() -> str:
            if strategy and strategy not in strategy_names():
                raise ConfigError(f"Unknown rewrite strategy '{strategy}'.")
            current = self._ensure_collection(name)
            data: dict[str, Any] = {
                **current.model_dump(),
                "description": description.strip(),
                "examples": [e.strip() for e in examples if e.strip()],
                "mixin_weight": mixin_weight,
                "scale": scale,
                "language": language.strip(),
                "strategy": strategy,
            }
            settings = _validated(lambda: CollectionConfig.model_validate(data), f"collections.{name}")
            self._set_config(self._with_collection(name, settings))
            return f"Settings of '{name}' saved."

        return self._attempt("saving the collection settings", act)

    # -- watching -------------------------------------------------------------------------------

    def _on_watch_report(self, report: IndexReport) -> None:
        self._changed()

    def _stop_watcher(self) -> None:
        with self._lock:
            watcher, self._watcher = self._watcher, None
        if watcher is not None:
            try:
                watcher.stop()
            except Exception as err:
                self._explain(err, "stopping the folder watcher")

    def _restart_watcher(self) -> None:
        self._stop_watcher()
        if not self._config.indexer.watch:
            return
        folders = {n: fs for n, fs in self._folders_by_collection().items() if fs}
        if not folders:
            return
        service = self._jobs.tracked(self._b.index_service(self._config), "watcher")
        try:
            watcher = self._b.watcher(self._config, service, folders, self._on_watch_report)
            watcher.start()
        except Exception as err:
            self._jobs.note(
                "", "Folders are not watched for changes: " + self._explain(err, "watching folders"), "error"
            )
            return
        with self._lock:
            self._watcher = watcher

    # -- settings -------------------------------------------------------------------------------

    def settings(self) -> SettingsForm:
        return settings_form(self._config)

    def preset_settings(self, preset: str) -> SettingsForm:
        """The form as ``preset`` would fill it (the models stay as they are)."""
        try:
            return settings_form(preset_config(self._config, preset))
        except KimasError:
            return self.settings()

    def save_settings(self, form: SettingsForm) -> Outcome:
        def act() -> str:
            current = self._config
            new = apply_settings(current, form)
            self._set_config(new)
            msg = f"Settings saved to {self.config_path}."
            if (new.chat, new.embedding, new.rerank) != (current.chat, current.embedding, current.rerank):
                self._warm_up_async(new)
                msg += " Loading the model…"
            if new.embedding != current.embedding:
                self._restart_watcher()
                msg += (
                    " Collections built with the previous embedding model must be re-indexed "
                    "(Knowledge tab → Re-index) before they can be searched."
                )
            return msg

        return self._attempt("saving the settings", act)


def _validated(build: Callable[[], T], origin: str) -> T:
    try:
        return build()
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in err.errors())
        raise ConfigError(f"Invalid setting in {origin}: {problems}") from None
