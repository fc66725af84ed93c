"""``ModelDownloads``: catalog downloads the Settings tab starts, each in a background thread of the app.

``start(name)`` returns at once (the download runs in its own thread, never in a UI handler);
``cancel(name)`` stops it (the partial file stays, so Download again resumes); ``states()`` is what the
page shows, one ``DownloadState`` per model that was asked for, with the latest ``DownloadProgress``
(bytes, speed, ETA). Offline, a download fails at once with the downloader's sentence and its code (the
page says it in its language; the log keeps the connection's own error). Where the hub layout is served:
``base_url``, else ``HF_ENDPOINT``, else huggingface.co (``local_models.catalog.download``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from app.models import catalog as model_catalog
from app.outcomes import Said
from app.paths import Paths
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import Cancelled

__all__ = ["DownloadState", "ModelDownloads"]

Phase = Literal["downloading", "done", "failed", "cancelled"]


@dataclass(frozen=True)
class DownloadState:
    name: str
    phase: Phase
    progress: model_catalog.DownloadProgress | None = None
    message: str = ""  # why it failed (English, as the log has it), or what a finished one was installed as
    result: model_catalog.InstallResult | None = None
    said: Said | None = None  # why it failed as a code and its values: the page says it in its language


class ModelDownloads:
    def __init__(
        self,
        paths: Paths,
        *,
        explain: Callable[[BaseException, str], Said],
        on_change: Callable[[], None] = lambda: None,
        base_url: str = "",
        catalog_file: Path | None = None,
    ) -> None:
        self._paths = paths
        self._explain = explain
        self._on_change = on_change
        self._base_url = base_url
        self.catalog_file = catalog_file
        self._lock = threading.Lock()
        self._states: dict[str, DownloadState] = {}
        self._tokens: dict[str, CancelToken] = {}
        self._threads: list[threading.Thread] = []
        self._version = 0

    @property
    def version(self) -> int:
        """Goes up with every change of ``states()`` (the page redraws only then)."""
        return self._version

    def catalog(self) -> list[model_catalog.CatalogEntry]:
        return model_catalog.catalog(self.catalog_file)

    def status(self) -> list[model_catalog.ModelStatus]:
        return model_catalog.status(self._paths, self.catalog())

    def states(self) -> dict[str, DownloadState]:
        with self._lock:
            return dict(self._states)

    def _set(self, state: DownloadState) -> None:
        with self._lock:
            self._states[state.name] = state
            self._version += 1
        self._on_change()

    def start(self, name: str) -> DownloadState:
        """Begin downloading catalog model ``name`` (no-op while it is already downloading)."""
        with self._lock:
            current = self._states.get(name)
            if current is not None and current.phase == "downloading":
                return current
            token = self._tokens[name] = CancelToken()
        state = DownloadState(name, "downloading")
        self._set(state)
        thread = threading.Thread(
            target=self._run, args=(name, token), name=f"kimas-pull-{name}", daemon=True
        )
        self._threads.append(thread)
        thread.start()
        return state

    def cancel(self, name: str) -> bool:
        """Stop ``name``'s download; False when none runs."""
        with self._lock:
            token = self._tokens.get(name)
            running = self._states.get(name)
        if token is None or running is None or running.phase != "downloading":
            return False
        token.cancel()
        return True

    def _run(self, name: str, token: CancelToken) -> None:
        def progress(p: model_catalog.DownloadProgress) -> None:
            self._set(DownloadState(name, "downloading", p))

        try:
            result = model_catalog.pull(
                self._paths,
                name,
                on_progress=progress,
                cancel=token,
                base_url=self._base_url,
                catalog_file=self.catalog_file,
            )
        except Cancelled:
            last = self.states().get(name)
            self._set(replace(last or DownloadState(name, "cancelled"), phase="cancelled"))
        except Exception as err:  # a KimasError's sentence (and code) as it is; anything else to the log
            said = self._explain(err, f"downloading {name}")  # logs the error as raised
            self._set(DownloadState(name, "failed", message=said.english, said=said if said.code else None))
        else:
            check = "checked against its published SHA-256" if result.verified else "no published hash"
            self._set(
                DownloadState(name, "done", message=f"Installed at {result.path} ({check}).", result=result)
            )

    def close(self, timeout: float = 5.0) -> None:
        """Cancel every download and wait for their threads (their partial files stay for a resume)."""
        with self._lock:
            tokens = list(self._tokens.values())
        for token in tokens:
            token.cancel()
        for thread in self._threads:
            thread.join(timeout)
