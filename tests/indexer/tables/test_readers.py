"""Spreadsheets and CSVs read as tables (indexer/tables/): real .xlsx, .ods, .csv and .tsv files, their
headers (also below a title, and two tables side by side), column kinds, typed rows and row numbers."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pyarrow as pa
import pytest

from indexer import LanceStore
from indexer.parse.blocks import SkipFile
from indexer.parse.zip_guard import ZipLimits
from indexer.tables.ingest import TableFile, TableReader
from tests.indexer.tables.workbooks import encrypted_xlsx, ods_bytes, with_cached_values, xlsx_bytes

SALES = [
    ["Region", "Units", "Day"],
    ["North", 12, dt.date(2024, 3, 1)],
    ["South", 7.5, dt.date(2024, 3, 2)],
    ["East", 30, dt.date(2024, 3, 4)],
]


@pytest.fixture
def reader(store: LanceStore) -> TableReader:
    return TableReader(store.shelf, "c", zip_limits=ZipLimits(), text_chars=100_000)


def _rows(store: LanceStore, found: TableFile, i: int = 0) -> list[dict[str, object]]:
    stored = found.stored[i]
    table: pa.Table = store.shelf._db.open(stored.data).to_arrow()
    names = [c.name for c in stored.info.columns]
    return table.rename_columns(["_row", *names]).to_pylist()


def test_xlsx_with_a_title_above_its_header(store: LanceStore, reader: TableReader) -> None:
    data = xlsx_bytes({"Sales": [["Sales in March"], [], *SALES]}, at={"Sales": "B2"})
    found = reader.read(Path("/f/sales.xlsx"), data)
    (stored,) = found.stored
    info = stored.info
    assert (info.sheet, info.header_row, info.rows) == ("Sales", 4, 3)
    assert [(c.name, c.kind) for c in info.columns] == [
        ("Region", "text"),
        ("Units", "number"),
        ("Day", "date"),
    ]
    assert info.columns[0].samples == ("North", "South", "East")
    rows = _rows(store, found)
    assert rows[1] == {"_row": 6, "Region": "South", "Units": 7.5, "Day": dt.date(2024, 3, 2)}
    blocks = list(found.blocks)
    assert blocks[0].text == "Sales in March" and blocks[0].line_start == 2
    body = next(b for b in blocks if "North" in b.text)
    assert body.line_start == 5 and body.heading == "Sales"
    assert body.text.splitlines()[1] == "Region: South; Units: 7.5; Day: 2024-03-02"


def test_xlsx_formulas_read_as_their_saved_values(store: LanceStore, reader: TableReader) -> None:
    data = xlsx_bytes({"S": [["Item", "Price", "Twice"], ["pen", 2, "=B2*2"], ["ink", 5, "=B3*2"]]})
    found = reader.read(Path("/f/p.xlsx"), with_cached_values(data, {"B2*2": "4", "B3*2": "10"}))
    assert [r["Twice"] for r in _rows(store, found)] == [4.0, 10.0]
    assert found.stored[0].info.columns[2].kind == "number"


def test_two_tables_side_by_side_and_several_sheets(store: LanceStore, reader: TableReader) -> None:
    left_right = [["Name", "Age", None, "City", "Country"], ["Ann", 31, None, "Lyon", "France"], ["Bob", 42]]
    data = xlsx_bytes({"People": left_right, "Sales": SALES})
    found = reader.read(Path("/f/two.xlsx"), data)
    infos = [s.info for s in found.stored]
    assert [(i.sheet, [c.name for c in i.columns], i.rows) for i in infos] == [
        ("People", ["Name", "Age"], 2),
        ("People", ["City", "Country"], 1),
        ("Sales", ["Region", "Units", "Day"], 3),
    ]
    assert len({i.table_id for i in infos}) == 3


def test_ods(store: LanceStore, reader: TableReader) -> None:
    found = reader.read(Path("/f/sales.ods"), ods_bytes({"Q1": SALES}))
    info = found.stored[0].info
    assert (info.sheet, info.header_row, info.rows) == ("Q1", 1, 3)
    assert [c.kind for c in info.columns] == ["text", "number", "date"]
    assert _rows(store, found)[2] == {"_row": 4, "Region": "East", "Units": 30.0, "Day": dt.date(2024, 3, 4)}


def test_csv_sniffed_with_decimal_commas_and_an_old_encoding(store: LanceStore, reader: TableReader) -> None:
    text = "Relevé de mars\n\nVille;Montant;Date\nLyon;3,5;01/03/2024\nMünchen;1.234,5;13/03/2024\n"
    found = reader.read(Path("/f/releve.csv"), text.encode("cp1252"))
    info = found.stored[0].info
    assert info.header_row == 3
    assert [(c.name, c.kind) for c in info.columns] == [
        ("Ville", "text"),
        ("Montant", "number"),
        ("Date", "date"),
    ]
    assert _rows(store, found) == [
        {"_row": 4, "Ville": "Lyon", "Montant": 3.5, "Date": dt.date(2024, 3, 1)},
        {"_row": 5, "Ville": "München", "Montant": 1234.5, "Date": dt.date(2024, 3, 13)},
    ]


def test_csv_rows_numbered_by_their_first_line_and_codes_kept_as_text(
    store: LanceStore, reader: TableReader
) -> None:
    text = 'Code,Note,Total\n0042,"two\nlines","1,200"\n0043,plain,"3,400.5"\n\n0044,last,7\n'
    found = reader.read(Path("/f/codes.csv"), text.encode())
    info = found.stored[0].info
    assert [c.kind for c in info.columns] == ["text", "text", "number"]
    rows = _rows(store, found)
    assert [r["_row"] for r in rows] == [2, 4, 6]
    assert [r["Code"] for r in rows] == ["0042", "0043", "0044"]
    assert [r["Total"] for r in rows] == [1200.0, 3400.5, 7.0]


def test_tsv(store: LanceStore, reader: TableReader) -> None:
    found = reader.read(
        Path("/f/t.tsv"), b"name\tscore\tat\nann\t1e3\t2024-01-02 10:30\nbob\t-2\t2024-01-03\n"
    )
    info = found.stored[0].info
    assert [c.kind for c in info.columns] == ["text", "number", "date"]
    rows = _rows(store, found)
    assert rows[0]["score"] == 1000.0 and rows[0]["at"] == dt.datetime(2024, 1, 2, 10, 30)


def test_password_protected_and_truncated_workbooks_are_refused(reader: TableReader) -> None:
    plain = xlsx_bytes({"Sales": SALES})
    with pytest.raises(SkipFile, match="password-protected"):
        reader.read(Path("/f/secret.xlsx"), encrypted_xlsx(plain, "s3cret"))
    with pytest.raises(SkipFile, match=r"not a readable Excel \(\.xlsx\) file"):
        reader.read(Path("/f/cut.xlsx"), plain[: len(plain) // 2])
