"""``RelationPass``: the optional background pass that reads relations between a chunk's entities with a
chat model the user chose (issue 25; the KAG paper's builder extracts them with an LLM for every chunk,
which takes days on a laptop: here it is optional, after indexing, and resumable).

For each chunk that mentions at least two entities (``indexer.upkeep.entity_upkeep`` found them without a model),
the model is shown the passage and its entities, numbered, and answers under a JSON schema with relations
as (subject number, predicate, object number): it can only relate entities the passage names, and the
reply is validated (``kimas_desktop.structured.ask_json``). A reply that does not fit counts as failed and
the chunk as read (a pass does not stall on one passage).

Resumable: every chunk read gets a marker row, written in the same commit as its relations, every
``batch`` chunks and when the pass stops (cancelled, or an error); the next pass skips the chunks marked.
Incremental: the sync's entity upkeep deletes the relations of the files it redoes, and each pass first
deletes those of chunks that are gone, so the next pass reads only new and changed chunks. Progress:
``RelationProgress`` after each chunk; pause and cancel: ``IndexControl``, between chunks. It does not
hold the collection's writer lease (a pass takes long; syncs go on meanwhile); one pass per collection
at a time in this process.
"""

from __future__ import annotations

import re
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from indexer.store.lance_store import LanceStore
from kimas_desktop.control import IndexControl
from kimas_desktop.errors import StructuredOutputError
from kimas_desktop.protocols import ChatModel
from kimas_desktop.retrieval.entity_lookup import Relation
from kimas_desktop.structured import ask_json, string_field
from kimas_desktop.text.entities import Entity
from kimas_desktop.types import Message

__all__ = ["RelationPass", "RelationProgress"]

MAX_ENTITIES = 12  # entities shown per passage
MAX_RELATIONS = 8  # relations asked for per passage
_PREDICATE = re.compile(r"[a-z][a-z'’-]*(?: [a-z][a-z'’-]*){0,5}")  # one to six words, letters only

SYSTEM = (
    "You read a passage and list the relations it states between the numbered entities: who or what "
    "(subject) does, is or has what (a short predicate of one to four words, e.g. 'born in', 'founded', "
    "'works for', 'capital of') to which other entity (object). Only relations the passage states; "
    "none if it states none."
)


def relation_schema(entities: int) -> dict[str, Any]:
    number = {"type": "integer", "minimum": 1, "maximum": entities}
    relation = {
        "type": "object",
        "properties": {
            "subject": number,
            "predicate": {"type": "string", "maxLength": 40},
            "object": number,
        },
        "required": ["subject", "predicate", "object"],
    }
    return {
        "type": "object",
        "properties": {"relations": {"type": "array", "items": relation, "maxItems": MAX_RELATIONS}},
        "required": ["relations"],
    }


@dataclass(frozen=True)
class RelationProgress:
    """``done`` of ``total`` chunks read this pass (``failed`` of them without a valid reply); ``unread``:
    the chunks no pass had read when this one started (``total`` of them, or fewer with a limit)."""

    collection: str
    done: int
    total: int
    failed: int
    relations: int
    chunks_per_s: float
    finished: bool
    unread: int = 0


class RelationPass:
    """``batch``: chunks read per write (what a kill may cost to read again)."""

    def __init__(self, store: LanceStore, chat: ChatModel, *, batch: int = 8) -> None:
        self._store = store
        self._chat = chat
        self._batch = batch
        self._locks: dict[str, threading.Lock] = defaultdict(threading.Lock)

    def run(
        self,
        collection: str,
        on_progress: Callable[[RelationProgress], None] | None = None,
        control: IndexControl | None = None,
        *,
        limit: int | None = None,
    ) -> RelationProgress:
        """Read the relations of the chunks not read yet (at most ``limit`` this pass). ``Cancelled``
        through ``control`` after writing what was read."""
        with self._locks[collection]:
            return self._run(collection, on_progress, control, limit)

    def _run(
        self,
        collection: str,
        on_progress: Callable[[RelationProgress], None] | None,
        control: IndexControl | None,
        limit: int | None,
    ) -> RelationProgress:
        start = time.monotonic()
        tables = self._store.entity_tables(collection)
        if tables is None:  # no entity index (switched off, or not built yet)
            return RelationProgress(collection, 0, 0, 0, 0, 0.0, True)
        mentions = tables.mentions_by_chunk()
        read = tables.relations_read()
        gone = read - tables.indexed()
        if gone:
            tables.delete_relations_of(sorted(gone))
        unread = sorted(
            (source, chunk_id)
            for chunk_id, (source, entities) in mentions.items()
            if len(entities) >= 2 and chunk_id not in read
        )
        todo = unread[:limit]
        texts = self._texts(collection, {source for source, _ in todo})
        done = failed = relations = 0
        pending: list[tuple[str, str, list[Relation]]] = []

        def progress(finished: bool) -> RelationProgress:
            elapsed = max(time.monotonic() - start, 1e-6)
            p = RelationProgress(
                collection, done, len(todo), failed, relations, done / elapsed, finished, len(unread)
            )
            if on_progress is not None:
                on_progress(p)
            return p

        try:
            for source, chunk_id in todo:
                if control is not None:
                    control.checkpoint()
                text = texts.get(chunk_id)
                if text is None:  # its file changed since the entities were read: the next pass
                    continue
                entities = sorted(mentions[chunk_id][1], key=lambda e: text.find(e.name))[:MAX_ENTITIES]
                try:
                    found = self._read(text, entities, chunk_id)
                except StructuredOutputError:
                    found, failed = [], failed + 1
                pending.append((chunk_id, source, found))
                done, relations = done + 1, relations + len(found)
                if len(pending) >= self._batch:
                    tables.add_relations(pending)
                    pending = []
                progress(False)
        finally:
            tables.add_relations(pending)
        return progress(True)

    def _texts(self, collection: str, sources: set[str]) -> dict[str, str]:
        chunks = self._store.tables(collection)
        return {chunk_id: text for chunk_id, _, text in chunks.chunk_texts(sorted(sources))}

    def _read(self, text: str, entities: list[Entity], chunk_id: str) -> list[Relation]:
        listed = "\n".join(f"{i}. {e.name}" for i, e in enumerate(entities, 1))
        messages = [
            Message("system", SYSTEM),
            Message("user", f"Passage:\n{text}\n\nEntities:\n{listed}"),
        ]

        def parse(data: dict[str, Any]) -> list[Relation]:
            items = data["relations"]
            if not isinstance(items, list):
                raise TypeError("relations must be a list")
            out: list[Relation] = []
            for item in items[:MAX_RELATIONS]:
                s, o = item["subject"], item["object"]
                if not all(isinstance(n, int) and 1 <= n <= len(entities) for n in (s, o)):
                    raise ValueError("an entity number out of range")
                predicate = string_field(item, "predicate", max_len=40).lower()
                subject, obj = entities[s - 1], entities[o - 1]
                if s == o or not _PREDICATE.fullmatch(predicate) or predicate in (subject.key, obj.key):
                    continue  # a relation of a thing to itself; digits, brackets, a name: not a predicate
                out.append(Relation(subject, predicate, obj, chunk_id))
            return out

        return ask_json(self._chat, messages, relation_schema(len(entities)), parse, max_tokens=300)
