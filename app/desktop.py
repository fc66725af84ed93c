"""``DesktopApp``: one running desktop app, as the UI sees it.

It holds the chat (``chat``: a ``ChatSession``), the collections (``knowledge``), indexing (``indexing``:
the one scheduler, which the folder watcher feeds), the files answers cited (``sources``), the models'
loading state (``model_loading``) and the Settings tab (``settings``: a ``Settings``). Every part comes
from one ``Runtime`` and one ``ConfigStore``. ``history`` keeps the conversations (``ChatHistory``);
``evaluation`` the test sets and runs of the Evaluation tab (issue 26), which one job at a time makes or
runs in the background (``evaluation_job``: an ``EvaluationJob``).
Actions the UI triggers return an ``ActionResult``: a ``KimasError``'s sentence as it is, anything else as
one line that points to the log file, where the traceback goes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from app.chat.history import ChatHistory
from app.chat.served_files import SourceRegistry
from app.chat.session import ChatSession
from app.evaluation.evaluation import Evaluation
from app.evaluation.job import EvalJob, EvaluationJob
from app.knowledge import said
from app.knowledge.collections import Knowledge, not_found
from app.knowledge.documents import DISMISSED_FILE, Dismissals, Document, Documents
from app.knowledge.indexing import FolderFeed
from app.knowledge.online_sources import OnlineSourcesAdmin
from app.knowledge.scheduler import IndexScheduler
from app.models.chat_build import ChatModelBuild
from app.models.downloads import ModelDownloads
from app.models.first_embedder import FirstEmbedder
from app.models.loading import ModelLoading
from app.models.multilingual import MultilingualSwitch
from app.outcomes import ActionResult, ModelState, Said, attempt, explained_said
from app.runtime import Runtime
from app.settings.config_store import ConfigStore
from app.settings.form import describe_models
from app.settings.settings import Settings
from app.settings.tools_access import ApiStatus
from kimas_desktop.config import Config
from kimas_desktop.errors import ConfigError, KimasError
from kimas_desktop.retrieval.strategies import strategy_names

__all__ = ["ActionResult", "DesktopApp", "EvalJob", "ModelState"]

log = logging.getLogger(__name__)


class DesktopApp:
    """Cheap to build; ``start()`` begins loading models, catching up and watching folders."""

    def __init__(self, runtime: Runtime, config: ConfigStore, llama_build: Path | None = None) -> None:
        self.runtime = runtime
        self.config_store = config
        self.config_path = config.path
        self.data_dir = runtime.paths.data_dir
        self.log_file = runtime.paths.log_file
        self._lock = threading.Lock()
        self._version = 0
        self.model_loading = ModelLoading(ChatModelBuild(llama_build) if llama_build is not None else None)
        self._feed: FolderFeed | None = None
        self._knowledge_parts(runtime, config)
        self.sources = SourceRegistry(self._all_folders)
        self.online = OnlineSourcesAdmin(config, runtime.online_source)
        self.api_status = ApiStatus()  # what kimas serve could open for the API (ui.server.api_switch)
        self.history = ChatHistory(self.data_dir)
        self.evaluation = Evaluation(runtime, lambda: config.current, config.path)
        self.evaluation_job = EvaluationJob(self.evaluation, self.explain)
        self.models = ModelDownloads(runtime.paths, explain=self.explain_said)
        self.settings = Settings(
            runtime=runtime,
            config_store=config,
            catalog_file=lambda: self.models.catalog_file,
            knowledge=self.knowledge,
            indexing=self.indexing,
            loading=self.model_loading,
            changed=self._changed,
            explain=self.explain_said,
        )
        self.multilingual = MultilingualSwitch(  # the one click to the multilingual embedder (issue 42)
            runtime.paths,
            self.settings,
            config=lambda: config.current,
            loading=self.model_loading.state,
            catalog_file=lambda: self.models.catalog_file,
            explain=self.explain_said,
        )
        self.chat = ChatSession(
            pipeline=lambda: runtime.pipeline(config.current),
            model_alone=lambda: runtime.model_alone(config.current),
            loading=lambda: self.model_loading.state().phase == "loading",
            explain=self.explain_said,
            on_sources=self.sources.remember,
            persist=self.history.save,
            answering=self.indexing.answering,
        )

    def _knowledge_parts(self, runtime: Runtime, config: ConfigStore) -> None:
        """The collections, their documents and the indexing scheduler (one dismissals file for both)."""
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

    @property
    def config(self) -> Config:
        return self.config_store.current

    # -- lifecycle ----------------------------------------------------------------------------------

    def start(self, *, sync: bool = True) -> None:
        """Load models in the background, catch up on edits made while closed, and watch folders."""
        self._warm_up_async(self.config)
        self.model_loading.watch_build(lambda: self._warm_up_async(self.config, renew_chat=True))
        if sync:
            for name, folders in self._folders_or_none().items():
                if folders:
                    self.indexing.submit(name, "start-up check")
        self._watch()

    def close(self) -> None:
        self.model_loading.close()
        self.evaluation_job.close()
        self.models.close()
        self.multilingual.close()
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
        """The sentence for ``err`` (logged); a damaged index is rebuilt now, not left to the user."""
        return self.explain_said(err, doing).english

    def explain_said(self, err: BaseException, doing: str) -> Said:
        """``explain``'s sentence with its code, for the UI to say in the page's language."""
        return explained_said(err, doing, repair=self.indexing.repair, log_file=self.log_file)

    def _attempt(self, doing: str, action: Callable[[], str | Said]) -> ActionResult:
        return attempt(self.explain_said, doing, action)

    # -- models -------------------------------------------------------------------------------------

    def model_state(self) -> ModelState:
        return self.model_loading.shown()

    def _ready(self) -> ModelState:
        """The models of the config in use are ready (named as it names them now: a new library may have
        moved to another embedder meanwhile, ``FirstEmbedder``)."""
        config = self.config
        english = f"Ready: {describe_models(config)}."
        return ModelState("ready", english, Said(english, "models_ready", {"models": config}))

    def _warm_up_async(self, config: Config, *, renew_chat: bool = False) -> None:
        def load() -> ModelState:
            try:
                if renew_chat:  # llama.cpp was built since the chat model was: the real one now
                    self.runtime.renew_chat()
                self.runtime.warm_up(config)
                return self._ready()
            except Exception as err:
                why = self.explain_said(err, "loading the model")
                english = "The model could not be loaded: " + why.english
                return ModelState("failed", english, Said(english, "model_not_loaded", {"why": why}))

        self.model_loading.start(
            f"Loading model… ({describe_models(config)})", load, thread_name="kimas-warm-up"
        )

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
            why = self.explain(err, "watching folders")
            self.indexing.note(
                "", f"Folders are not watched for changes: {why}", "error", "not_watched", why=why
            )

    # -- knowledge actions --------------------------------------------------------------------------

    def create_collection(self, name: str) -> ActionResult:
        def act() -> Said:
            cid = self.knowledge.create(name)
            self._changed()
            return said.created(self.knowledge.title(cid))

        return self._attempt("creating the collection", act)

    def rename_collection(self, name: str, new_name: str) -> ActionResult:
        def act() -> Said:
            old = self.knowledge.title(self.knowledge.resolve(name))
            _, title = self.knowledge.rename(name, new_name)
            self._changed()
            return said.renamed(old, title)

        return self._attempt("renaming the collection", act)

    def unwatch_folder(self, name: str, folder: str) -> ActionResult:
        """Stop watching ``folder`` for collection ``name``; its files leave the index in the background."""

        def act() -> Said:
            cid, path, _ = self.knowledge.unwatch(name, folder)
            self._watch()
            self.indexing.submit(cid, "folder no longer watched")
            return said.unwatched(path, self.knowledge.title(cid))

        return self._attempt("removing the folder", act)

    def remove_collection(self, name: str) -> ActionResult:
        def act() -> Said:
            self.knowledge.remove(name, self.indexing.remove)
            self.documents.dismissals.forget_collection(name)
            self._watch()
            self._changed()
            return said.removed(name)

        return self._attempt("removing the collection", act)

    def add_uploads(
        self, name: str, files: Sequence[tuple[Path, str]], *, keep_folders: bool = False
    ) -> ActionResult:
        """Copy uploaded ``(temporary path, original name)`` files into the collection and index them
        (``keep_folders``: the names are paths inside an uploaded folder)."""

        def act() -> Said:
            copied = self.knowledge.add_uploads(name, files, keep_folders=keep_folders)
            cid = self.knowledge.find(name) or name
            self._watch()
            self.indexing.submit(cid, "upload")
            return said.uploaded(copied, self.knowledge.title(cid))

        return self._attempt("adding the files", act)

    def add_folder(self, name: str, folder: str) -> ActionResult:
        """Watch an existing local folder in place as part of collection ``name``."""

        def act() -> Said:
            path, _ = self.knowledge.add_folder(name, folder)
            cid = self.knowledge.find(name) or name
            chosen = FirstEmbedder().adopt(path, self.knowledge, self.runtime, self.config_store)
            if chosen:  # the status line names the embedder the library is built with (issue 69)
                self.model_loading.settle(self._ready())
            self._watch()
            self.indexing.submit(cid, "new folder")
            return said.watching(path, self.knowledge.title(cid), chosen)

        return self._attempt("adding the folder", act)

    def reindex(self, name: str) -> ActionResult:
        def act() -> Said:
            folders = self.knowledge.folders(name)
            if folders is None:
                raise not_found(name)
            if not folders:
                no_files = f"'{name}' has no files yet: drop some onto it or add a folder."
                raise ConfigError(no_files, code="no_files_yet", values={"name": name})
            self.indexing.submit(name, "re-index")
            return said.reindexing(name)

        return self._attempt("re-indexing", act)

    def reembed(self, name: str) -> ActionResult:
        """Index ``name`` again from its files with the configured embedding model, into new tables; the
        old index keeps answering until the new one is complete."""

        def act() -> Said:
            if self.knowledge.folders(name) is None:
                raise not_found(name)
            self.indexing.submit(name, "re-embed", reembed=True)
            return said.reembedding(name)

        return self._attempt("re-embedding", act)

    # -- one document -------------------------------------------------------------------------------

    def list_documents(self, name: str) -> list[Document]:
        """The files of collection ``name`` the index knows (raises ``KimasError``)."""
        return self.documents.list(name)

    def remove_document(self, name: str, path: str) -> ActionResult:
        """Take one file out of the collection (an uploaded copy is deleted; a watched file stays on disk)."""

        def act() -> Said:
            doc = self.documents.remove(name, path)
            self._changed()
            return said.removed_file(doc.name, name, None if doc.uploaded else Path(path).parent)

        return self._attempt("removing the file", act)

    def reindex_document(self, name: str, path: str) -> ActionResult:
        def act() -> Said:
            doc = self.documents.reindex(name, path)
            self.indexing.submit(name, f"re-index {doc.name}")
            self._changed()
            return said.reading(doc.name)

        return self._attempt("re-indexing the file", act)

    def dismiss_problem(self, name: str, path: str) -> ActionResult:
        def act() -> Said:
            doc = self.documents.dismiss(name, path)
            self._changed()
            return said.dismissed(doc.name)

        return self._attempt("dismissing the problem", act)

    def pause_indexing(self) -> ActionResult:
        self.indexing.pause()
        return ActionResult(True, said.paused().english, said.paused())

    def resume_indexing(self) -> ActionResult:
        self.indexing.resume()
        return ActionResult(True, said.resumed().english, said.resumed())

    def cancel_indexing(self) -> ActionResult:
        self.indexing.cancel()
        return ActionResult(True, said.cancelled().english, said.cancelled())

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
    ) -> ActionResult:
        values = {
            "description": description.strip(),
            "examples": [e.strip() for e in examples if e.strip()],
            "mixin_weight": mixin_weight,
            "scale": scale,
            "language": language.strip(),
            "strategy": strategy,
        }

        def act() -> Said:
            self.knowledge.save_settings(name, values)
            return said.saved(name)

        return self._attempt("saving the collection settings", act)
