"""The LLM-free table planner: the common forms of a table question, and no plan for what a table lacks."""

from __future__ import annotations

import pytest

from kimas_desktop.answer.tables.planner import TablePlanner
from kimas_desktop.answer.tables.reading import row_values
from kimas_desktop.tables import TableColumn, TableFilter, TableInfo, TableQuery

CARS = TableInfo(
    "t1",
    "c",
    "/k/cars.xlsx",
    "Data",
    1,
    (
        # a name per car: the indexer keeps the first 50 distinct values of the 398
        TableColumn(
            "Name", "text", ("mazda glc", "ford pinto", "honda civic", *(f"car {i}" for i in range(47)))
        ),
        TableColumn("Origin", "text", ("Japan", "USA", "Europe")),
        TableColumn("Cylinders", "number", ("4", "6", "8")),
        TableColumn("Horsepower", "number", ("65", "130", "88")),
        TableColumn("Model Year", "number", ("70", "82")),
        TableColumn("Sold On", "date", ("1982-03-05",)),
    ),
    398,
)
plan = TablePlanner().plan


def f(column: str, op: str, value: str | float) -> TableFilter:
    return TableFilter(column, op, value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("How many cars come from Japan?", TableQuery("count", filters=(f("Origin", "=", "Japan"),))),
        ("What is the horsepower of the ford pinto?", TableQuery("lookup", "Horsepower", (f("Name", "=", "ford pinto"),))),
        ("What is the total horsepower of cars from Europe?", TableQuery("sum", "Horsepower", (f("Origin", "=", "Europe"),))),
        ("What is the average horsepower?", TableQuery("mean", "Horsepower")),
        ("What is the highest horsepower?", TableQuery("max", "Horsepower")),
        ("Which name has the most horsepower?", TableQuery("argmax", "Horsepower", label="Name")),
        ("Which car has the lowest horsepower among cars with 8 cylinders?", TableQuery("argmin", "Horsepower", (f("Cylinders", "=", 8.0),), label="Name")),
        ("How many cars have horsepower above 100?", TableQuery("count", filters=(f("Horsepower", ">", 100.0),))),
        ("How many cars were sold on March 5, 1982?", TableQuery("count", filters=(f("Sold On", "=", "1982-03-05"),))),
        ("What is the average horsepower for each origin?", TableQuery("group", "Horsepower", by="Origin", agg="mean")),
        ("What are the top 3 cars by horsepower?", TableQuery("top", "Horsepower", label="Name", agg="max", k=3)),
        (
            "What is the difference in horsepower between the mazda glc and the honda civic?",
            TableQuery("difference", "Horsepower", pair=(f("Name", "=", "mazda glc"), f("Name", "=", "honda civic"))),
        ),
    ],
)  # fmt: skip
def test_the_common_forms_plan_as_the_question_says(question: str, query: TableQuery) -> None:
    assert plan(question, CARS) == query


def test_a_value_only_the_found_rows_hold_is_a_filter() -> None:
    """Samples hold 50 values at most: the row chunks the search found name the others."""
    rows = ["Name: chevrolet impala; Origin: USA; Cylinders: 8; Horsepower: 165"]
    question = "What is the horsepower of the chevrolet impala?"
    assert plan(question, CARS) is None
    assert plan(question, CARS, rows) == TableQuery(
        "lookup", "Horsepower", (f("Name", "=", "chevrolet impala"),)
    )


@pytest.mark.parametrize(
    "question",
    [
        "How many cars come from Germany?",  # a name the table does not hold
        "What is the horsepower of the Tesla Model S?",
        "How many electric cars are there?",  # a word that narrows the rows to ones no column names
        "What is the weather like today?",  # nothing to compute
    ],
)
def test_no_plan_for_what_the_table_lacks(question: str) -> None:
    assert plan(question, CARS) is None


def test_a_date_outside_the_table_still_plans_and_selects_nothing() -> None:
    """The engine's empty result declines it (the planner cannot know the range from samples)."""
    assert plan("How many cars were sold on 2031-01-01?", CARS) == TableQuery(
        "count", filters=(f("Sold On", "=", "2031-01-01"),)
    )


def test_chinese_and_hindi_headers_and_values() -> None:
    """The planner reads words through the one text layer: jieba's words, Devanagari words whole."""
    zh = TableInfo(
        "t2",
        "c",
        "/k/城市.csv",
        "",
        1,
        (TableColumn("城市", "text", ("北京", "上海")), TableColumn("人口", "number", ("2189",))),
        2,
    )
    assert plan("北京的人口是多少？", zh) == TableQuery("lookup", "人口", (f("城市", "=", "北京"),))
    hi = TableInfo(
        "t3",
        "c",
        "/k/shahar.csv",
        "",
        1,
        (
            TableColumn("शहर", "text", ("दिल्ली", "मुंबई")),
            TableColumn("जनसंख्या", "number", ("1")),
        ),
        2,
    )
    assert plan("दिल्ली की जनसंख्या क्या है?", hi) == TableQuery("lookup", "जनसंख्या", (f("शहर", "=", "दिल्ली"),))


def test_found_rows_are_read_by_their_headers_and_other_lines_are_skipped() -> None:
    text = "Name | Origin | Horsepower\nName: ford pinto; Origin: USA; Horsepower: 75\n\nName: a; b; Origin: Japan"
    assert row_values([text], CARS.columns) == {
        "Name": {"ford pinto", "a; b"},
        "Origin": {"USA", "Japan"},
        "Horsepower": {"75"},
    }
