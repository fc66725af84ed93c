"""``MultilingualSwitch``: the one click that moves the app to the multilingual embedding model (issue 42).

``start()`` returns at once; in a thread of its own it
1. fetches the model when it is not on disk (the catalog's download, ``app.models.catalog.pull``); a failed
   download (offline: the hub cannot be reached) ends in one state, "failed", and changes nothing;
2. switches the embedder the way the Settings tab does (``Settings.save``: loaded beside the one in use,
   saved only once it loads), which re-embeds the collections built with the old one in the background.
``state()`` is what the Knowledge tab and the chat show. ``question_note(question)``: the chat's note for a
question the embedding model in use cannot read ("" when it can), in the question's language (``phrases``: English, Chinese).

``target``: a catalog embedder name (``MULTILINGUAL_EMBEDDER``), or a folder holding a model (what the
Settings tab's embedding field also takes); ``base_url``: where the hub layout is served ("" : the hub).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from app.models import catalog
from app.models.languages import question_needs_multilingual
from app.outcomes import ActionResult, ModelState, Said
from app.paths import Paths
from app.settings.settings import Settings
from kimas_desktop.answer.phrases import phrase
from kimas_desktop.config import Config
from kimas_desktop.errors import ModelUnavailableError
from kimas_desktop.text.language import LanguageDetector
from kimas_desktop.text.words import words
from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER

# A question in a script many languages share (Latin, Cyrillic) needs this many words before its language is
# told apart: "Hi?" reads as Afrikaans to the detector. A script of one language (Chinese, Hindi) is sure.
SURE_WORDS = 6

__all__ = ["MultilingualSwitch", "SwitchState"]

Phase = Literal["idle", "downloading", "switching", "done", "failed"]


@dataclass(frozen=True)
class SwitchState:
    phase: Phase
    message: str = ""  # English
    said: Said | None = None  # the message as a code


class MultilingualSwitch:
    def __init__(
        self,
        paths: Paths,
        settings: Settings,
        *,
        config: Callable[[], Config],
        loading: Callable[[], ModelState],
        catalog_file: Callable[[], Path | None],
        explain: Callable[[BaseException, str], Said],
        target: str = MULTILINGUAL_EMBEDDER,
        base_url: str = "",
    ) -> None:
        self._paths = paths
        self._settings = settings
        self._config = config
        self._loading = loading
        self._catalog_file = catalog_file
        self._explain = explain
        self.target = target
        self.base_url = base_url
        self._lock = threading.Lock()
        self._state = SwitchState("idle")
        self._saved = False  # the switch was handed to Settings: the models' loading state tells the rest
        self._thread: threading.Thread | None = None
        self._detector = LanguageDetector()

    def state(self) -> SwitchState:
        """Idle, downloading, switching (the new model loading), done (re-embedding started) or failed."""
        state = self._state
        if not self._saved or state.phase != "switching":
            return state
        loaded = self._loading()
        if loaded.phase == "loading":
            return state
        return SwitchState("done" if loaded.phase == "ready" else "failed", loaded.message, loaded.said)

    def start(self) -> ActionResult:
        """The one click: fetch (when not on disk), switch and re-embed, in the background."""
        with self._lock:
            if self._state.phase in ("downloading", "switching") and self._thread and self._thread.is_alive():
                return ActionResult(True, self._state.message, self._state.said)
            english = f"Switching to {self.target}…"
            said = Said(english, "switching_to", {"name": self.target})
            self._state = SwitchState("switching", english, said)
            self._saved = False
            self._thread = threading.Thread(target=self._run, name="kimas-multilingual", daemon=True)
            self._thread.start()
        return ActionResult(True, english, said)  # what the click started (the thread may be further on)

    def _run(self) -> None:
        if not self._on_disk():
            english = f"Downloading {self.target}…"
            self._state = SwitchState(
                "downloading", english, Said(english, "downloading", {"name": self.target})
            )
            try:
                catalog.pull(
                    self._paths, self.target, base_url=self.base_url, catalog_file=self._catalog_file()
                )
            except Exception as err:  # a KimasError's sentence; anything else to the log
                why = self._explain(err, f"downloading {self.target}")
                english = (
                    f"Could not download {self.target}: {why.english} Nothing was changed: the embedding "
                    "model in use stays, and so do your collections."
                )
                said = Said(english, "multilingual_not_downloaded", {"name": self.target, "why": why})
                self._state = SwitchState("failed", english, said)
                return
        result = self._settings.save(replace(self._settings.form(), embedding_model=self.target))
        self._saved = result.ok
        self._state = SwitchState("switching" if result.ok else "failed", result.message, result.said)

    def _on_disk(self) -> bool:
        if Path(self.target).expanduser().is_absolute():
            return Path(self.target).expanduser().is_dir()
        try:
            catalog.choice(self._paths, self.target, self._catalog_file())
        except ModelUnavailableError:
            return False
        return True

    def question_note(self, question: str) -> str:
        """Why and how to switch, when ``question`` is not English and the embedding model reads English
        only; "" otherwise."""
        found = self._detector.identify(question) if question.strip() else None
        if found is None or not (found.by_script or len(words(question)) >= SURE_WORDS):
            return ""  # a short question in a shared script is too short to tell its language
        language = found.code
        if not question_needs_multilingual(language, self._config().embedding):
            return ""
        button = phrase("switch button", question)  # the button's label in the note's language
        return phrase("multilingual note", question).format(
            language=language, button=button, model=self.target
        )

    def close(self, timeout: float = 5.0) -> None:
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
