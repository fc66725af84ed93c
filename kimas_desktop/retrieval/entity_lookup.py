"""The read side of a collection's entity index (issue 25; the KAG paper's graph "mutually indexed" with
the chunks): which entities a chunk mentions, which chunks mention an entity, and which entities are
mentioned together with one (co-mentions: in one chunk).

Built without a model at index time (``kimas_desktop.text.entities`` extracts, ``indexer.upkeep.entity_upkeep``
stores); relations between them only by the optional pass with a chat model (``indexer.upkeep.relation_pass``).
``indexer.LanceStore`` implements ``EntityLookup``. A collection without an entity index (the
indexer's ``entities`` switch off, or not yet built) answers with nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from kimas_desktop.text.entities import Entity

__all__ = ["EntityLookup", "LinkedEntity", "Relation"]


@dataclass(frozen=True)
class LinkedEntity:
    """An entity mentioned in ``chunks`` chunks together with the one asked about."""

    entity: Entity
    chunks: int


@dataclass(frozen=True)
class Relation:
    """``subject`` ``predicate`` ``object``, as a chat model read it in chunk ``chunk_id`` (the optional
    relation pass, ``indexer.upkeep.relation_pass``)."""

    subject: Entity
    predicate: str
    object: Entity
    chunk_id: str


@runtime_checkable
class EntityLookup(Protocol):
    def entities_in(self, collection: str, chunk_ids: Iterable[str]) -> dict[str, list[Entity]]:
        """The entities each chunk mentions (chunks without any are left out)."""
        ...

    def chunks_mentioning(self, collection: str, keys: Iterable[str], limit: int = 50) -> list[str]:
        """Ids of chunks that mention any of ``keys`` (``entity_key`` forms), those mentioning the most of
        them first, at most ``limit``."""
        ...

    def linked(self, collection: str, key: str, limit: int = 20) -> list[LinkedEntity]:
        """Entities co-mentioned with ``key``, the most often first, at most ``limit``."""
        ...

    def relations(self, collection: str, key: str, limit: int = 50) -> list[Relation]:
        """Relations with ``key`` as subject or object (none until a relation pass has run)."""
        ...
