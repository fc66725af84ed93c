"""ArrowEngine: each operation of a TableQuery over a real Arrow table, with the rows it used."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from indexer.tables.engine import ArrowEngine
from kimas_desktop.tables import TableColumn, TableFilter, TableInfo, TableQuery

INFO = TableInfo(
    "t",
    "c",
    "/k/cars.xlsx",
    "Data",
    3,
    (
        TableColumn("Name", "text"),
        TableColumn("Origin", "text"),
        TableColumn("Horsepower", "number"),
        TableColumn("Sold", "date"),
        TableColumn("Checked", "date"),
    ),
    5,
)
DATA = pa.table(
    {
        "Name": ["mazda glc", "ford pinto", "honda civic", "vw rabbit", "ford torino"],
        "Origin": ["Japan", "USA", " japan ", "Europe", "USA"],
        "Horsepower": pa.array([65.0, 75.0, 67.0, None, 140.0], pa.float64()),
        "Sold": pa.array([dt.date(1982, 3, 5), dt.date(1982, 3, 6), dt.date(1981, 1, 2), None, dt.date(1970, 5, 1)]),
        "Checked": pa.array([dt.datetime(1982, 3, 5, 14, 30)] * 5, pa.timestamp("us")),
        "_row": pa.array([4, 5, 6, 7, 8], pa.int64()),
    }
)  # fmt: skip


class Shelf:
    def arrow(self, table: TableInfo) -> pa.Table:
        return DATA


run = ArrowEngine(Shelf()).run
JAPAN = TableFilter("Origin", "=", "Japan")


def test_count_matches_text_without_case_or_spaces_and_names_the_rows() -> None:
    r = run(INFO, TableQuery("count", filters=(JAPAN,)))
    assert (r.value, r.text, r.description, r.used) == (2.0, "2", "rows where Origin = Japan: 2", 2)
    assert [row.row for row in r.rows] == [4, 6]
    assert r.rows[0].cells[0] == ("Name", "mazda glc")


@pytest.mark.parametrize(
    ("op", "value", "rows"),
    [("sum", 347.0, 4), ("mean", 86.75, 4), ("min", 65.0, 4), ("max", 140.0, 4)],
)
def test_aggregates_skip_empty_cells(op: str, value: float, rows: int) -> None:
    r = run(INFO, TableQuery(op, "Horsepower"))  # type: ignore[arg-type]
    assert (r.value, r.used) == (value, rows)


def test_arg_max_and_min_answer_with_the_label_and_its_row() -> None:
    top = run(INFO, TableQuery("argmax", "Horsepower", label="Name"))
    low = run(INFO, TableQuery("argmin", "Horsepower", (TableFilter("Origin", "=", "USA"),), label="Name"))
    assert (top.value, [r.row for r in top.rows]) == ("ford torino", [8])
    assert "row 8" in top.description
    assert low.value == "ford pinto"


def test_dates_a_day_a_month_a_year_and_a_timestamp() -> None:
    day = run(INFO, TableQuery("lookup", "Name", (TableFilter("Sold", "=", "1982-03-05"),)))
    month = run(INFO, TableQuery("count", filters=(TableFilter("Sold", "=", "1982-03"),)))
    before = run(INFO, TableQuery("count", filters=(TableFilter("Sold", "<", "1982"),)))
    stamp = run(INFO, TableQuery("count", filters=(TableFilter("Checked", "=", "1982-03-05"),)))
    assert (day.value, month.value, before.value, stamp.value) == ("mazda glc", 2.0, 2.0, 5.0)


def test_group_top_and_difference() -> None:
    g = run(INFO, TableQuery("group", "Horsepower", by="Origin", agg="max"))
    assert g.value == "USA" and g.text.startswith("USA 140")
    top = run(INFO, TableQuery("top", "Horsepower", label="Name", k=2))
    assert top.text == "ford torino (140), ford pinto (75)"
    a, b = TableFilter("Name", "=", "ford torino"), TableFilter("Name", "=", "mazda glc")
    d = run(INFO, TableQuery("difference", "Horsepower", pair=(a, b)))
    assert (d.value, [r.row for r in d.rows]) == (75.0, [8, 4])


def test_a_query_that_selects_no_row_is_empty() -> None:
    for q in (
        TableQuery("count", filters=(TableFilter("Origin", "=", "Germany"),)),
        TableQuery("lookup", "Horsepower", (TableFilter("Sold", "=", "2031-01-01"),)),
        TableQuery("mean", "Horsepower", (TableFilter("Name", "=", "vw rabbit"),)),  # its cell is empty
    ):
        assert run(INFO, q).empty, q
