"""The tables of a collection's entity index (issue 25), beside its chunks:

    c_<name>_<hash>_entities      one row per (entity, chunk) mention: key, name, kind, chunk_id, source;
                                  and one row per chunk with an empty key, written with its mentions: the
                                  chunks whose entities are stored (``indexed``)
    c_<name>_<hash>_entity_links  co-mentions, per source file: (a, b) with a < b by key, names and kinds of
                                  both, and in how many of the file's chunks both are mentioned
    c_<name>_<hash>_relations     relations a chat model read between a chunk's entities (the optional
                                  ``indexer.upkeep.relation_pass``): subject, predicate, object, chunk_id, source;
                                  and one row per chunk read, with an empty subject, in the same write

Everything is per source file, so a changed file replaces only its own rows (``indexer.upkeep.entity_upkeep``).
The tables are named from the collection, not from its chunk tables: a re-embedding moves the chunks to new
tables and leaves the entities in place (their chunk ids follow the text, not the vectors).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

import pyarrow as pa
from lancedb.index import BTree

from indexer.store.schema import in_filters, sql_str
from kimas_desktop.retrieval.entity_lookup import LinkedEntity, Relation
from kimas_desktop.text.entities import Entity, EntityKind

__all__ = ["ENTITIES_SCHEMA", "ENTITY_SUFFIXES", "LINKS_SCHEMA", "RELATIONS_SCHEMA", "EntityTables"]

ENTITY_SUFFIXES = ("_entities", "_entity_links", "_relations")

ENTITIES_SCHEMA = pa.schema(
    [
        pa.field("key", pa.string()),
        pa.field("name", pa.string()),
        pa.field("kind", pa.string()),
        pa.field("chunk_id", pa.string()),
        pa.field("source", pa.string()),
    ]
)
LINKS_SCHEMA = pa.schema(
    [
        pa.field("a", pa.string()),
        pa.field("a_name", pa.string()),
        pa.field("a_kind", pa.string()),
        pa.field("b", pa.string()),
        pa.field("b_name", pa.string()),
        pa.field("b_kind", pa.string()),
        pa.field("chunks", pa.int32()),
        pa.field("source", pa.string()),
    ]
)
RELATIONS_SCHEMA = pa.schema(
    [
        pa.field("subject", pa.string()),
        pa.field("subject_name", pa.string()),
        pa.field("subject_kind", pa.string()),
        pa.field("predicate", pa.string()),
        pa.field("object", pa.string()),
        pa.field("object_name", pa.string()),
        pa.field("object_kind", pa.string()),
        pa.field("chunk_id", pa.string()),
        pa.field("source", pa.string()),
    ]
)
INDEX_ROWS = 20_000  # a table gets B-tree indexes on its looked-up columns once it holds this many rows
LINKED_PER_CHUNK = 16  # co-mentions are counted between a chunk's first this many entities


def _entity(key: str, name: str, kind: str) -> Entity:
    return Entity(key, name, kind)  # type: ignore[arg-type]  # written from an EntityKind


class EntityTables:
    """The mentions, co-mention and relation tables of one collection (LanceDB tables)."""

    def __init__(self, mentions: Any, links: Any, relations: Any, *, index_rows: int = INDEX_ROWS) -> None:
        self._index_rows = index_rows
        self._mentions = mentions
        self._links = links
        self._relations = relations

    # -- write side -----------------------------------------------------------------------------------

    def indexed(self) -> set[str]:
        """The ids of the chunks whose entities are stored."""
        part = self._mentions.search().where("key = ''").select(["chunk_id"]).limit(None).to_arrow()
        return set(part.column("chunk_id").to_pylist())

    def sources_of(self, chunk_ids: Iterable[str]) -> set[str]:
        out: set[str] = set()
        for where in in_filters("chunk_id", chunk_ids):
            part = self._mentions.search().where(where).select(["source"]).limit(None).to_arrow()
            out.update(part.column("source").to_pylist())
        return out

    def delete_sources(self, sources: Iterable[str]) -> None:
        """Links and relations first, then mentions: a file whose mentions are still there still has its
        links."""
        items = sorted(set(sources))
        for table in (self._links, self._relations, self._mentions):
            for where in in_filters("source", items):
                table.delete(where)

    def add(self, found: Iterable[tuple[str, str, list[Entity]]]) -> int:
        """Store the entities of chunks, given as (chunk id, source, entities): their co-mention links,
        then their mentions (one write each). Returns the number of chunks."""
        mentions: dict[str, list[Any]] = {f.name: [] for f in ENTITIES_SCHEMA}
        pairs: dict[str, Counter[tuple[str, str]]] = defaultdict(Counter)
        named: dict[str, Entity] = {}
        count = 0
        for chunk_id, source, entities in found:
            count += 1
            for key, name, kind in [("", "", ""), *((e.key, e.name, e.kind) for e in entities)]:
                mentions["key"].append(key)
                mentions["name"].append(name)
                mentions["kind"].append(kind)
                mentions["chunk_id"].append(chunk_id)
                mentions["source"].append(source)
            linked = sorted(entities[:LINKED_PER_CHUNK], key=lambda e: e.key)
            for i, first in enumerate(linked):
                named.setdefault(first.key, first)
                for second in linked[i + 1 :]:
                    pairs[source][(first.key, second.key)] += 1
        links: dict[str, list[Any]] = {f.name: [] for f in LINKS_SCHEMA}
        for source, counter in pairs.items():
            for (a, b), n in counter.items():
                for column, value in (
                    ("a", a), ("a_name", named[a].name), ("a_kind", named[a].kind),
                    ("b", b), ("b_name", named[b].name), ("b_kind", named[b].kind),
                    ("chunks", n), ("source", source),
                ):  # fmt: skip
                    links[column].append(value)
        if links["a"]:
            self._links.add(pa.table(links, schema=LINKS_SCHEMA))
        if mentions["key"]:
            self._mentions.add(pa.table(mentions, schema=ENTITIES_SCHEMA))
        return count

    def compact(self) -> None:
        """Keep look-ups fast after writes (as ``CollectionTables.refresh_indexes`` does for chunks): merge
        the small fragments many syncs leave, which also brings the indexes up to date, and index the
        looked-up columns (B-trees) once a table is large; rows written since are searched exhaustively."""
        for table, columns in (
            (self._mentions, ("key", "chunk_id", "source")),
            (self._links, ("a", "b", "source")),
            (self._relations, ("subject", "object", "chunk_id", "source")),
        ):
            stats = table.stats()
            if int(stats["fragment_stats"]["num_small_fragments"]) > 16:
                table.optimize(cleanup_older_than=timedelta(hours=1))
            if int(stats["num_rows"]) >= self._index_rows and not table.list_indices():
                for column in columns:
                    table.create_index(column, config=BTree())

    def count_indexed(self) -> int:
        """How many chunks' entities are stored (one marker row each)."""
        return int(self._mentions.count_rows("key = ''"))

    def count_mentions(self) -> int:
        return int(self._mentions.count_rows("key != ''"))

    # -- read side (``EntityLookup``) -----------------------------------------------------------------------

    def entities_in(self, chunk_ids: Iterable[str]) -> dict[str, list[Entity]]:
        out: dict[str, list[Entity]] = {}
        for where in in_filters("chunk_id", dict.fromkeys(chunk_ids)):
            rows = (
                self._mentions.search()
                .where(f"({where}) AND key != ''")
                .select(["chunk_id", "key", "name", "kind"])
                .limit(None)
                .to_arrow()
                .to_pylist()
            )
            for r in rows:
                out.setdefault(r["chunk_id"], []).append(_entity(r["key"], r["name"], r["kind"]))
        return out

    def chunks_mentioning(self, keys: Iterable[str], limit: int = 50) -> list[str]:
        hits: Counter[str] = Counter()
        wanted = [k for k in dict.fromkeys(keys) if k]
        for where in in_filters("key", wanted):
            part = self._mentions.search().where(where).select(["chunk_id"]).limit(None).to_arrow()
            hits.update(part.column("chunk_id").to_pylist())
        ranked = sorted(hits.items(), key=lambda kv: (-kv[1], kv[0]))
        return [chunk_id for chunk_id, _ in ranked[:limit]]

    def linked(self, key: str, limit: int = 20) -> list[LinkedEntity]:
        if not key:
            return []
        q = sql_str(key)
        rows = self._links.search().where(f"a = {q} OR b = {q}").limit(None).to_arrow().to_pylist()
        counts: Counter[str] = Counter()
        named: dict[str, Entity] = {}
        for r in rows:
            side = "b" if r["a"] == key else "a"
            other = r[side]
            counts[other] += int(r["chunks"])
            kind: EntityKind = r[f"{side}_kind"]
            named.setdefault(other, Entity(other, r[f"{side}_name"], kind))
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        return [LinkedEntity(named[k], n) for k, n in ranked[:limit]]

    # -- relations (``indexer.upkeep.relation_pass``) ------------------------------------------------------------

    def mentions_by_chunk(self) -> dict[str, tuple[str, list[Entity]]]:
        """chunk id → (source, its entities), of every chunk that mentions at least one."""
        rows = self._mentions.search().where("key != ''").limit(None).to_arrow().to_pylist()
        out: dict[str, tuple[str, list[Entity]]] = {}
        for r in rows:
            out.setdefault(r["chunk_id"], (r["source"], []))[1].append(
                _entity(r["key"], r["name"], r["kind"])
            )
        return out

    def relations_read(self) -> set[str]:
        """The ids of the chunks a relation pass has read."""
        part = self._relations.search().where("subject = ''").select(["chunk_id"]).limit(None).to_arrow()
        return set(part.column("chunk_id").to_pylist())

    def delete_relations_of(self, chunk_ids: Iterable[str]) -> None:
        for where in in_filters("chunk_id", chunk_ids):
            self._relations.delete(where)

    def add_relations(self, read: Iterable[tuple[str, str, list[Relation]]]) -> None:
        """Store (chunk id, source, relations) of chunks read, each with its marker row, in one write."""
        columns: dict[str, list[Any]] = {f.name: [] for f in RELATIONS_SCHEMA}
        for chunk_id, source, relations in read:
            marker = Relation(Entity("", "", "name"), "", Entity("", "", "name"), chunk_id)
            for rel in [marker, *relations]:
                for column, value in (
                    ("subject", rel.subject.key), ("subject_name", rel.subject.name),
                    ("subject_kind", rel.subject.kind if rel.subject.key else ""),
                    ("predicate", rel.predicate), ("object", rel.object.key), ("object_name", rel.object.name),
                    ("object_kind", rel.object.kind if rel.object.key else ""),
                    ("chunk_id", chunk_id), ("source", source),
                ):  # fmt: skip
                    columns[column].append(value)
        if columns["chunk_id"]:
            self._relations.add(pa.table(columns, schema=RELATIONS_SCHEMA))

    def relations(self, key: str, limit: int = 50) -> list[Relation]:
        if not key:
            return []
        q = sql_str(key)
        rows = self._relations.search().where(f"subject = {q} OR object = {q}").limit(limit).to_arrow()
        return [
            Relation(
                _entity(r["subject"], r["subject_name"], r["subject_kind"]),
                r["predicate"],
                _entity(r["object"], r["object_name"], r["object_kind"]),
                r["chunk_id"],
            )
            for r in rows.to_pylist()
        ]
