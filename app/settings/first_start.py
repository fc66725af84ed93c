"""``FirstStartHint``: on the app's first start, a chat model clearly better than the embedded 135M one,
already on this computer, said once (issue 45).

- **What first start looks at: model files only.** ``FileScan`` reads the GGUF headers in the folders of
  LM Studio, GPT4All and Jan and Ollama's manifests; no socket is opened. Model servers are asked only when
  the user opens Settings (``LocalModelChoices``), never at start-up or in the background, so a model that
  only a running server holds is found there, not here.
- **Clearly better**: a chat model (not an embedding model) that says it is tuned to follow instructions
  (``instruct``, ``chat`` or ``-it`` in its name), that fits this computer's RAM and is at least
  ``CLEARLY_BETTER_BYTES`` big (``local_search.better_chat_model``), while the chat model in use is the
  embedded one.
- **Once**: ``first-start.json`` in the data dir records that the look was done, whatever it found; from
  then on ``suggestion()`` is None, on this start and every later one.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from pathlib import Path

from app.models.local_files import FileScan
from app.models.local_model import LocalModel
from app.models.local_search import better_chat_model
from kimas_desktop.config import Config

__all__ = ["STATE_FILE", "FirstStartHint", "tuned_for_chat", "uses_embedded_chat"]

STATE_FILE = "first-start.json"
_TUNED = re.compile(r"instruct|chat|(?<![a-z])it(?![a-z])", re.IGNORECASE)


def tuned_for_chat(model: LocalModel) -> bool:
    """Its name says it was tuned to follow instructions (a base model answers poorly)."""
    return bool(_TUNED.search(model.name))


def uses_embedded_chat(config: Config) -> bool:
    chat = config.chat
    return chat.kind == "llama" and not chat.path and not chat.hf_repo


def _scan_files() -> list[LocalModel]:
    return FileScan().find()


class FirstStartHint:
    """``suggestion(config)`` once per data dir; ``scan``: what is looked at (files only, see above)."""

    def __init__(self, data_dir: Path, scan: Callable[[], list[LocalModel]] = _scan_files) -> None:
        self._file = data_dir / STATE_FILE
        self._scan = scan
        self._lock = threading.Lock()

    @property
    def done(self) -> bool:
        return self._file.exists()

    def suggestion(self, config: Config) -> LocalModel | None:
        """The model to suggest, the first time this is asked; None every later time, when the embedded
        chat model is not the one in use, or when no file holds a clearly better one."""
        with self._lock:
            if self.done:
                return None
            model = None
            if uses_embedded_chat(config):
                model = better_chat_model([m for m in self._scan() if tuned_for_chat(m)])
            self._remember(model)
            return model

    def _remember(self, model: LocalModel | None) -> None:
        self._file.parent.mkdir(parents=True, exist_ok=True)
        record = {"looked": "model files", "suggested": model.key if model is not None else None}
        self._file.write_text(json.dumps(record, indent=2) + "\n", "utf-8")
