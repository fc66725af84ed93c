"""``LanceStore``: every collection in one LanceDB database, local directory or object store alike.

Layout (all LanceDB tables, so an ``s3://`` URI shares everything with a team):

    kimas_collections     one row per collection: folders, the embedder's identity (model id, dim, probe
                          vectors), counts, problems, the routing synopsis (centroids; content-word counts
                          as two parallel lists, sorted by word), and a re-embedding under way (its tables
                          and embedder)
    c_<name>_<hash>[_<id>]_chunks  the chunks: every ``Chunk`` field, the chunk's ordinal in its file, the
                          vector; a full-text (BM25) index on ``text``; a vector index once the table is large
    c_<name>_<hash>[_<id>]_files   the file manifest (``FileRecord``)
    c_<name>_<hash>_entities, _entity_links, _relations  the entity index (``indexer.entity_tables``),
                          named from the collection alone: a re-embedding leaves it in place
    _kimas_leases/        one writer lease per collection (``indexer.lease``), beside the tables

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

A table deleted or damaged on disk, while the store runs or before, is found when a read of it fails (or
when ``damage`` checks it, as listing the collections does): the collection's tables are opened afresh and
read through (``indexer.table_faults``), and ``IndexDamagedError`` says which is missing or unreadable. The
next sync rebuilds them from the files (``repair_tables``, which checks the same way).

The records themselves are read and written by ``indexer.records``. Search scores: see ``indexer.search``.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any, TypeVar

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import FTS

from indexer.cards import card_from_json
from indexer.collection_tables import CollectionTables
from indexer.entity_tables import (
    ENTITIES_SCHEMA,
    ENTITY_SUFFIXES,
    LINKS_SCHEMA,
    RELATIONS_SCHEMA,
    EntityTables,
)
from indexer.identity import EmbedderIdentity, identity_of
from indexer.lease import Lease, WriterLeases, slot_factory
from indexer.manifest import FileRecord
from indexer.records import (
    CollectionRecords,
    Row,
    counts_columns,
    info_of,
    new_record,
    synopsis_columns,
    synopsis_of,
    synopsis_state,
)
from indexer.schema import FILES_SCHEMA, StoredChunk, chunks_schema, sql_str, table_prefix
from indexer.synopsis import SynopsisState
from indexer.table_faults import MISSING, damaged, lance_words, table_fault
from kimas_desktop.errors import EmbedderMismatchError, IndexDamagedError, IndexingError, KimasError
from kimas_desktop.protocols import Embedder, SearchMode, Vector
from kimas_desktop.retrieval.entity_lookup import LinkedEntity, Relation
from kimas_desktop.text.entities import Entity
from kimas_desktop.types import Chunk, CollectionInfo, DocumentCard, FileProblem, Hit, Synopsis

__all__ = ["LanceStore", "StoredChunk", "sql_str", "table_prefix"]

log = logging.getLogger(__name__)

T = TypeVar("T")


class LanceStore:
    """All collections in one LanceDB database at ``uri`` (a directory, or ``s3://bucket/prefix`` with
    endpoint and credentials in ``storage_options``). Cheap to construct: it connects on first use.

    ``vector_index_rows``: a collection gets an IVF-HNSW-SQ vector index once it holds this many chunks;
    below that, exact (flat) search is both fast enough and exact. ``embedder``: the configured embedding
    model, whose identity the collections are checked against (its probe texts are embedded on first
    need). ``lease_ttl_s``/``lease_wait_s``: see ``indexer.lease.WriterLeases``.
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
        self._consistency_s = read_consistency_s
        self._options = dict(storage_options or {})
        self._vector_index_rows = vector_index_rows
        self._synopses: dict[str, tuple[Row, Synopsis | None]] = {}  # by the record they came from
        self._db: Any = None
        self._tables: dict[str, Any] = {}
        self._suspect: set[str] = set()  # collections a read found damaged: ``damage`` reads them through
        self._lock = threading.RLock()
        self._records = CollectionRecords(self._open, timedelta(seconds=read_consistency_s), self._lock)
        self._embedder = embedder
        self._identity: EmbedderIdentity | None = None
        self.leases = WriterLeases(slot_factory(uri, self._options), ttl_s=lease_ttl_s, wait_s=lease_wait_s)

    # -- connection and tables ------------------------------------------------------------------------

    def _conn(self) -> Any:
        with self._lock:
            if self._db is None:
                try:
                    self._db = lancedb.connect(
                        self.uri,
                        storage_options=self._options or None,
                        read_consistency_interval=timedelta(seconds=self._consistency_s),
                    )
                except Exception as err:
                    raise IndexingError(f"cannot open the collection database at {self.uri}: {err}") from err
            return self._db

    def _open(self, name: str, schema: pa.Schema | None = None) -> Any:
        """The table ``name``; created (empty, with ``schema``) when missing and a schema is given."""
        with self._lock:
            table = self._tables.get(name)
            if table is not None:
                return table
            db = self._conn()
            try:
                table = db.open_table(name)
            except (ValueError, FileNotFoundError):
                if schema is None:
                    return None
                table = db.create_table(name, schema=schema, exist_ok=True)
            self._tables[name] = table
            return table

    def _drop(self, name: str) -> None:
        with self._lock:
            self._tables.pop(name, None)
            self._conn().drop_table(name, ignore_missing=True)

    def _layout(self, collection: str, *, fresh: bool = False) -> tuple[str, int]:
        """(table prefix, vector dim) of the tables the collection's record names (``fresh``: the record
        as it is now, not as of one consistency interval ago)."""
        row = self._records.require(collection) if fresh else self._records.recent(collection)
        return str(row["table"]), int(row["dim"])

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

    # -- collections ----------------------------------------------------------------------------------

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
        with self._lock:
            row = self._records.get(collection)
            if row is not None:
                if not EmbedderIdentity(embedding_model, dim, probe).matches(
                    row["embedding_model"], int(row["dim"]), row.get("probe")
                ):
                    raise EmbedderMismatchError(
                        f"collection '{collection}' was built with the embedding model "
                        f"{row['embedding_model']} ({row['dim']}-d vectors), not the configured "
                        f"{embedding_model} ({dim}-d): it needs re-embedding (kimas reindex {collection})"
                    )
                changes: dict[str, Any] = {}
                if folders and list(row["folders"] or []) != list(folders):
                    changes["folders"] = list(folders)
                if probe is not None and not row.get("probe"):
                    changes["probe"] = np.asarray(probe, np.float32).ravel().tolist()
                if changes:
                    self._records.put({**row, **changes})
                return
            prefix = table_prefix(collection)
            for suffix in ("_chunks", "_files", *ENTITY_SUFFIXES):  # leftovers of an interrupted removal
                self._drop(prefix + suffix)
            self._create_tables(prefix, dim)
            self._records.put(
                new_record(
                    collection, prefix, folders=folders, embedding_model=embedding_model, dim=dim, probe=probe
                )
            )

    def _create_tables(self, prefix: str, dim: int) -> None:
        chunks = self._open(f"{prefix}_chunks", chunks_schema(dim))
        chunks.create_index("text", config=FTS(), replace=True)
        self._open(f"{prefix}_files", FILES_SCHEMA)

    def has_collection(self, collection: str) -> bool:
        return self._records.get(collection) is not None

    def remove_collection(self, collection: str) -> None:
        """Delete the collection and its tables; ``CollectionNotFoundError`` if there is none."""
        with self._lock:
            row = self._records.require(collection)
            self._records.delete(collection)
            for prefix in filter(None, (row["table"], row.get("pending_table"))):
                for suffix in ("_chunks", "_files"):
                    self._drop(prefix + suffix)
            self.drop_entities(collection)

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
        with self._lock:
            row = self._records.require(collection)
            if not row.get("syncing"):
                self._records.put({**row, "syncing": True})

    def record_counts(self, collection: str, *, files: int, chunks: int) -> None:
        """After a failed sync: the counts the tables hold now (the sync stays marked unfinished)."""
        with self._lock:
            row = self._records.require(collection)
            self._records.put({**row, "files": files, "chunks": chunks})

    def finish_sync(
        self, collection: str, *, files: int, chunks: int, problems: Sequence[FileProblem]
    ) -> None:
        with self._lock:
            row = self._records.require(collection)
            self._records.put({**row, "syncing": False, **counts_columns(files, chunks, problems)})

    # -- re-embedding -----------------------------------------------------------------------------------

    def begin_rebuild(self, collection: str, identity: EmbedderIdentity) -> tuple[CollectionTables, bool]:
        """New tables for re-embedding ``collection`` with ``identity``, beside the current ones, which
        keep answering until ``finish_rebuild``. Resumes the tables of an earlier, unfinished
        re-embedding with the same embedder (True then). Call under the collection's writer lease."""
        with self._lock:
            row = self._records.require(collection)
            pending = row.get("pending_table")
            resumed = bool(pending) and identity.matches(
                row.get("pending_model") or "", int(row.get("pending_dim") or 0), row.get("pending_probe")
            )
            if not resumed:
                if pending:  # built for another embedder: start over
                    for suffix in ("_chunks", "_files"):
                        self._drop(pending + suffix)
                pending = f"{table_prefix(collection)}_{secrets.token_hex(3)}"
                self._create_tables(pending, identity.dim)
                self._records.put(
                    {
                        **row,
                        "pending_table": pending,
                        "pending_model": identity.model_id,
                        "pending_dim": identity.dim,
                        "pending_probe": None if identity.probe is None else identity.probe.ravel().tolist(),
                    }
                )
            return self._tables_at(collection, str(pending), identity.dim), resumed

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
        with self._lock:
            row = self._records.require(collection)
            old, new = row["table"], row.get("pending_table")
            if not new:
                raise IndexingError(f"collection '{collection}' is not being re-embedded")
            self._records.put(
                {
                    **row,
                    **synopsis_columns(state),
                    **counts_columns(files, chunks, problems),
                    "table": new,
                    "embedding_model": row["pending_model"],
                    "dim": row["pending_dim"],
                    "probe": row["pending_probe"],
                    "pending_table": None,
                    "pending_model": None,
                    "pending_dim": None,
                    "pending_probe": None,
                    "syncing": False,
                }
            )
            for suffix in ("_chunks", "_files"):
                self._drop(old + suffix)

    # -- synopsis -------------------------------------------------------------------------------------

    def synopsis_state(self, collection: str) -> SynopsisState | None:
        return synopsis_state(self._records.require(collection))

    def put_synopsis(self, collection: str, state: SynopsisState) -> None:
        """Store the centroids and, when counted (``state.terms`` is not None), the word counts."""
        with self._lock:
            row = self._records.require(collection)
            self._records.put({**row, **synopsis_columns(state)})

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

    # -- tables -----------------------------------------------------------------------------------------

    def tables(self, collection: str) -> CollectionTables:
        """The collection's current chunk and manifest tables; ``IndexDamagedError`` when one of them is
        gone (``repair_tables`` before a sync recreates it). Cheap: opened tables are kept, so a table
        deleted since is noticed when reading it fails (``_read``)."""
        return self._tables_of(collection)

    def _tables_of(self, collection: str, *, fresh: bool = False) -> CollectionTables:
        prefix, dim = self._layout(collection, fresh=fresh)
        gone = {s.strip("_"): MISSING for s in ("_chunks", "_files") if self._open(prefix + s) is None}
        if gone:
            raise damaged(collection, gone)
        return self._tables_at(collection, prefix, dim)

    def _faults(self, collection: str) -> dict[str, str]:
        """What is wrong with the collection's tables (by role), read afresh: the kept handles are
        dropped first, since a handle outlives its table's directory."""
        with self._lock:
            prefix, _ = self._layout(collection, fresh=True)
            faults = {}
            for role, column in (("chunks", "chunk_id"), ("files", "path")):
                self._tables.pop(f"{prefix}_{role}", None)
                fault = table_fault(self._open(f"{prefix}_{role}"), column)
                if fault is not None:
                    faults[role] = fault
            return faults

    def _read(self, collection: str, read: Callable[[CollectionTables], T]) -> T:
        """``read`` of the collection's tables. When it fails, the tables are opened and checked afresh:
        ``IndexDamagedError`` when one is missing or unreadable; else ``read`` is tried once more on the
        fresh tables (a re-embedding switched tables, or another process rebuilt them)."""
        try:
            return read(self.tables(collection))
        except KimasError:
            raise
        except Exception as err:
            faults = self._faults(collection)
            if faults:
                log.warning("collection '%s': %s", collection, faults)
                self._suspect.add(collection)
                raise damaged(collection, faults) from err
        return read(self._tables_of(collection, fresh=True))

    def damage(self, collection: str) -> str | None:
        """Why the collection's tables cannot be read (a sentence), or None when they can. Cheap (a row
        count) unless a read found them damaged: then read through until they are whole again."""
        if collection in self._suspect:
            faults = self._faults(collection)
            if faults:
                return str(damaged(collection, faults))
            self._suspect.discard(collection)
        try:
            self._read(collection, CollectionTables.count_chunks)
        except IndexDamagedError as err:
            return str(err)
        except Exception as err:  # read afresh and found whole, yet unreadable
            return (
                f"the index of collection '{collection}' cannot be read ({lance_words(err)}); index it again"
            )
        return None

    def repair_tables(self, collection: str) -> bool:
        """Recreate a collection's missing or unreadable tables (call under its writer lease). Without its
        chunks table, its manifest describes chunks that are gone: it is emptied too, so every file is read
        again. True when something was repaired."""
        with self._lock:
            prefix, dim = self._layout(collection, fresh=True)
            faults = self._faults(collection)
            self._suspect.discard(collection)
            if not faults:
                return False
            log.warning("collection '%s' lost its tables (%s): rebuilding", collection, faults)
            for role in ("chunks", "files") if "chunks" in faults else ("files",):
                self._drop(f"{prefix}_{role}")
            self._create_tables(prefix, dim)
            return True

    def _tables_at(self, collection: str, prefix: str, dim: int) -> CollectionTables:
        return CollectionTables(
            collection,
            self._open(f"{prefix}_chunks", chunks_schema(dim)),
            self._open(f"{prefix}_files", FILES_SCHEMA),
            dim,
            vector_index_rows=self._vector_index_rows,
        )

    def manifest(self, collection: str) -> dict[str, FileRecord]:
        return self._read(collection, CollectionTables.manifest)

    def chunks(self, collection: str) -> list[Chunk]:
        """Every chunk of the collection (no vectors), by source and position."""
        return self._read(collection, CollectionTables.chunks)

    def count_chunks(self, collection: str) -> int:
        return self._read(collection, CollectionTables.count_chunks)

    def cards(self, collection: str) -> list[DocumentCard]:
        """The card of each indexed document that has one (files indexed before cards have none)."""
        records = self.manifest(collection).values()
        found = (card_from_json(r.path, r.card) for r in records if r.status == "indexed")
        return [c for c in found if c is not None]

    def section(self, collection: str, source: str, heading: str, *, limit: int) -> list[Chunk]:
        return self._read(collection, lambda t: t.section(source, heading, limit=limit))

    # -- entity index (``indexer.entity_tables``; read side: ``EntityLookup``) ----------------------------

    def entity_tables(self, collection: str, *, create: bool = False) -> EntityTables | None:
        """The collection's entity index; None when it has none (unless ``create``: then made empty)."""
        prefix = table_prefix(collection)
        schemas = (ENTITIES_SCHEMA, LINKS_SCHEMA, RELATIONS_SCHEMA) if create else (None, None, None)
        found = [self._open(prefix + s, schema) for s, schema in zip(ENTITY_SUFFIXES, schemas, strict=True)]
        mentions, links, relations = found
        if mentions is None or links is None or relations is None:
            return None
        return EntityTables(mentions, links, relations)

    def drop_entities(self, collection: str) -> None:
        """Delete the collection's entity index (the indexer's ``entities`` switch is off)."""
        for suffix in ENTITY_SUFFIXES:
            self._drop(table_prefix(collection) + suffix)

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
        """Best ``k`` chunks of ``collection``, best first (scores: see ``indexer.search``); with ``sources``,
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
        return self._read(
            collection, lambda t: t.search(text=text, vector=query, k=k, mode=mode, sources=sources)
        )
