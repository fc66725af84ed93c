"""``EntityUpkeep``: keeps a collection's entity index (``indexer.store.entity_tables``) in step with its chunks
after a sync, without a model (``kimas_desktop.text.entities``).

It does not follow what the sync says it wrote: it compares the chunk ids of the chunks table with those
the entity index has seen, and redoes each source file on either side of the difference (its rows
deleted, links first; its chunks' entities extracted again, written links first, then mentions, one write
each per sync). So a changed file replaces only its own rows; a sync that was killed, or failed, between
its chunk writes and this step, or during it, is repaired by the next sync, with or without file
changes; a collection indexed before the entity index existed gets one on its next sync; and after a
re-embedding only the chunks whose text changed are read again (entities do not depend on vectors).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from indexer.store.collection_tables import CollectionTables
from indexer.store.lance_store import LanceStore
from kimas_desktop.text.entities import Entity, extract_entities

__all__ = ["EntityUpkeep", "EntityWork"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EntityWork:
    """What one upkeep did: the source files redone, their chunks read, and how long it took."""

    sources: int
    chunks: int
    seconds: float


class EntityUpkeep:
    """``part_chunks``: chunks extracted per write (bounds the memory of a first, large build)."""

    def __init__(self, store: LanceStore, *, part_chunks: int = 50_000) -> None:
        self._store = store
        self._part = part_chunks

    def refresh(self, tables: CollectionTables, check: Callable[[], None] | None = None) -> EntityWork:
        """Bring the collection's entity index in line with ``tables`` (its current chunk tables).
        ``check``: called before each write (the sync's writer lease: raises once it was lost)."""
        start = time.perf_counter()
        entities = self._store.entity_tables(tables.collection, create=True)
        assert entities is not None
        want, have = tables.chunk_ids(), entities.indexed()
        missing, extra = want - have, have - want
        if not missing and not extra:
            return EntityWork(0, 0, time.perf_counter() - start)
        redo = tables.sources_of(missing) | entities.sources_of(extra)
        if check is not None:
            check()
        entities.delete_sources(redo)
        chunks = 0
        for part in self._parts(tables, redo):
            if check is not None:
                check()
            chunks += entities.add(part)
        entities.compact()
        work = EntityWork(len(redo), chunks, time.perf_counter() - start)
        log.info("entity index of '%s': %d files, %d chunks in %.2f s", tables.collection,
                 work.sources, work.chunks, work.seconds)  # fmt: skip
        return work

    def _parts(
        self, tables: CollectionTables, sources: set[str]
    ) -> Iterator[list[tuple[str, str, list[Entity]]]]:
        part: list[tuple[str, str, list[Entity]]] = []
        for chunk_id, source, text in tables.chunk_texts(sorted(sources)):
            part.append((chunk_id, source, extract_entities(text)))
            if len(part) >= self._part:
                yield part
                part = []
        if part:
            yield part
