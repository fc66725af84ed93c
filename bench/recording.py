"""A store that keeps what the pipeline's searches returned (``bench.mixed_languages``, ``bench.reader_cost``).
No ``main``: the benches with one import it."""

from __future__ import annotations

from typing import Any

from kimas_desktop.types import Hit


class Recording:
    """The store as the pipeline sees it (a ``ChunkSearcher``), keeping every hit it returned (``seen``:
    the candidates of the current question)."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.seen: list[Hit] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def search(self, collection: str, **asked: Any) -> list[Hit]:
        hits: list[Hit] = self._store.search(collection, **asked)
        self.seen += hits
        return hits
