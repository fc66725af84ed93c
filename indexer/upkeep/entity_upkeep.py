"""``EntityUpkeep``: keeps a collection's entity index (``indexer.store.entity_tables``) in step with its chunks
after a sync, without a model (``kimas_desktop.text.entities``).

After a sync that was not interrupted it redoes the source files whose chunks the sync wrote or deleted,
and checks that the index then holds as many chunks as the table. Otherwise (after a kill, a failure, a
re-embedding, or when that count differs) it compares the chunk ids of the chunks table with those the
entity index has seen, and redoes each source file on either side of the difference (its rows
deleted, links first; its chunks' entities extracted again, written links first, then mentions, one write
each per sync). So a changed file replaces only its own rows; a sync that was killed, or failed, between
its chunk writes and this step, or during it, is repaired by the next sync, with or without file
changes; a collection indexed before the entity index existed gets one on its next sync; and after a
re-embedding only the chunks whose text changed are read again (entities do not depend on vectors).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

from indexer.store.collection_tables import CollectionTables
from indexer.store.entity_tables import EntityTables
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

    def refresh(
        self,
        tables: CollectionTables,
        check: Callable[[], None] | None = None,
        changed: Collection[str] | None = None,
    ) -> EntityWork:
        """Bring the collection's entity index in line with ``tables`` (its current chunk tables).
        ``check``: called before each write (the sync's writer lease: raises once it was lost).
        ``changed``: the sources whose chunks changed since the index was last in line (None: unknown,
        every chunk id is compared). Given them, only they are redone, and the whole comparison runs
        only when the index then holds another number of chunks than the table: comparing every chunk
        id cost 1.4 s a sync at 550,000 chunks, whatever had changed (issue 59)."""
        start = time.perf_counter()
        known = self._store.entity_tables(tables.collection) is not None
        entities = self._store.entity_tables(tables.collection, create=True)
        assert entities is not None
        quick = changed is not None and known
        redo = set(changed or ()) if quick else self._differing(tables, entities)
        chunks = self._redo(tables, entities, redo, check)
        if quick and entities.count_indexed() != tables.count_chunks():
            more = self._differing(tables, entities)
            chunks += self._redo(tables, entities, more, check)
            redo |= more
        if not redo:
            return EntityWork(0, 0, time.perf_counter() - start)
        entities.compact()
        work = EntityWork(len(redo), chunks, time.perf_counter() - start)
        log.info("entity index of '%s': %d files, %d chunks in %.2f s", tables.collection,
                 work.sources, work.chunks, work.seconds)  # fmt: skip
        return work

    @staticmethod
    def _differing(tables: CollectionTables, entities: EntityTables) -> set[str]:
        """The sources of the chunks the index lacks or holds beyond the table (every id compared)."""
        want, have = tables.chunk_ids(), entities.indexed()
        missing, extra = want - have, have - want
        if not missing and not extra:
            return set()
        return tables.sources_of(missing) | entities.sources_of(extra)

    def _redo(
        self,
        tables: CollectionTables,
        entities: EntityTables,
        sources: set[str],
        check: Callable[[], None] | None,
    ) -> int:
        """Extract the entities of ``sources`` again; how many chunks were read."""
        if not sources:
            return 0
        if check is not None:
            check()
        entities.delete_sources(sources)
        chunks = 0
        for part in self._parts(tables, sources):
            if check is not None:
                check()
            chunks += entities.add(part)
        return chunks

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
