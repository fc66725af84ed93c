"""``LanceStore``: every collection in one LanceDB database, local directory or object store alike.

Layout (all LanceDB tables, so an ``s3://`` URI shares everything with a team):

    kimas_collections     one row per collection: folders, the embedder's identity (model id, dim, probe
                          vectors), counts, problems, the routing synopsis (centroids; content-word counts
                          as two parallel lists, sorted by word), and a re-embedding under way (its tables
                          and embedder)
    c_<name>_<hash>[_<id>]_chunks  the chunks: every ``Chunk`` field, the chunk's ordinal in its file, the
                          vector; a full-text (BM25) index on ``text``; a vector index once the table is large
    c_<name>_<hash>[_<id>]_files   the file manifest (``FileRecord``)
    c_<name>_<hash>_entities, _entity_links, _relations  the entity index (``indexer.store.entity_tables``),
                          named from the collection alone: a re-embedding leaves it in place
    _kimas_leases/        one writer lease per collection (``indexer.store.lease``), beside the tables

The read side is the ``ChunkSearcher`` protocol (``collections``, ``synopsis``, ``search``); it always
reads the tables the collection's record names. The write side is for ``Indexer``: it writes under the
collection's writer lease, into the same tables, or, while it re-embeds a collection, into new ones that
the record names only once they are complete (``begin_rebuild``/``finish_rebuild``), so the old index keeps
answering meanwhile. Every LanceDB write is an atomic commit, so a killed process leaves each table at its
last commit; the indexer orders its writes so that any such state converges on the next sync. A synopsis
(centroids and word counts) is one row, so it is written in one commit.

Given the configured ``embedder``, a collection recorded with another embedder "needs re-embedding":
``CollectionInfo`` says so, its synopsis has no centroids, and a dense or hybrid search on it raises
``EmbedderMismatchError`` (a full-text search still works).

By role: ``indexer.store.database`` holds the connection and the read path of a collection's tables,
with the detection of damaged ones (a deleted or unreadable table raises ``IndexDamagedError``; the next
sync rebuilds it); ``indexer.store.collection_writes`` writes the records (sync marks, re-embedding);
``indexer.store.records`` reads and converts them. Search scores: see ``indexer.store.search``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np

from indexer.store.collection_tables import CollectionTables
from indexer.store.collection_writes import CollectionWrites
from indexer.store.database import Database
from indexer.store.entity_tables import (
    ENTITIES_SCHEMA,
    ENTITY_SUFFIXES,
    LINKS_SCHEMA,
    RELATIONS_SCHEMA,
    EntityTables,
)
from indexer.store.identity import EmbedderIdentity, identity_of
from indexer.store.lease import Lease, WriterLeases, slot_factory
from indexer.store.records import Row, info_of, synopsis_of, synopsis_state
from indexer.store.schema import StoredChunk, sql_str, table_prefix
from indexer.sync.manifest import FileRecord
from indexer.tables.shelf import LanceTableShelf
from indexer.upkeep.cards import card_from_json
from indexer.upkeep.synopsis import SynopsisState
from kimas_desktop.errors import EmbedderMismatchError
from kimas_desktop.protocols import Embedder, SearchMode, Vector
from kimas_desktop.retrieval.entity_lookup import LinkedEntity, Relation
from kimas_desktop.text.entities import Entity
from kimas_desktop.types import Chunk, CollectionInfo, DocumentCard, FileProblem, Hit, Synopsis

__all__ = ["LanceStore", "StoredChunk", "sql_str", "table_prefix"]


class LanceStore:
    """All collections in one LanceDB database at ``uri`` (a directory, or ``s3://bucket/prefix`` with
    endpoint and credentials in ``storage_options``). Cheap to construct: it connects on first use.

    ``vector_index_rows``: a collection gets an IVF-HNSW-SQ vector index once it holds this many chunks;
    below that, exact (flat) search is both fast enough and exact. ``embedder``: the configured embedding
    model, whose identity the collections are checked against (its probe texts are embedded on first
    need). ``lease_ttl_s``/``lease_wait_s``: see ``indexer.store.lease.WriterLeases``.
    """

    def __init__(
        self,
        uri: str,
        storage_options: dict[str, str] | None = None,
        *,
        vector_index_rows: int = 50_000,
        read_consistency_s: float = 1.0,
        embedder: Embedder | None = None,
        lease_ttl_s: float = 30.0,
        lease_wait_s: float = 0.0,
    ) -> None:
        self.uri = uri
        options = dict(storage_options or {})
        self._synopses: dict[str, tuple[Row, Synopsis | None]] = {}  # by the record they came from
        self._lock = threading.RLock()
        self._db = Database(
            uri,
            options,
            read_consistency_s=read_consistency_s,
            vector_index_rows=vector_index_rows,
            lock=self._lock,
        )
        self._records = self._db.records
        self._writes = CollectionWrites(self._db, self._lock)
        self._embedder = embedder
        self._identity: EmbedderIdentity | None = None
        self.shelf = LanceTableShelf(self._db)  # the tables of spreadsheets and CSVs (``indexer.tables``)
        self.leases = WriterLeases(slot_factory(uri, options), ttl_s=lease_ttl_s, wait_s=lease_wait_s)

    # -- embedder identity and writer leases -----------------------------------------------------------

    def use_embedder(self, embedder: Embedder | None) -> None:
        """Check collections against ``embedder`` from now on (after a switch of the embedding model)."""
        with self._lock:
            if embedder is not self._embedder:
                self._embedder, self._identity = embedder, None
                self._synopses.clear()

    def identity(self) -> EmbedderIdentity | None:
        """The configured embedder's identity (None without one)."""
        with self._lock:
            if self._identity is None and self._embedder is not None:
                self._identity = identity_of(self._embedder)
            return self._identity

    def needs_reembedding(self, collection: str) -> bool:
        return self._stale(self._records.recent(collection))

    def _stale(self, row: Row) -> bool:
        identity = self.identity()
        return identity is not None and not identity.matches(
            row["embedding_model"], int(row["dim"]), row.get("probe")
        )

    def lease(self, collection: str, *, wait_s: float | None = None) -> Lease:
        """The collection's writer lease (``CollectionBusyError`` while another writer holds it)."""
        return self.leases.acquire(table_prefix(collection), collection, wait_s=wait_s)

    # -- collections (writes: ``indexer.store.collection_writes``) ---------------------------------------

    def open_collection(
        self,
        collection: str,
        *,
        embedding_model: str,
        dim: int,
        folders: Sequence[str] = (),
        probe: Vector | None = None,
    ) -> None:
        """Create the collection, or check that it was built with this embedder (else
        ``EmbedderMismatchError``: it needs re-embedding). Records ``folders`` when given, and ``probe``
        (the embedder's probe vectors) when the record has none yet."""
        self._writes.open_collection(
            collection, embedding_model=embedding_model, dim=dim, folders=folders, probe=probe
        )

    def has_collection(self, collection: str) -> bool:
        return self._records.get(collection) is not None

    def remove_collection(self, collection: str) -> None:
        """Delete the collection and its tables; ``CollectionNotFoundError`` if there is none."""
        self._writes.remove_collection(collection)

    def collections(self) -> list[CollectionInfo]:
        rows = self._records.all()
        return [self._checked(info_of(rows[name], stale=self._stale(rows[name]))) for name in sorted(rows)]

    def collection(self, collection: str) -> CollectionInfo:
        row = self._records.require(collection)
        return self._checked(info_of(row, stale=self._stale(row)))

    def _checked(self, info: CollectionInfo) -> CollectionInfo:
        """``info``, with a first problem when its tables are missing or unreadable (``damage``)."""
        why = self.damage(info.name)
        if why is None:
            return info
        return replace(info, problems=(FileProblem(info.name, why, "failed"), *info.problems))

    def legacy_interrupted(self, collection: str) -> bool:
        """Whether a sync set the flag (``mark_syncing``) and never finished: a failed write, or a version
        before writer leases that was killed."""
        return bool(self._records.require(collection).get("syncing"))

    def mark_syncing(self, collection: str) -> None:
        """Before a sync writes: until ``finish_sync``, the collection counts as interrupted, so a sync
        that failed half-way (a full disk, a permission) is recovered by the next one, as after a kill."""
        self._writes.mark_syncing(collection)

    def record_counts(self, collection: str, *, files: int, chunks: int) -> None:
        """After a failed sync: the counts the tables hold now (the sync stays marked unfinished)."""
        self._writes.record_counts(collection, files=files, chunks=chunks)

    def finish_sync(
        self, collection: str, *, files: int, chunks: int, problems: Sequence[FileProblem]
    ) -> None:
        self._writes.finish_sync(collection, files=files, chunks=chunks, problems=problems)

    def begin_rebuild(self, collection: str, identity: EmbedderIdentity) -> tuple[CollectionTables, bool]:
        """New tables for re-embedding ``collection`` with ``identity``, beside the current ones, which
        keep answering until ``finish_rebuild``. Resumes the tables of an earlier, unfinished
        re-embedding with the same embedder (True then). Call under the collection's writer lease."""
        return self._writes.begin_rebuild(collection, identity)

    def finish_rebuild(
        self,
        collection: str,
        state: SynopsisState,
        *,
        files: int,
        chunks: int,
        problems: Sequence[FileProblem],
    ) -> None:
        """Switch the collection to its new tables and embedder in one commit, then drop the old tables."""
        self._writes.finish_rebuild(collection, state, files=files, chunks=chunks, problems=problems)

    # -- synopsis -------------------------------------------------------------------------------------

    def synopsis_state(self, collection: str) -> SynopsisState | None:
        return synopsis_state(self._records.require(collection))

    def put_synopsis(self, collection: str, state: SynopsisState) -> None:
        """Store the centroids and, when counted (``state.terms`` is not None), the word counts."""
        self._writes.put_synopsis(collection, state)

    def synopsis(self, collection: str) -> Synopsis | None:
        """The router's view, made once per version of the collection's record."""
        with self._lock:
            row = self._records.all().get(collection)
            if row is None:
                return None
            cached = self._synopses.get(collection)
            if cached is not None and cached[0] is row:
                return cached[1]
            synopsis = synopsis_of(row, stale=self._stale(row))
            self._synopses[collection] = (row, synopsis)
            return synopsis

    # -- tables (the read path and damaged tables: ``indexer.store.database``) ---------------------------

    def tables(self, collection: str) -> CollectionTables:
        """The collection's current chunk and manifest tables; ``IndexDamagedError`` when one of them is
        gone (``repair_tables`` before a sync recreates it). Cheap: opened tables are kept, so a table
        deleted since is noticed when reading it fails."""
        return self._db.tables(collection)

    def damage(self, collection: str) -> str | None:
        """Why the collection's tables cannot be read (a sentence), or None when they can. Cheap (a row
        count) unless a read found them damaged: then read through until they are whole again."""
        return self._db.damage(collection)

    def repair_tables(self, collection: str) -> bool:
        """Recreate a collection's missing or unreadable tables (call under its writer lease). Without its
        chunks table, its manifest describes chunks that are gone: it is emptied too, so every file is read
        again. True when something was repaired."""
        return self._db.repair_tables(collection)

    def manifest(self, collection: str) -> dict[str, FileRecord]:
        return self._db.read(collection, CollectionTables.manifest)

    def chunks(self, collection: str) -> list[Chunk]:
        """Every chunk of the collection (no vectors), by source and position."""
        return self._db.read(collection, CollectionTables.chunks)

    def count_chunks(self, collection: str) -> int:
        return self._db.read(collection, CollectionTables.count_chunks)

    def cards(self, collection: str) -> list[DocumentCard]:
        """The card of each indexed document that has one (files indexed before cards have none)."""
        records = self.manifest(collection).values()
        found = (card_from_json(r.path, r.card) for r in records if r.status == "indexed")
        return [c for c in found if c is not None]

    def section(self, collection: str, source: str, heading: str, *, limit: int) -> list[Chunk]:
        return self._db.read(collection, lambda t: t.section(source, heading, limit=limit))

    # -- entity index (``indexer.store.entity_tables``; read side: ``EntityLookup``) ----------------------------

    def entity_tables(self, collection: str, *, create: bool = False) -> EntityTables | None:
        """The collection's entity index; None when it has none (unless ``create``: then made empty)."""
        prefix = table_prefix(collection)
        schemas = (ENTITIES_SCHEMA, LINKS_SCHEMA, RELATIONS_SCHEMA) if create else (None, None, None)
        found = [
            self._db.open(prefix + s, schema) for s, schema in zip(ENTITY_SUFFIXES, schemas, strict=True)
        ]
        mentions, links, relations = found
        if mentions is None or links is None or relations is None:
            return None
        return EntityTables(mentions, links, relations)

    def drop_entities(self, collection: str) -> None:
        """Delete the collection's entity index (the indexer's ``entities`` switch is off)."""
        self._writes.drop_entities(collection)

    def entities_in(self, collection: str, chunk_ids: Iterable[str]) -> dict[str, list[Entity]]:
        tables = self.entity_tables(collection)
        return {} if tables is None else tables.entities_in(chunk_ids)

    def chunks_mentioning(self, collection: str, keys: Iterable[str], limit: int = 50) -> list[str]:
        tables = self.entity_tables(collection)
        return [] if tables is None else tables.chunks_mentioning(keys, limit)

    def linked(self, collection: str, key: str, limit: int = 20) -> list[LinkedEntity]:
        tables = self.entity_tables(collection)
        return [] if tables is None else tables.linked(key, limit)

    def relations(self, collection: str, key: str, limit: int = 50) -> list[Relation]:
        tables = self.entity_tables(collection)
        return [] if tables is None else tables.relations(key, limit)

    # -- search ---------------------------------------------------------------------------------------

    def document_frequencies(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        """Chunks in all collections, and how many hold each of ``terms`` (full-text words), for a reranker
        that weighs a question's words (``kimas_desktop.retrieval.word_weights``)."""
        rows, found = 0, dict.fromkeys(terms, 0)
        for info in self.collections():
            if not info.chunks or self._db.damage(info.name) is not None:
                continue  # nothing to count, or its search fails on its own and says why
            n, counts = self._db.read(info.name, lambda t: t.document_frequencies(terms))
            rows += n
            for term, count in counts.items():
                found[term] += count
        return rows, found

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
        """Best ``k`` chunks of ``collection``, best first (scores: see ``indexer.store.search``); with ``sources``,
        only chunks of those files. ``EmbedderMismatchError`` for a dense or hybrid search of a collection
        that needs re-embedding."""
        row = self._records.recent(collection)
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if mode != "fts":
            dim = int(row["dim"])
            if query.shape[0] != dim or self._stale(row):
                identity = self.identity()
                configured = identity.describe() if identity else f"a {query.shape[0]}-d model"
                raise EmbedderMismatchError(
                    f"collection '{collection}' was built with {row['embedding_model']} ({dim}-d vectors), "
                    f"not the configured embedding model {configured}: it needs re-embedding "
                    f"(kimas reindex {collection})"
                )
        # A re-embedding that finished while this search read the old tables, and dropped them, is
        # searched again in the new ones by ``_read`` (found by the bench/busy.py run).
        return self._db.read(
            collection, lambda t: t.search(text=text, vector=query, k=k, mode=mode, sources=sources)
        )
