"""``LanceTableShelf``: the tables of a collection's files, kept in the collection's LanceDB database.

Layout, beside the collection's chunks (``indexer.store.lance_store``), named from the collection alone (a
re-embedding leaves them in place):

    c_<name>_<hash>_tables        the registry: one row per table of a file (``TableInfo`` as columns, the
                                  columns as JSON) and the name of the LanceDB table holding its rows
    c_<name>_<hash>_rows_<32 hex> the rows of one table: ``_row`` (int64, the row's 1-based number in its
                                  sheet or CSV) and ``c0``, ``c1``, ... (float64, date32 or timestamp, string)

A row table is written whole under a fresh name before the registry names it, and dropped only after the
registry stopped naming it; the registry's rows for one file are replaced in one commit. So a killed sync
leaves at worst row tables no registry row names, which ``reconcile`` drops at the end of the next sync.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from indexer.store.database import Database
from indexer.store.schema import in_filters, sql_str, table_prefix
from kimas_desktop.errors import IndexingError
from kimas_desktop.tables import TableColumn, TableInfo

__all__ = ["REGISTRY_SCHEMA", "LanceTableShelf", "StoredTable", "table_id"]

ROW = "_row"
REGISTRY_SCHEMA = pa.schema(
    [
        pa.field("table_id", pa.string()),
        pa.field("collection", pa.string()),
        pa.field("source", pa.string()),
        pa.field("sheet", pa.string()),
        pa.field("position", pa.int32()),  # the table's place among its file's tables (0-based)
        pa.field("header_row", pa.int64()),
        pa.field("columns", pa.string()),  # JSON: [{"name", "kind", "samples", "grain"}]
        pa.field("rows", pa.int64()),
        pa.field("data", pa.string()),  # the LanceDB table holding its rows
    ]
)


def table_id(collection: str, source: str, sheet: str, position: int) -> str:
    """Stable for the same file, sheet and place in the sheet."""
    key = "\0".join((collection, source, sheet, str(position)))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]


@dataclass(frozen=True)
class StoredTable:
    """A table whose rows are written (in the LanceDB table ``data``), waiting to be registered."""

    info: TableInfo
    position: int
    data: str


def _columns_json(columns: Sequence[TableColumn]) -> str:
    return json.dumps(
        [{"name": c.name, "kind": c.kind, "samples": list(c.samples), "grain": c.grain} for c in columns]
    )


def _info(row: dict[str, Any]) -> TableInfo:
    columns = tuple(
        TableColumn(c["name"], c["kind"], tuple(c.get("samples") or ()), c.get("grain") or "")
        for c in json.loads(row["columns"])
    )
    return TableInfo(
        table_id=row["table_id"],
        collection=row["collection"],
        source=row["source"],
        sheet=row["sheet"] or "",
        header_row=int(row["header_row"]),
        columns=columns,
        rows=int(row["rows"]),
    )


class _ArrowCache:
    """The Arrow of the row tables read last, up to ``limit`` bytes in all. A row table never changes (a
    changed file gets a new one), so its name is its version."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._tables: OrderedDict[str, pa.Table] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, name: str) -> pa.Table | None:
        with self._lock:
            table = self._tables.get(name)
            if table is not None:
                self._tables.move_to_end(name)
            return table

    def put(self, name: str, table: pa.Table) -> None:
        with self._lock:
            self._tables[name] = table
            while len(self._tables) > 1 and sum(t.nbytes for t in self._tables.values()) > self._limit:
                self._tables.popitem(last=False)


