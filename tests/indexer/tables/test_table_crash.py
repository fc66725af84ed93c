"""kill -9 in the middle of a sync of spreadsheets and CSVs, twice, then one more sync: the shelf holds
exactly the tables an uninterrupted index would (same tables, same typed rows), and no rows a killed sync
left behind."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from indexer import Indexer, LanceStore
from local_models.fake import HashEmbedder
from tests.indexer.files import small_config, write
from tests.indexer.sync.test_crash import sync_until_killed
from tests.indexer.tables.workbooks import xlsx_bytes

pytestmark = pytest.mark.slow


def _csv(i: int, rows: int = 60) -> str:
    return "id,name,score\n" + "".join(f"{j},n{i}-{j},{j * i}\n" for j in range(1, rows + 1))


def _shelf(store: LanceStore) -> dict[tuple[str, str], tuple[object, list[dict[str, object]]]]:
    out = {}
    for info in store.shelf.all_tables("c"):
        rows = store.shelf.arrow(info).to_pylist()
        out[(info.source, info.table_id)] = ((info.sheet, info.header_row, info.columns, info.rows), rows)
    return out


def _row_tables(store: LanceStore) -> int:
    return sum(1 for n in store.shelf._db.table_names() if "_rows_" in n)


def test_a_killed_sync_of_tables_converges_to_an_uninterrupted_one(tmp_path: Path) -> None:
    folder, db = tmp_path / "docs", tmp_path / "db"
    for i in range(16):
        write(folder / f"d{i % 2}" / f"t{i:02d}.csv", _csv(i))
    for i in range(4):
        (folder / f"book{i}.xlsx").write_bytes(
            xlsx_bytes({"S": [["k", "v"], *[[f"k{j}", j] for j in range(40)]]})
        )
    assert sync_until_killed(db, folder, after_files=6)

    for i in range(0, 16, 3):
        write(folder / f"d{i % 2}" / f"t{i:02d}.csv", _csv(i + 100, 70))
    shutil.rmtree(folder / "d1")
    (folder / "book0.xlsx").unlink()
    assert sync_until_killed(db, folder, after_files=2)

    store = LanceStore(str(db))
    Indexer(store, HashEmbedder(dim=64), small_config()).index("c", [folder])
    fresh = LanceStore(str(tmp_path / "fresh"))
    Indexer(fresh, HashEmbedder(dim=64), small_config()).index("c", [folder])
    assert _shelf(store) == _shelf(fresh)
    assert len(_shelf(store)) == 8 + 3
    assert _row_tables(store) == len(_shelf(store))
