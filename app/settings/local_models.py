"""``LocalModelChoices``: the models already on this computer as the Settings tab offers them (issue 45).

``look()`` asks the local model servers on 127.0.0.1 and scans the model folders
(``app.models.local_search.find_local_models``); the Settings tab calls it when it is opened or when
"Look again" is pressed, never at start-up or in the background. ``use(key)`` switches to one model of the
last listing, with one click: ``Settings.use_local``, the config values ``kimas models use`` writes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from app.models.local_model import LocalModel
from app.models.local_search import find_local_models
from app.outcomes import ActionResult, Said
from app.settings.settings import Settings

__all__ = ["LocalModelChoices"]


class LocalModelChoices:
    """What ``look`` found last (``models``), and ``use`` on one of them. ``find``: the search (tests give
    one of their own ports and folders)."""

    def __init__(self, settings: Settings, find: Callable[[], list[LocalModel]] = find_local_models) -> None:
        self._settings = settings
        self._find = find
        self._lock = threading.Lock()
        self._models: tuple[LocalModel, ...] = ()

    @property
    def models(self) -> tuple[LocalModel, ...]:
        with self._lock:
            return self._models

    def look(self) -> tuple[LocalModel, ...]:
        """Ask the servers and scan the folders now; the listing ``use`` picks from."""
        found = tuple(self._find())
        with self._lock:
            self._models = found
        return found

    def use(self, key: str) -> ActionResult:
        """Use the model ``key`` names (a ``LocalModel.key`` of the last listing)."""
        model = next((m for m in self.models if m.key == key), None)
        if model is None:
            english = "That model is no longer listed: press Look again."
            return ActionResult(False, english, Said(english, "model_gone"))
        return self._settings.use_local(model)
