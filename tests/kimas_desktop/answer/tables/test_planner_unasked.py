"""What a table question asks that its table cannot honour (issue 43, third round): the thing a count
counts when that is no column, value or name of the table ("executions" in a table of states' crime
rates), and a kind of row the table does not list ("daisy" flowers in a table of iris species). Either
is no plan, and ``missing`` names it, so the answer declines instead of counting or averaging the wrong
rows."""

from __future__ import annotations

import pytest

from kimas_desktop.answer.tables.planner import TablePlanner
from kimas_desktop.tables import TableColumn, TableFilter, TableInfo, TableQuery

STATES = ("Ohio", "Texas", "Maine", "Iowa", "Utah", "Idaho")
CRIME = TableInfo(
    "crime",
    "c",
    "/k/statecrime.xlsx",
    "Data",
    1,
    (
        TableColumn("state", "text", STATES),
        TableColumn("murder", "number", ("5.1", "6.2", "1.8", "1.9", "2.3", "2.1")),
        TableColumn("poverty", "number", ("15", "17", "12", "11", "9", "13")),
    ),
    len(STATES),
)
# A panel: one row per firm and year, so "for Chrysler" selects many rows.
FIRMS = TableInfo(
    "firms",
    "c",
    "/k/grunfeld.csv",
    "",
    1,
    (
        TableColumn("firm", "text", ("Chrysler", "IBM", "Goodyear")),
        TableColumn("year", "number", ("1935", "1936", "1937")),
        TableColumn("invest", "number", ("40", "20", "12")),
    ),
    60,
)
IRIS = TableInfo(
    "iris",
    "c",
    "/k/iris.xlsx",
    "Data",
    1,
    (
        TableColumn("sepal length", "number", ("5.1", "4.9")),
        TableColumn("petal length", "number", ("1.4", "4.7", "6.0")),
        TableColumn("species", "text", ("setosa", "versicolor", "virginica")),
    ),
    150,
)
planner = TablePlanner()


def eq(column: str, value: str) -> TableFilter:
    return TableFilter(column, "=", value)


@pytest.mark.parametrize(
    ("question", "table", "lacking"),
    [
        ("How many executions did Ohio have?", CRIME, ("executions",)),
        ("How many hurricanes hit Texas?", CRIME, ("hurricanes",)),
        ("What is the average petal length of the daisy flowers?", IRIS, ("daisy",)),
        ("What is the highest sepal length of the tulip flowers?", IRIS, ("tulip",)),
    ],
)
def test_what_the_table_cannot_honour_is_no_plan_and_is_named(
    question: str, table: TableInfo, lacking: tuple[str, ...]
) -> None:
    assert planner.plan(question, table) is None
    assert planner.missing(question, table) == lacking


@pytest.mark.parametrize(
    ("question", "table", "query"),
    [
        # The rows' own noun, or the table's, or a column's: counted as before.
        ("How many states have a murder rate above 5?", CRIME, TableQuery("count", filters=(TableFilter("murder", ">", 5.0),))),
        ("How many murders did Ohio have?", CRIME, TableQuery("lookup", "murder", (eq("state", "Ohio"),))),
        ("How many rows are there for Ohio?", CRIME, TableQuery("count", filters=(eq("state", "Ohio"),))),
        # A filter that selects many rows: what is counted may be the rows' own noun ("measurements").
        ("How many measurements are there for Chrysler?", FIRMS, TableQuery("count", filters=(eq("firm", "Chrysler"),))),
        ("How many virginica flowers are there?", IRIS, TableQuery("count", filters=(eq("species", "virginica"),))),
        ("What is the average petal length of the setosa flowers?", IRIS, TableQuery("mean", "petal length", (eq("species", "setosa"),))),
        ("What is the average petal length of the flowers?", IRIS, TableQuery("mean", "petal length")),
        ("What is the average petal length for each species?", IRIS, TableQuery("group", "petal length", by="species", agg="mean")),
        # No column whose values name kinds of rows: a word before the noun is not a kind the table lacks.
        ("What is the highest murder crime rate?", CRIME, TableQuery("max", "murder")),
    ],
)  # fmt: skip
def test_what_the_table_holds_still_plans(question: str, table: TableInfo, query: TableQuery) -> None:
    assert planner.plan(question, table) == query
    assert planner.missing(question, table) == ()


# Headers and values in scripts without spaces (Chinese, cut by jieba) and with combining marks (Hindi);
# the operation's words are English (the planner reads only those).
FLOWERS_ZH = TableInfo(
    "zh",
    "c",
    "/k/花卉.xlsx",
    "Data",
    1,
    (
        TableColumn("品种", "text", ("山鸢尾", "变色鸢尾")),
        TableColumn("花瓣长度", "number", ("1.4", "4.7")),
    ),
    100,
)
FLOWERS_HI = TableInfo(
    "hi",
    "c",
    "/k/phool.xlsx",
    "Data",
    1,
    (TableColumn("किस्म", "text", ("गुलाब", "कमल")), TableColumn("लंबाई", "number", ("1.4", "4.7"))),
    100,
)


@pytest.mark.parametrize(
    ("question", "table", "lacking", "query"),
    [
        ("What is the average 花瓣长度 of the 玫瑰 flowers?", FLOWERS_ZH, ("玫瑰",), None),
        ("What is the average 花瓣长度 of the 山鸢尾 flowers?", FLOWERS_ZH, (), TableQuery("mean", "花瓣长度", (eq("品种", "山鸢尾"),))),
        ("山鸢尾的花瓣长度是多少?", FLOWERS_ZH, (), TableQuery("lookup", "花瓣长度", (eq("品种", "山鸢尾"),))),
        ("What is the average लंबाई of the सूरजमुखी flowers?", FLOWERS_HI, ("सूरजमुखी",), None),
        ("What is the average लंबाई of the गुलाब flowers?", FLOWERS_HI, (), TableQuery("mean", "लंबाई", (eq("किस्म", "गुलाब"),))),
        ("गुलाब की लंबाई क्या है?", FLOWERS_HI, (), TableQuery("lookup", "लंबाई", (eq("किस्म", "गुलाब"),))),
    ],
)  # fmt: skip
def test_a_kind_the_table_lacks_in_chinese_and_hindi(
    question: str, table: TableInfo, lacking: tuple[str, ...], query: TableQuery | None
) -> None:
    assert planner.plan(question, table) == query
    assert planner.missing(question, table) == lacking


def test_a_long_table_whose_names_may_repeat_still_counts() -> None:
    """50 distinct customers among 1,000 orders do not make the customer a key: counting Acme's rows is
    what "How many orders did Acme place?" asks."""
    orders = TableInfo(
        "o",
        "c",
        "/k/sales.xlsx",
        "Data",
        1,
        (
            TableColumn("customer", "text", ("Acme", *(f"Client {i}" for i in range(49)))),
            TableColumn("amount", "number", ("10", "20")),
        ),
        1000,
    )
    question = "How many orders did Acme place?"
    assert planner.plan(question, orders) == TableQuery("count", filters=(eq("customer", "Acme"),))
    assert planner.missing(question, orders) == ()
