"""``Database``: the LanceDB connection of a ``LanceStore``, the handles of its tables, and the read path of
a collection's tables with the detection of damaged ones.

A table deleted or damaged on disk, while the store runs or before, is found when a read of it fails (or
when ``damage`` checks it, as listing the collections does): the collection's tables are opened afresh and
read through (``indexer.store.table_faults``), and ``IndexDamagedError`` says which is missing or
unreadable. The next sync rebuilds them from the files (``repair_tables``, which checks the same way).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar

import lancedb
import pyarrow as pa

from indexer.store.collection_tables import CollectionTables
from indexer.store.full_text import build_index
from indexer.store.records import CollectionRecords
from indexer.store.schema import FILES_SCHEMA, chunks_schema
from indexer.store.table_faults import MISSING, damaged, lance_words, table_fault
from kimas_desktop.errors import IndexDamagedError, IndexingError, KimasError

__all__ = ["Database"]

log = logging.getLogger(__name__)

T = TypeVar("T")


class Database:
    """The database at ``uri`` (connected on first use), its open tables (kept, so a table deleted since is
    noticed when reading it fails) and the collection records (``records``). ``lock`` is the store's."""

    def __init__(
        self,
        uri: str,
        options: dict[str, str],
        *,
        read_consistency_s: float,
        vector_index_rows: int,
        lock: threading.RLock,
    ) -> None:
        self.uri = uri
        self._options = options
        self._consistency_s = read_consistency_s
        self._vector_index_rows = vector_index_rows
        self._lock = lock
        self._db: Any = None
        self._tables: dict[str, Any] = {}
        self._suspect: set[str] = set()  # collections a read found damaged: ``damage`` reads them through
        self.records = CollectionRecords(self.open, timedelta(seconds=read_consistency_s), lock)

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
                    raise IndexingError(
                        f"cannot open the collection database at {self.uri}: {err}",
                        code="store_unopenable",
                        values={"uri": self.uri, "error": err},
                    ) from err
            return self._db

    def open(self, name: str, schema: pa.Schema | None = None) -> Any:
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

    def connection(self) -> Any:
        """The LanceDB connection (for a table written from a stream of batches)."""
        return self._conn()

    def table_names(self) -> list[str]:
        """The names of every table in the database."""
        names: list[str] = []
        token = None
        while True:
            page = self._conn().list_tables(page_token=token)
            names.extend(page.tables)
            token = page.page_token
            if not token:
                return names

    def drop(self, name: str) -> None:
        with self._lock:
            self._tables.pop(name, None)
            self._conn().drop_table(name, ignore_missing=True)

    def create_tables(self, prefix: str, dim: int) -> None:
        chunks = self.open(f"{prefix}_chunks", chunks_schema(dim))
        build_index(chunks)
        self.open(f"{prefix}_files", FILES_SCHEMA)

    def _layout(self, collection: str, *, fresh: bool = False) -> tuple[str, int]:
        """(table prefix, vector dim) of the tables the collection's record names (``fresh``: the record
        as it is now, not as of one consistency interval ago)."""
        row = self.records.require(collection) if fresh else self.records.recent(collection)
        return str(row["table"]), int(row["dim"])

    def tables_at(self, collection: str, prefix: str, dim: int) -> CollectionTables:
        return CollectionTables(
            collection,
            self.open(f"{prefix}_chunks", chunks_schema(dim)),
            self.open(f"{prefix}_files", FILES_SCHEMA),
            dim,
            vector_index_rows=self._vector_index_rows,
        )

    # -- reading, and damaged tables ------------------------------------------------------------------

    def tables(self, collection: str, *, fresh: bool = False) -> CollectionTables:
        """The collection's current chunk and manifest tables; ``IndexDamagedError`` when one is gone."""
        prefix, dim = self._layout(collection, fresh=fresh)
        gone = {s.strip("_"): MISSING for s in ("_chunks", "_files") if self.open(prefix + s) is None}
        if gone:
            raise damaged(collection, gone)
        return self.tables_at(collection, prefix, dim)

    def _faults(self, collection: str) -> dict[str, str]:
        """What is wrong with the collection's tables (by role), read afresh: the kept handles are
        dropped first, since a handle outlives its table's directory."""
        with self._lock:
            prefix, _ = self._layout(collection, fresh=True)
            faults = {}
            for role, column in (("chunks", "chunk_id"), ("files", "path")):
                self._tables.pop(f"{prefix}_{role}", None)
                fault = table_fault(self.open(f"{prefix}_{role}"), column)
                if fault is not None:
                    faults[role] = fault
            return faults

    def read(self, collection: str, read: Callable[[CollectionTables], T]) -> T:
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
        return read(self.tables(collection, fresh=True))

    def damage(self, collection: str) -> str | None:
        """Why the collection's tables cannot be read (a sentence), or None when they can. Cheap (a row
        count) unless a read found them damaged: then read through until they are whole again."""
        if collection in self._suspect:
            faults = self._faults(collection)
            if faults:
                return str(damaged(collection, faults))
            self._suspect.discard(collection)
        try:
            self.read(collection, CollectionTables.count_chunks)
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
                self.drop(f"{prefix}_{role}")
            self.create_tables(prefix, dim)
            return True