class LanceTableShelf:
    """The ``TableShelf`` of every collection of ``db`` (the store's database), and its write side for the
    indexer (``write_rows``, ``register``, ``remove_sources``, ``reconcile``, ``drop_collection``)."""

    def __init__(self, db: Database, *, cache_mb: float = 256.0) -> None:
        self._db = db
        self._cache = _ArrowCache(int(cache_mb * 1024**2))

    # -- reading ----------------------------------------------------------------------------------------

    def _registry(self, collection: str, *, create: bool = False) -> Any:
        name = table_prefix(collection) + "_tables"
        return self._db.open(name, REGISTRY_SCHEMA if create else None)

    def _rows(self, collection: str, where: str | None = None) -> list[dict[str, Any]]:
        registry = self._registry(collection)
        if registry is None:
            return []
        query = registry.search()
        if where is not None:
            query = query.where(where)
        rows: list[dict[str, Any]] = query.limit(None).to_arrow().to_pylist()
        return sorted(rows, key=lambda r: (r["source"], r["position"]))

    def tables(self, collection: str, source: str) -> list[TableInfo]:
        """The tables of one file, in file order (empty when it has none or is not indexed)."""
        return [_info(r) for r in self._rows(collection, f"source = {sql_str(source)}")]

    def all_tables(self, collection: str) -> list[TableInfo]:
        """Every table of the collection, by file and place in the file."""
        return [_info(r) for r in self._rows(collection)]

    def arrow(self, table: TableInfo) -> pa.Table:
        """All data rows of ``table``: one column per ``TableColumn``, named as the column (numbers
        float64, dates date32 or timestamp, text string), then ``_row`` (int64, 1-based row number in the
        sheet or CSV), in row order. ``IndexingError`` when the table is no longer stored."""
        found = self._rows(table.collection, f"table_id = {sql_str(table.table_id)}")
        name = found[0]["data"] if found else ""
        cached = self._cache.get(name)
        if cached is not None:
            return cached
        data = self._db.open(name) if found else None
        if data is None:
            raise IndexingError(f"the table {table.table_id} of '{table.source}' is no longer in the index")
        stored = data.to_arrow()
        columns = _info(found[0]).columns
        names = [f"c{i}" for i in range(len(columns))]
        out = stored.select([*names, ROW]).rename_columns([*(c.name for c in columns), ROW])
        out = out.take(pc.sort_indices(out, [(ROW, "ascending")]))
        self._cache.put(name, out)
        return out

    # -- writing (the indexer, under the collection's writer lease) -----------------------------------

    def write_rows(self, collection: str, schema: pa.Schema, batches: Iterable[pa.RecordBatch]) -> str:
        """Write one table's rows (``schema``: ``_row`` and ``c0``...) into a new LanceDB table, streamed;
        its name, for ``StoredTable.data``. Unregistered until ``register``."""
        name = f"{table_prefix(collection)}_rows_{secrets.token_hex(16)}"
        raised: list[BaseException] = []

        def passed() -> Iterator[pa.RecordBatch]:
            try:
                yield from batches
            except BaseException as err:  # Arrow would wrap it (a Cancelled, say) in a RuntimeError
                raised.append(err)
                raise

        try:
            self._db.connection().create_table(name, data=pa.RecordBatchReader.from_batches(schema, passed()))
        except BaseException:
            self._db.drop(name)
            if raised:
                raise raised[0] from None
            raise
        return name

    def register(self, collection: str, source: str, stored: Sequence[StoredTable]) -> None:
        """Make ``stored`` the tables of ``source`` (none: it has none now), in one commit; the row tables
        it named before are dropped after."""
        old = {r["data"] for r in self._rows(collection, f"source = {sql_str(source)}")}
        rows = [
            {
                "table_id": s.info.table_id,
                "collection": collection,
                "source": source,
                "sheet": s.info.sheet,
                "position": s.position,
                "header_row": s.info.header_row,
                "columns": _columns_json(s.info.columns),
                "rows": s.info.rows,
                "data": s.data,
            }
            for s in stored
        ]
        registry = self._registry(collection, create=True)
        if rows or old:
            data = pa.Table.from_pylist(rows, schema=REGISTRY_SCHEMA)
            merge = registry.merge_insert("table_id").when_matched_update_all().when_not_matched_insert_all()
            merge.when_not_matched_by_source_delete(f"source = {sql_str(source)}").execute(data)
        for name in old - {s.data for s in stored}:
            self._db.drop(name)

    def remove_sources(self, collection: str, sources: Iterable[str]) -> None:
        """Forget the tables of ``sources`` (deleted or abandoned files) and drop their rows."""
        registry = self._registry(collection)
        if registry is None:
            return
        for where in in_filters("source", sources):
            names = {r["data"] for r in self._rows(collection, where)}
            if names:
                registry.delete(where)
            for name in names:
                self._db.drop(name)

    def reconcile(self, collection: str, sources: Iterable[str]) -> None:
        """After a sync: forget the tables of files that are not ``sources`` (the indexed files), and drop
        row tables no registry row names (left by a killed or cancelled sync)."""
        rows = self._rows(collection)
        keep = set(sources)
        gone = sorted({r["source"] for r in rows} - keep)
        if gone:
            self.remove_sources(collection, gone)
        named = {r["data"] for r in rows if r["source"] in keep}
        for name in self._row_tables(collection) - named:
            self._db.drop(name)

    def drop_collection(self, collection: str) -> None:
        """Drop the collection's registry and every row table (the collection is removed)."""
        for name in self._row_tables(collection):
            self._db.drop(name)
        self._db.drop(table_prefix(collection) + "_tables")

    def _row_tables(self, collection: str) -> set[str]:
        pattern = re.compile(re.escape(table_prefix(collection)) + r"_rows_[0-9a-f]{32}")
        return {n for n in self._db.table_names() if pattern.fullmatch(n)}
