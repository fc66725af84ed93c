"""Spreadsheets and CSVs through a real sync into real LanceDB: their tables on the shelf with each row's
number, their rows searchable as text with chunk lines naming those rows, and kept in sync (a changed file
replaces its tables, a deleted one loses them, a removed collection drops them all); workbooks that cannot
be read are skipped with their reason."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from indexer import Indexer, LanceStore
from indexer.parse.zip_guard import ZipLimits
from indexer.sync.file_actions import remove_file
from indexer.tables.ingest import TableReader
from kimas_desktop.control import IndexControl
from kimas_desktop.errors import Cancelled
from tests.indexer.files import write
from tests.indexer.tables.workbooks import encrypted_xlsx, xlsx_bytes

SALES = [
    ["Monthly sales"],
    [],
    ["Region", "Units", "Day"],
    ["North", 12, dt.date(2024, 3, 1)],
    ["South", 7, dt.date(2024, 3, 2)],
    ["East", 30, dt.date(2024, 3, 4)],
]
CSV = "city,population\nLyon,522000\nNantes,320000\nLille,236000\n"


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "sales.xlsx").write_bytes(xlsx_bytes({"March": SALES}))
    write(folder / "cities.csv", CSV)
    write(folder / "notes.txt", "The sales figures come from the regional offices.\n")
    return folder


def _row_tables(store: LanceStore) -> list[str]:
    return sorted(n for n in store.shelf._db.table_names() if "_rows_" in n)


def test_tables_stored_with_row_numbers_and_rows_searchable(
    tmp_path: Path, store: LanceStore, indexer: Indexer
) -> None:
    folder = _folder(tmp_path)
    report = indexer.index("c", [folder])
    assert report.indexed == 3 and not report.problems
    (sales,) = store.shelf.tables("c", str(folder / "sales.xlsx"))
    assert (sales.sheet, sales.header_row, sales.rows) == ("March", 3, 3)
    table = store.shelf.arrow(sales)
    assert table.column("_row").to_pylist() == [4, 5, 6]
    assert table.column("Units").to_pylist() == [12.0, 7.0, 30.0]
    (cities,) = store.shelf.tables("c", str(folder / "cities.csv"))
    assert [c.kind for c in cities.columns] == ["text", "number"]
    assert store.shelf.arrow(cities).column("_row").to_pylist() == [2, 3, 4]
    chunks = store.tables("c").chunks()
    nantes = next(c for c in chunks if "city: Nantes; population: 320000" in c.text)
    assert nantes.line_start is not None and nantes.line_end is not None
    assert nantes.line_start <= 3 <= nantes.line_end  # Nantes is on line 3 of the CSV
    south = next(c for c in chunks if "Region: South; Units: 7; Day: 2024-03-02" in c.text)
    assert south.heading == "March"
    card = store.manifest("c")[str(folder / "sales.xlsx")].card or ""
    assert '"tables"' in card and '"Units", "number"' in card


def test_each_chunk_line_is_its_row(tmp_path: Path, store: LanceStore, indexer: Indexer) -> None:
    folder = tmp_path / "docs"
    rows = "".join(f"{i},part-{i},{i * 3}\n" for i in range(1, 301))
    write(folder / "parts.csv", "id,name,stock\n" + rows)  # part i on line i + 1
    indexer.index("c", [folder])
    chunks = [c for c in store.tables("c").chunks() if not c.text.startswith("id | name")]
    assert len(chunks) > 5
    for chunk in chunks:
        lines = [line for line in chunk.text.splitlines() if line]  # blocks are joined by a blank line
        assert chunk.line_start is not None and chunk.line_end == chunk.line_start + len(lines) - 1
        for offset, line in enumerate(lines):
            part = int(line.split(";")[0].removeprefix("id: "))
            assert chunk.line_start + offset == part + 1


def test_changed_and_deleted_files_update_the_shelf(
    tmp_path: Path, store: LanceStore, indexer: Indexer
) -> None:
    folder = _folder(tmp_path)
    indexer.index("c", [folder])
    assert len(_row_tables(store)) == 2
    write(folder / "cities.csv", CSV + "Brest,139000\n")
    indexer.index("c", [folder])
    (cities,) = store.shelf.tables("c", str(folder / "cities.csv"))
    assert cities.rows == 4
    assert store.shelf.arrow(cities).column("city").to_pylist()[-1] == "Brest"
    assert len(_row_tables(store)) == 2  # the old rows were dropped
    (folder / "sales.xlsx").unlink()
    indexer.index("c", [folder])
    assert store.shelf.tables("c", str(folder / "sales.xlsx")) == []
    assert len(_row_tables(store)) == 1
    indexer.remove("c")
    assert _row_tables(store) == []
    assert not any(n.endswith("_tables") for n in store.shelf._db.table_names())


def test_unreadable_workbooks_are_skipped_with_their_reason(
    tmp_path: Path, store: LanceStore, indexer: Indexer
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    plain = xlsx_bytes({"March": SALES})
    (folder / "locked.xlsx").write_bytes(encrypted_xlsx(plain, "s3cret"))
    (folder / "cut.xlsx").write_bytes(plain[: len(plain) * 2 // 3])
    report = indexer.index("c", [folder])
    reasons = {Path(p.path).name: (p.kind, p.reason) for p in report.problems}
    assert reasons["locked.xlsx"][0] == "skipped" and "password-protected" in reasons["locked.xlsx"][1]
    assert (
        reasons["cut.xlsx"][0] == "skipped" and "not a readable Excel (.xlsx) file" in reasons["cut.xlsx"][1]
    )
    assert store.shelf.all_tables("c") == []


def test_rows_a_killed_sync_left_unregistered_are_dropped(
    tmp_path: Path, store: LanceStore, indexer: Indexer
) -> None:
    folder = _folder(tmp_path)
    indexer.index("c", [folder])
    cities = folder / "cities.csv"
    write(cities, CSV + "Brest,139000\n")
    reader = TableReader(store.shelf, "c", zip_limits=ZipLimits(), text_chars=1000)
    reader.read(cities, cities.read_bytes())  # its new rows written, then the sync was killed
    assert len(_row_tables(store)) == 3
    assert store.shelf.tables("c", str(cities))[0].rows == 3  # the old table is still whole
    indexer.index("c", [folder])
    assert store.shelf.tables("c", str(cities))[0].rows == 4
    assert len(_row_tables(store)) == 2


def test_table_files_indexed_before_tables_are_read_again_once(
    tmp_path: Path, store: LanceStore, indexer: Indexer
) -> None:
    folder = _folder(tmp_path)
    indexer.index("c", [folder])
    csv, xlsx = str(folder / "cities.csv"), str(folder / "sales.xlsx")
    manifest = store.manifest("c")
    text_card = {k: v for k, v in json.loads(manifest[csv].card or "").items() if k != "tables"}
    tables = store.tables(
        "c"
    )  # as a version before tables left them: the CSV read as text, the .xlsx skipped
    tables.delete_sources([xlsx])
    tables.put_files(
        [
            replace(manifest[csv], card=json.dumps(text_card)),
            replace(
                manifest[xlsx], status="skipped", reason="unsupported file type '.xlsx'", chunks=0, card=None
            ),
        ]
    )
    store.shelf.remove_sources("c", [csv, xlsx])
    assert indexer.index("c", [folder]).indexed == 2
    assert store.shelf.tables("c", csv) and store.shelf.tables("c", xlsx)
    assert indexer.index("c", [folder]).indexed == 0


def test_a_moved_table_file_keeps_its_table_under_its_new_path_and_a_removed_one_loses_it(
    tmp_path: Path, store: LanceStore, indexer: Indexer
) -> None:
    folder = _folder(tmp_path)
    indexer.index("c", [folder])
    (folder / "archive").mkdir()
    moved = folder / "archive" / "cities.csv"
    (folder / "cities.csv").rename(moved)
    indexer.index("c", [folder])
    assert store.shelf.tables("c", str(folder / "cities.csv")) == []
    (cities,) = store.shelf.tables("c", str(moved))
    assert store.shelf.arrow(cities).column("city").to_pylist() == ["Lyon", "Nantes", "Lille"]
    assert len(_row_tables(store)) == 2
    remove_file(store, "c", str(moved))
    assert store.shelf.tables("c", str(moved)) == [] and len(_row_tables(store)) == 1


def test_cancel_stops_a_long_table_and_leaves_none_of_it(
    tmp_path: Path, store: LanceStore, indexer: Indexer
) -> None:
    folder = tmp_path / "docs"
    write(folder / "long.csv", "id,name\n" + "".join(f"{i},n{i}\n" for i in range(400_000)))
    control = IndexControl()

    def cancel_once_rows_are_written() -> None:
        deadline = time.monotonic() + 60
        while not _row_tables(store) and time.monotonic() < deadline:
            time.sleep(0.005)
        control.cancel()

    watcher = threading.Thread(target=cancel_once_rows_are_written)
    watcher.start()
    with pytest.raises(Cancelled):
        indexer.index("c", [folder], control=control)
    watcher.join()
    assert store.shelf.all_tables("c") == [] and _row_tables(store) == []
    assert store.manifest("c") == {}
    indexer.index("c", [folder])
    assert store.shelf.tables("c", str(folder / "long.csv"))[0].rows == 400_000
