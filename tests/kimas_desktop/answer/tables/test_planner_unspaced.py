"""Cells written without spaces (Chinese, Japanese) found inside the question as written: "车库" in
"车库里的数量总共是多少？", where the segmenter cuts "车库里" and the glossary reads "车" as cars; and
"how many items" over a table with a quantity column sums it."""

from __future__ import annotations

import pytest

from kimas_desktop.answer.tables.planner import TablePlanner
from kimas_desktop.tables import TableColumn, TableFilter, TableInfo, TableQuery

THINGS = TableInfo(
    "t1",
    "c",
    "/k/家里的东西.xlsx",
    "物品",
    1,
    (
        TableColumn("物品", "text", ("自行车", "工具箱", "轮胎", "沙发", "书", "灯", "车库门遥控器")),
        TableColumn("位置", "text", ("车库", "客厅", "卧室")),
        TableColumn("数量", "number", ("2", "5", "40", "1", "30", "3", "8")),
    ),
    7,
)
GARAGE = TableFilter("位置", "=", "车库")
plan = TablePlanner().plan


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("车库里的数量总共是多少？", TableQuery("sum", "数量", (GARAGE,))),
        ("车库里一共有多少件物品？", TableQuery("sum", "数量", (GARAGE,))),  # the items, not the rows
        ("How many items are in the 车库?", TableQuery("sum", "数量", (GARAGE,))),
        ("车库里有几种物品？", TableQuery("count", filters=(GARAGE,))),  # kinds: the rows
        ("车库里的平均数量是多少？", TableQuery("mean", "数量", (GARAGE,))),
        # the longer cell first: 车库 is not found inside 车库门遥控器
        ("车库门遥控器有几个？", TableQuery("sum", "数量", (TableFilter("物品", "=", "车库门遥控器"),))),
        ("书的数量是多少？", TableQuery("lookup", "数量", (TableFilter("物品", "=", "书"),))),
        # a header kept whole: 位置 is not read as the measure word 位 and 置
        ("每个位置有多少件物品？", TableQuery("group", "数量", by="位置", agg="sum")),
    ],
)
def test_a_cell_inside_an_unspaced_question_filters(question: str, query: TableQuery) -> None:
    assert plan(question, THINGS) == query


def test_one_character_is_found_only_as_a_word_of_its_own() -> None:
    got = plan("书房里的数量总共是多少？", THINGS)
    assert got is None or all(f.value != "书" for f in got.filters)


def test_a_japanese_question_finds_its_cell() -> None:
    table = TableInfo(
        "t2",
        "c",
        "/k/在庫.xlsx",
        "Sheet1",
        1,
        (TableColumn("場所", "text", ("車庫", "居間")), TableColumn("数量", "number", ("3", "4"))),
        4,
    )
    assert plan("車庫にある数量の合計は？", table) == TableQuery(
        "sum", "数量", (TableFilter("場所", "=", "車庫"),)
    )


@pytest.mark.parametrize(("header", "operation"), [("Quantity", "sum"), ("Count", "count")])
def test_how_many_items_sums_a_quantity_column_not_a_count(header: str, operation: str) -> None:
    table = TableInfo(
        "t3",
        "c",
        "/k/stock.xlsx",
        "Stock",
        1,
        (
            TableColumn("Item", "text", ("nails", "screws", "hinges", "bolts")),
            TableColumn("Shelf", "text", ("Garage", "Attic", "Cellar")),
            TableColumn(header, "number", ("40", "12", "7", "30")),
        ),
        4,
    )
    got = plan("How many items are in the shelf Garage?", table)
    assert got is not None and got.operation == operation
    assert got.filters == (TableFilter("Shelf", "=", "Garage"),)
