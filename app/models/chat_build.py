"""``ChatModelBuild``: llama.cpp being compiled for this computer while the app already runs (issue 71), as
the model status line says it, read from the status file the build writes (``scripts/llama_build.py``:
``.venv/kimas-llama-build.json``). While it compiles the line says how far it is and about how long is left
(from the build's own pace); a failed or stopped build says why and what to install, in one sentence. When
the build has installed llama.cpp, ``watch``'s callback runs once: the app loads the chat model in place of
the stand-in that wrote nothing (``local_models/llama/pending.py``), with no restart.
"""

from __future__ import annotations

import json
import logging
import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil

from app.outcomes import ModelState, Said

__all__ = ["BuildStatus", "ChatModelBuild", "read_status"]

log = logging.getLogger(__name__)

RUN = "scripts\\run.ps1" if os.name == "nt" else "scripts/run.sh"
_BUILDING = ("waiting", "compiling", "installing")
_FAILED = {
    "compiler": "The chat model could not be built because no C++ compiler was found: install one (Debian or "
    "Ubuntu: build-essential; macOS: xcode-select --install; Windows: Visual Studio's C++ build tools) and "
    "CMake, then run {run} again; until then, answers quote your documents.",
    "cmake": "The chat model could not be built because CMake is missing or too old: install CMake 3.21 or "
    "newer, then run {run} again; until then, answers quote your documents.",
    "network": "The chat model could not be built because llama.cpp's sources could not be downloaded: "
    "connect to the internet, then run {run} again; until then, answers quote your documents.",
    "interrupted": "The chat model's build was stopped before it finished: run {run} again to finish it; "
    "until then, answers quote your documents.",
    "other": "The chat model could not be built ({detail}; the whole log is {log}): check that a C++ "
    "compiler and CMake are installed, then run {run} again; until then, answers quote your documents.",
}


@dataclass(frozen=True)
class BuildStatus:
    """What the build's status file says now: "building" (waiting, compiling or installing), "failed"
    (``error``: compiler, cmake, network, interrupted, other) or "done"."""

    phase: str
    percent: int = 0
    left_s: float | None = None
    error: str = ""
    detail: str = ""
    log: str = ""

    def model_state(self) -> ModelState | None:
        """The model status line while the build runs or after it failed; None once it is done."""
        if self.phase == "building":
            if self.left_s is None:
                english = (
                    "Preparing the chat model: llama.cpp is starting to compile for this computer. Until "
                    "then, answers quote your documents."
                )
                return ModelState("loading", english, Said(english, "chat_model_building_starting"))
            values = {"percent": self.percent, "minutes": max(1, math.ceil(self.left_s / 60))}
            english = (
                "Preparing the chat model: llama.cpp is compiling for this computer ({percent}% done, about "
                "{minutes} min left). Until then, answers quote your documents."
            ).format(**values)
            return ModelState("loading", english, Said(english, "chat_model_building", values))
        if self.phase == "failed":
            cause = self.error if self.error in _FAILED else "other"
            why = {"run": RUN, "detail": self.detail or "no error was shown", "log": self.log}
            english = _FAILED[cause].format(**why)
            return ModelState("failed", english, Said(english, f"chat_model_build_{cause}", why))
        return None


def read_status(path: Path, now: float | None = None) -> BuildStatus | None:
    """The build's status (None: no build is known: no file, or one that cannot be read). A build whose
    process is gone without saying it finished was stopped (a kill, a closed terminal)."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    state = data.get("state")
    if state == "done":
        return BuildStatus("done")
    if state == "failed":
        return BuildStatus("failed", error=str(data.get("error", "")), detail=str(data.get("detail", "")),
                           log=str(data.get("log", "")))  # fmt: skip
    if state not in _BUILDING:
        return None
    if not _running(data.get("pid"), data.get("started")):
        return BuildStatus("failed", error="interrupted", log=str(data.get("log", "")))
    step, steps = int(data.get("step") or 0), int(data.get("steps") or 0)
    left = data.get("left_s")
    if isinstance(left, int | float):
        since = (now if now is not None else time.time()) - float(data.get("updated") or 0)
        left = max(0.0, float(left) - max(0.0, since))
    percent = min(99, step * 100 // steps) if steps else 0
    return BuildStatus(
        "building", percent, left if isinstance(left, float) else None, log=str(data.get("log"))
    )


def _running(pid: object, started: object) -> bool:
    """Whether the process that wrote the status still runs (not another one given its number since)."""
    if not isinstance(pid, int) or not isinstance(started, int | float):
        return False
    try:
        created: float = psutil.Process(pid).create_time()
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False
    return created <= float(started) + 1.0


class ChatModelBuild:
    """The build of this venv's llama.cpp as the app sees it; ``watch`` follows it in a thread of its own."""

    def __init__(self, status_file: Path, poll_s: float = 1.0) -> None:
        self.status_file = status_file
        self._poll_s = poll_s
        self._stop = threading.Event()
        self._status = read_status(status_file)

    def state(self) -> ModelState | None:
        """The model status line for the build (None: no build is running or failed)."""
        status = self._status
        return status.model_state() if status is not None else None

    def watch(self, built: Callable[[], None]) -> None:
        """Follow the build when one is running or failed at start-up; once it is done, call ``built``."""
        if self._status is None or self._status.phase == "done":
            return
        threading.Thread(target=self._follow, args=(built,), name="kimas-llama-build", daemon=True).start()

    def _follow(self, built: Callable[[], None]) -> None:
        while not self._stop.wait(self._poll_s):
            status = read_status(self.status_file)
            self._status = status if status is not None else self._status
            if status is not None and status.phase == "done":
                log.info("llama.cpp was built and installed: loading the chat model")
                built()
                return

    def close(self) -> None:
        self._stop.set()
