"""``OnlyCollections``: the store as the pipeline sees it, narrowed to the collections a caller named.

Routing, the retrieval agents and the answer policy then run unchanged on those collections only (the
same pipeline, not a filter on its results)."""

from __future__ import annotations

from collections.abc import Sequence

from kimas_desktop.protocols import ChunkSearcher, SearchMode, Vector
from kimas_desktop.types import Chunk, CollectionInfo, DocumentCard, Hit, Synopsis

__all__ = ["OnlyCollections"]


class OnlyCollections:
    """A ``ChunkSearcher`` that lists only ``names`` (each search still goes to the store)."""

    def __init__(self, searcher: ChunkSearcher, names: Sequence[str]) -> None:
        self._searcher = searcher
        self._names = frozenset(names)

    def collections(self) -> list[CollectionInfo]:
        return [c for c in self._searcher.collections() if c.name in self._names]

    def synopsis(self, collection: str) -> Synopsis | None:
        return self._searcher.synopsis(collection)

    def search(
        self,
        collection: str,
        *,
        text: str,
        vector: Vector,
        k: int,
        mode: SearchMode = "hybrid",
        sources: Sequence[str] = (),
    ) -> list[Hit]:
        return self._searcher.search(collection, text=text, vector=vector, k=k, mode=mode, sources=sources)

    def cards(self, collection: str) -> list[DocumentCard]:
        return self._searcher.cards(collection)

    def section(self, collection: str, source: str, heading: str, *, limit: int) -> list[Chunk]:
        return self._searcher.section(collection, source, heading, limit=limit)
