"""``ModelLoading``: the models' loading state the UI shows (``ModelState``), while models load in the
background (at start-up, and when the Settings tab switches models), and while llama.cpp is built for this
computer beside the app (``ChatModelBuild``, issue 71)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from app.models.chat_build import ChatModelBuild
from app.outcomes import ModelState, Said

__all__ = ["ModelLoading"]


class ModelLoading:
    """One state for every load; only the newest load started sets it when it ends (an older load that
    ends later is moot)."""

    def __init__(self, build: ChatModelBuild | None = None) -> None:
        self._lock = threading.Lock()
        self._generation = 0
        self._state = ModelState("loading", "Loading model…")
        self._build = build

    def state(self) -> ModelState:
        return self._state

    def shown(self) -> ModelState:
        """What the model status line says: the chat model's build while it runs or after it failed (the
        embedding models load and answer meanwhile), else ``state()``."""
        building = self._build.state() if self._build is not None else None
        return building if building is not None else self._state

    def watch_build(self, built: Callable[[], None]) -> None:
        """Call ``built`` once the chat model's build (if one runs) has installed llama.cpp."""
        if self._build is not None:
            self._build.watch(built)

    def close(self) -> None:
        if self._build is not None:
            self._build.close()

    def settle(self, state: ModelState) -> None:
        """Show ``state`` in place of a "ready" one: the models changed in place, with no load for the page
        to wait for (a new library's embedder). A load in progress is left to say what it loaded."""
        with self._lock:
            if self._state.phase == "ready":
                self._state = state

    def start(
        self,
        message: str | Said,
        load: Callable[[], ModelState],
        *,
        thread_name: str,
        then: Callable[[], None] = lambda: None,
    ) -> None:
        """Show ``message`` (phase "loading") and run ``load`` in a thread of its own; the state it returns
        is shown unless a newer load started meanwhile. ``then`` runs after that, whatever happened."""
        with self._lock:
            self._generation += 1
            generation = self._generation
            said = message if isinstance(message, Said) else None
            self._state = ModelState("loading", said.english if said else str(message), said)

        def work() -> None:
            state = load()
            with self._lock:
                if generation == self._generation:
                    self._state = state
            then()

        threading.Thread(target=work, name=thread_name, daemon=True).start()
