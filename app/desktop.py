"""``DesktopApp``: one running desktop app, as the UI sees it.

It holds the chat (``chat``: a ``ChatSession``), the collections (``knowledge``), indexing (``indexing``:
the one scheduler, which the folder watcher feeds), the files answers cited (``sources``), the models'
loading state and the Settings tab. Every part comes from one ``Runtime`` and one ``ConfigStore``.
``history`` keeps the conversations (``ChatHistory``); ``evaluation`` the test sets and runs of the
Evaluation tab (issue 26), which one job at a time makes or runs in the background (``EvalJob``).
Actions the UI triggers return an ``Outcome``: a ``KimasError``'s sentence as it is, anything else as one
line that points to the log file, where the traceback goes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from app.chats import ChatHistory
from app.config_store import ConfigStore
from app.desktop_settings import SettingsActions
from app.documents import DISMISSED_FILE, Dismissals, Document, Documents
from app.evaluation import Evaluation
from app.indexing import FolderFeed, describe_damage
from app.knowledge import Knowledge
from app.model_downloads import ModelDownloads
from app.online_sources import OnlineSourcesAdmin
from app.outcomes import ModelState, Outcome
from app.runtime import Runtime
from app.scheduler import IndexScheduler
from app.session import ChatSession
from app.settings_form import describe_models
from app.sources import SourceRegistry
from kimas_desktop.config import Config
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import CollectionNotFoundError, ConfigError, IndexDamagedError, KimasError
from kimas_desktop.retrieval.strategies import strategy_names

__all__ = ["DesktopApp", "EvalJob", "ModelState", "Outcome"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EvalJob:
    """The Evaluation tab's work in the background: a test set being made or a run going (``kind``), or
    idle (``kind`` ""), with how the last one ended; ``ended`` counts the ended ones (the tab redraws)."""

    kind: Literal["", "set", "run"] = ""  # a test set being made, a run going, or idle
    done: int = 0
    total: int = 0
    question: str = ""  # the last one run
    message: str = ""  # how the last one ended
    ok: bool = True
    ended: int = 0
    stopping: bool = False  # Cancel was pressed; the run ends after its current question


class DesktopApp(SettingsActions):
    """Cheap to build; ``start()`` begins loading models, catching up and watching folders."""

    def __init__(self, runtime: Runtime, config: ConfigStore) -> None:
        self.runtime = runtime
        self.config_store = config
        self.config_path = config.path
        self.data_dir = runtime.paths.data_dir
        self.log_file = runtime.paths.log_file
        self._lock = threading.Lock()
        self._version = 0
        self._model = ModelState("loading", "Loading model…")
        self._warm_generation = 0
        self._feed: FolderFeed | None = None
        dismissals = Dismissals(self.data_dir / DISMISSED_FILE)
        self.knowledge = Knowledge(
            config,
            lambda: runtime.store(config.current),
            self.data_dir,
            hides=dismissals.hides,
            on_damaged=lambda name: self.indexing.repair(name),
        )
        self.documents = Documents(
            lambda: runtime.store(config.current),
            self.knowledge.folders,
            self.knowledge.uploads_root,
            dismissals,
        )
        self.indexing = IndexScheduler(
            lambda: runtime.indexer(config.current),
            self.knowledge.folders,
            on_change=self._changed,
            debounce_s=config.current.indexer.debounce_s,
            log_hint=str(self.log_file),
            hides=dismissals.hides,
        )
        self.sources = SourceRegistry(self._all_folders)
        self.online = OnlineSourcesAdmin(config, runtime.online_source)
        self.history = ChatHistory(self.data_dir)
        self.evaluation = Evaluation(runtime, lambda: config.current, config.path)
        self._eval = EvalJob()
        self._eval_cancel = CancelToken()
        self.models = ModelDownloads(runtime.paths, explain=self.explain)
        self.chat = ChatSession(
            pipeline=lambda: runtime.pipeline(config.current),
            loading=lambda: self._model.phase == "loading",
            explain=self.explain,
            on_sources=self.sources.remember,
            persist=self.history.save,
            answering=self.indexing.answering,
        )

    @property
    def config(self) -> Config:
        return self.config_store.current

    # -- lifecycle ----------------------------------------------------------------------------------

    def start(self, *, sync: bool = True) -> None:
        """Load models in the background, catch up on edits made while closed, and watch folders."""
        self._warm_up_async(self.config)
        if sync:
            for name, folders in self._folders_or_none().items():
                if folders:
                    self.indexing.submit(name, "start-up check")
        self._watch()

    def close(self) -> None:
        self._eval_cancel.cancel()
        self.models.close()
        self.chat.close()
        if self._feed is not None:
            self._feed.close()
        self.indexing.close()
        self.runtime.close()

    @property
    def version(self) -> int:
        """Goes up whenever something the Knowledge tab shows may have changed."""
        return self._version

    def _changed(self) -> None:
        with self._lock:
            self._version += 1

    def explain(self, err: BaseException, doing: str) -> str:
        if isinstance(err, IndexDamagedError) and err.collection:  # rebuilt now, not left to the user
            log.warning("%s: %s", doing, err)
            self.indexing.repair(err.collection)
            return describe_damage(err)
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
            return Outcome(False, self.explain(err, doing))

    # -- models -------------------------------------------------------------------------------------

    def model_state(self) -> ModelState:
        return self._model

    def _warm_up_async(self, config: Config) -> None:
        with self._lock:
            self._warm_generation += 1
            generation = self._warm_generation
            self._model = ModelState("loading", f"Loading model… ({describe_models(config)})")

        def work() -> None:
            try:
                self.runtime.warm_up(config)
                state = ModelState("ready", f"Ready: {describe_models(config)}.")
            except Exception as err:
                state = ModelState(
                    "failed", "The model could not be loaded: " + self.explain(err, "loading the model")
                )
            with self._lock:
                if generation == self._warm_generation:
                    self._model = state

        threading.Thread(target=work, name="kimas-warm-up", daemon=True).start()

    # -- folders and watching -----------------------------------------------------------------------

    def _folders_or_none(self) -> dict[str, list[Path]]:
        """The collections' folders; a store that cannot be read counts only the configured ones (the
        Knowledge tab says why)."""
        try:
            return self.knowledge.folders_by_collection()
        except KimasError as err:
            self.explain(err, "listing collections")
            return {n: [Path(f) for f in c.folders] for n, c in self.config.collections.items()}

    def _all_folders(self) -> list[Path]:
        return [f for fs in self._folders_or_none().values() for f in fs]

    def _watch(self) -> None:
        """Watch the collections' folders as they are now (returns at once; no pending edit is lost)."""
        wanted = (
            {n: fs for n, fs in self._folders_or_none().items() if fs} if self.config.indexer.watch else {}
        )
        try:
            if self._feed is None:
                if not wanted:
                    return
                self._feed = self.runtime.watcher(self.indexing.touch)
            self._feed.watch(wanted)
        except Exception as err:
            self.indexing.note(
                "", "Folders are not watched for changes: " + self.explain(err, "watching folders"), "error"
            )

    # -- knowledge actions --------------------------------------------------------------------------

    def create_collection(self, name: str) -> Outcome:
        def act() -> str:
            clean = self.knowledge.create(name)
            self._changed()
            return (
                f"Collection '{clean}' created. Now drop files or a folder onto it, or add a folder to watch."
            )

        return self._attempt("creating the collection", act)

    def remove_collection(self, name: str) -> Outcome:
        def act() -> str:
            self.knowledge.remove(name, self.indexing.remove)
            self.documents.dismissals.forget_collection(name)
            self._watch()
            self._changed()
            return f"Collection '{name}' removed (folders you added stay where they are on disk)."

        return self._attempt("removing the collection", act)

    def add_uploads(
        self, name: str, files: Sequence[tuple[Path, str]], *, keep_folders: bool = False
    ) -> Outcome:
        """Copy uploaded ``(temporary path, original name)`` files into the collection and index them
        (``keep_folders``: the names are paths inside an uploaded folder)."""

        def act() -> str:
            copied = self.knowledge.add_uploads(name, files, keep_folders=keep_folders)
            self._watch()
            self.indexing.submit(name, "upload")
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
            path, _ = self.knowledge.add_folder(name, folder)
            self._watch()
            self.indexing.submit(name, "new folder")
            return f"Watching {path} for '{name}'; indexing in the background."

        return self._attempt("adding the folder", act)

    def reindex(self, name: str) -> Outcome:
        def act() -> str:
            folders = self.knowledge.folders(name)
            if folders is None:
                raise CollectionNotFoundError(f"There is no collection named '{name}'.")
            if not folders:
                raise ConfigError(f"'{name}' has no files yet: drop some onto it or add a folder.")
            self.indexing.submit(name, "re-index")
            return f"Re-indexing '{name}' in the background."

        return self._attempt("re-indexing", act)

    def reembed(self, name: str) -> Outcome:
        """Index ``name`` again from its files with the configured embedding model, into new tables; the
        old index keeps answering until the new one is complete."""

        def act() -> str:
            if self.knowledge.folders(name) is None:
                raise CollectionNotFoundError(f"There is no collection named '{name}'.")
            self.indexing.submit(name, "re-embed", reembed=True)
            return (
                f"Re-embedding '{name}' in the background; it keeps answering from its old index meanwhile."
            )

        return self._attempt("re-embedding", act)

    # -- one document -------------------------------------------------------------------------------

    def list_documents(self, name: str) -> list[Document]:
        """The files of collection ``name`` the index knows (raises ``KimasError``)."""
        return self.documents.list(name)

    def remove_document(self, name: str, path: str) -> Outcome:
        """Take one file out of the collection (an uploaded copy is deleted; a watched file stays on disk)."""

        def act() -> str:
            doc = self.documents.remove(name, path)
            self._changed()
            if doc.uploaded:
                return f"'{doc.name}' removed from '{name}' (its uploaded copy is deleted)."
            return (
                f"'{doc.name}' removed from the index of '{name}'. It is still in the watched folder "
                f"{Path(path).parent}: the next change there brings it back unless you delete or move it."
            )

        return self._attempt("removing the file", act)

    def reindex_document(self, name: str, path: str) -> Outcome:
        def act() -> str:
            doc = self.documents.reindex(name, path)
            self.indexing.submit(name, f"re-index {doc.name}")
            self._changed()
            return f"Reading '{doc.name}' again in the background."

        return self._attempt("re-indexing the file", act)

    def dismiss_problem(self, name: str, path: str) -> Outcome:
        def act() -> str:
            doc = self.documents.dismiss(name, path)
            self._changed()
            return f"The problem with '{doc.name}' is dismissed; it warns again only if it fails differently."

        return self._attempt("dismissing the problem", act)

    def pause_indexing(self) -> Outcome:
        self.indexing.pause()
        return Outcome(True, "Indexing paused; it goes on where it stopped when you resume.")

    def resume_indexing(self) -> Outcome:
        self.indexing.resume()
        return Outcome(True, "Indexing resumed.")

    def cancel_indexing(self) -> Outcome:
        self.indexing.cancel()
        return Outcome(True, "Indexing cancelled; what was indexed is kept, and Re-index goes on from it.")

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
        values = {
            "description": description.strip(),
            "examples": [e.strip() for e in examples if e.strip()],
            "mixin_weight": mixin_weight,
            "scale": scale,
            "language": language.strip(),
            "strategy": strategy,
        }

        def act() -> str:
            self.knowledge.save_settings(name, values)
            return f"Settings of '{name}' saved."

        return self._attempt("saving the collection settings", act)

    # -- evaluation (issue 26) ----------------------------------------------------------------------

    def eval_job(self) -> EvalJob:
        return self._eval

    def make_eval_set(self, size: int) -> Outcome:
        """Make a new test set from every collection with chunks, in the background."""

        def work(cancel: CancelToken) -> str:
            made = self.evaluation.build_set(size, progress=lambda done, total: self._eval_at(done, total))
            return f"A test set of {len(made.questions)} questions was made."

        return self._eval_start("set", size, work, "making the test set", "Making a test set…")

    def run_eval(self, preset: str, answers: int) -> Outcome:
        """Run the latest test set under ``preset`` ("configured": the settings in use), in the
        background; ``answers`` of its questions are also answered by the chat model."""
        test_set = self.evaluation.latest_set()
        if test_set is None:
            return self._eval_refuse("Make a test set first: there is nothing to run yet.")

        def work(cancel: CancelToken) -> str:
            run = self.evaluation.run(
                test_set.set_id,
                preset,
                answers=answers,
                cancel=cancel,
                progress=lambda done, total, question: self._eval_at(done, total, question),
            )
            if run.complete:
                return f"Run '{run.label}' is complete."
            return (
                f"Run '{run.label}' was {run.status} after {len(run.results)} of "
                f"{len(test_set.questions)} questions; it is listed, not plotted."
            )

        total = len(test_set.questions)
        return self._eval_start("run", total, work, "running the evaluation", f"Running {total} questions…")

    def cancel_eval(self) -> Outcome:
        if self._eval.kind != "run":
            return self._eval_refuse("No evaluation is running.")
        with self._lock:
            self._eval = replace(self._eval, stopping=True)
        self._eval_cancel.cancel()
        return Outcome(True, "Stopping the run after the current question…")

    def _eval_refuse(self, message: str) -> Outcome:
        """Say why nothing started (kept on the tab's progress line until the next start)."""
        with self._lock:
            if not self._eval.kind:
                self._eval = replace(self._eval, message=message, ok=False)
        return Outcome(False, message)

    def _eval_at(self, done: int, total: int, question: str = "") -> None:
        with self._lock:
            self._eval = replace(self._eval, done=done, total=total, question=question)

    def _eval_start(
        self,
        kind: Literal["set", "run"],
        total: int,
        work: Callable[[CancelToken], str],
        doing: str,
        started: str,
    ) -> Outcome:
        with self._lock:
            if self._eval.kind:
                return Outcome(False, "An evaluation is already going: wait for it or cancel it.")
            cancel = self._eval_cancel = CancelToken()
            self._eval = EvalJob(kind, 0, total, ended=self._eval.ended)

        def go() -> None:
            outcome = self._attempt(doing, lambda: work(cancel))
            with self._lock:
                self._eval = EvalJob(message=outcome.message, ok=outcome.ok, ended=self._eval.ended + 1)

        threading.Thread(target=go, name=f"kimas-eval-{kind}", daemon=True).start()
        return Outcome(True, started)
