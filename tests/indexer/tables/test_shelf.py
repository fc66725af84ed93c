"""The table shelf on real LanceDB: a table's rows written, registered, read back as Arrow with ``_row``,
replaced, removed, and left-overs of a killed sync dropped."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from indexer import LanceStore
from indexer.tables.shelf import StoredTable, table_id
from kimas_desktop.errors import IndexingError
from kimas_desktop.tables import TableColumn, TableInfo

SCHEMA = pa.schema([("_row", pa.int64()), ("c0", pa.string()), ("c1", pa.float64()), ("c2", pa.date32())])
COLUMNS = (TableColumn("Name", "text"), TableColumn("Amount.x", "number"), TableColumn("When", "date"))


def _batch(names: list[str], start: int) -> pa.RecordBatch:
    days = [dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in range(len(names))]
    return pa.record_batch(
        [
            pa.array(range(start, start + len(names)), pa.int64()),
            pa.array(names),
            pa.array([float(i) * 1.5 for i in range(len(names))]),
            pa.array(days, pa.date32()),
        ],
        schema=SCHEMA,
    )


def _store(store: LanceStore, source: str, names: list[str]) -> TableInfo:
    shelf = store.shelf
    info = TableInfo(table_id("c", source, "", 0), "c", source, "", 3, COLUMNS, len(names))
    data = shelf.write_rows("c", SCHEMA, [_batch(names[:2], 4), _batch(names[2:], 6)])
    shelf.register("c", source, [StoredTable(info, 0, data)])
    return info


def test_rows_come_back_typed_with_their_row_numbers(store: LanceStore) -> None:
    info = _store(store, "/f/a.csv", ["ann", "bob", "cy"])
    assert store.shelf.tables("c", "/f/a.csv") == [info]
    assert store.shelf.tables("c", "/f/other.csv") == []
    table = store.shelf.arrow(info)
    assert table.column_names == ["Name", "Amount.x", "When", "_row"]
    assert table.column("_row").to_pylist() == [4, 5, 6]
    assert table.column("Name").to_pylist() == ["ann", "bob", "cy"]
    assert table.schema.field("Amount.x").type == pa.float64()
    assert table.schema.field("When").type == pa.date32()


def test_a_replaced_file_keeps_only_its_new_table(store: LanceStore) -> None:
    _store(store, "/f/a.csv", ["ann", "bob", "cy"])
    info = _store(store, "/f/a.csv", ["dee", "eve", "fay", "gus"])
    assert store.shelf.tables("c", "/f/a.csv") == [info]
    assert store.shelf.arrow(info).column("Name").to_pylist() == ["dee", "eve", "fay", "gus"]
    rows_tables = [n for n in store.shelf._row_tables("c")]
    assert len(rows_tables) == 1  # the old rows are dropped


def test_removed_sources_and_leftovers_are_dropped(store: LanceStore) -> None:
    a = _store(store, "/f/a.csv", ["ann", "bob", "cy"])
    _store(store, "/f/b.csv", ["x", "y", "z"])
    store.shelf.write_rows("c", SCHEMA, [_batch(["orphan"], 2)])  # a killed sync's unregistered rows
    store.shelf.reconcile("c", ["/f/a.csv"])
    assert store.shelf.tables("c", "/f/b.csv") == []
    assert len(store.shelf._row_tables("c")) == 1
    store.shelf.remove_sources("c", ["/f/a.csv"])
    assert store.shelf.all_tables("c") == []
    with pytest.raises(IndexingError):
        store.shelf.arrow(a)
