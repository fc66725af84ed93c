"""Column kinds and cell values (indexer/tables/values.py), and headers in any script."""

from __future__ import annotations

import datetime as dt

import pytest

from indexer.tables.delimited import _encoding
from indexer.tables.layout import find_header
from indexer.tables.values import Cell, ColumnTally, parse_date, parse_number


@pytest.mark.parametrize(
    ("text", "value"),
    [("1,234.5", 1234.5), ("-3", -3.0), ("(12)", -12.0), ("$5", 5.0), ("7%", 7.0), ("1e3", 1000.0), ("0", 0.0),
     ("0.25", 0.25), ("0042", None), ("12345678901234567", None), ("abc", None), ("1,23", None), ("", None)],
)  # fmt: skip
def test_numbers(text: str, value: float | None) -> None:
    assert parse_number(text) == value


def test_decimal_commas_only_when_the_file_writes_them() -> None:
    assert parse_number("1.234,5", decimal_comma=True) == 1234.5
    assert parse_number("3,5", decimal_comma=True) == 3.5
    assert parse_number("3,5") is None


@pytest.mark.parametrize(
    ("text", "value"),
    [("2024-03-01", dt.date(2024, 3, 1)), ("2024/3/1", dt.date(2024, 3, 1)),
     ("2024-03-01T10:30:00Z", dt.datetime(2024, 3, 1, 10, 30)), ("1 Mar 2024", dt.date(2024, 3, 1)),
     ("March 1, 2024", dt.date(2024, 3, 1)), ("2024年3月1日", dt.date(2024, 3, 1)), ("2024-02-30", None),
     ("Mars 2024", None)],
)  # fmt: skip
def test_dates(text: str, value: dt.date | None) -> None:
    assert parse_date(text) == value


def _kind(values: list[str]) -> ColumnTally:
    tally = ColumnTally()
    for v in values:
        tally.add(v)
    return tally


def test_a_column_is_a_number_or_a_date_only_when_every_value_is() -> None:
    assert _kind(["1", "n/a", "2.5", ""]).kind == "number"
    assert _kind(["1", "two"]).kind == "text"
    assert _kind(["", "-"]).kind == "text"
    slashed = _kind(["01/02/2024", "13/02/2024"])
    assert slashed.kind == "date" and slashed.day_first
    assert slashed.converter()("01/02/2024") == dt.date(2024, 2, 1)
    assert _kind(["01/02/2024", "02/13/2024"]).converter()("01/02/2024") == dt.date(2024, 1, 2)
    assert _kind(["13/01/2024", "01/13/2024"]).kind == "text"  # day first and month first: not a date
    timed = _kind(["2024-01-02", "2024-01-02 10:30"])
    assert timed.kind == "date" and str(timed.arrow_type()) == "timestamp[us]"
    assert _kind(["x", "y", "x"]).column("c").samples == ("x", "y")


def test_headers_and_kinds_in_chinese_and_hindi() -> None:
    rows: list[list[Cell]] = [["销售报告"], ["城市", "销量", "日期"], ["北京", "12", "2024年3月1日"]]
    assert find_header(rows) == 1
    hindi: list[list[Cell]] = [["शहर", "जनसंख्या"], ["दिल्ली", "१२३४"]]
    assert find_header(hindi) == 0
    assert _kind(["2024年3月1日", "2024年12月31日"]).kind == "date"
    assert _kind(["१२३४", "56"]).kind == "number"


def test_encodings() -> None:
    assert _encoding("Ville;Zürich\n".encode()) == "utf-8"
    assert _encoding("Relevé;München\n".encode("cp1252")) == "cp1252"
    assert _encoding(("Город;Сумма\nМосква;12\nКиев;3\n" * 3).encode("cp1251")) == "cp1251"
    assert _encoding("\ufeffa,b\n".encode("utf-8")) == "utf-8-sig"
