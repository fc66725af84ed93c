"""Chinese table questions that the planner got wrong (issue 57), through the whole product: Chinese-headed
.xlsx files (written with openpyxl) indexed by the real indexer into real LanceDB, asked through the
runtime's pipeline with the embedded models (multilingual-e5-small, as the app picks for such a library).

- A place the table does not hold ("阁楼", "深圳") is declined, naming it, as the English path declines a
  name ("Attic"); it was summed over every row.
- "数量最多的物品是什么？" answers with the item and its row (argmax), not the largest 数量.
- A column the table does not have is named as the question wrote it ("利润"), not in the planner's English
  ("profit"), with the columns the table has.
- A list of groups cut at 10 ends "（还有 2 项）" in a Chinese answer, " (and 2 more)" in an English one.
- The frame around the computed value and the decline are in Chinese for a Chinese question (they were
  "47 (computed from …" and "Your documents don't say this: the table in … has …"); an English question
  over the same table keeps the English sentence, word for word.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.runtime import Runtime
from kimas_desktop.answer.outcome import Answered, Declined
from tests.app.chinese_tables import ask, indexed
from tests.app.test_table_questions_chinese import THINGS
from tests.indexer.tables.workbooks import xlsx_bytes

pytestmark = pytest.mark.slow

SALES = [
    ("城市", "产品", "销售额"),
    ("北京", "手机", 120),
    ("北京", "电脑", 80),
    ("上海", "手机", 150),
    ("上海", "电脑", 60),
    ("广州", "手机", 90),
    ("广州", "电脑", 40),
    ("杭州", "手机", 70),
    ("南京", "手机", 64),
    ("成都", "手机", 58),
    ("武汉", "手机", 52),
    ("西安", "手机", 46),
    ("重庆", "手机", 40),
    ("天津", "手机", 34),
    ("苏州", "手机", 28),
    ("长沙", "手机", 22),
]  # 12 cities: a list of them by city is cut at 10


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    rt = indexed(
        tmp_path_factory.mktemp("zh-table-answers"),
        {"家里的东西.xlsx": xlsx_bytes({"物品": THINGS}), "销售.xlsx": xlsx_bytes({"销售": SALES})},
    )
    yield rt
    rt.close()


@pytest.mark.parametrize(
    ("question", "file", "place"),
    [
        ("阁楼里的数量总共是多少？", "家里的东西.xlsx", "阁楼"),  # was 89, the sum over every room
        ("阁楼里一共有多少件物品？", "家里的东西.xlsx", "阁楼"),
        ("深圳的总销售额是多少？", "销售.xlsx", "深圳"),  # was 540, every city's
    ],
)
def test_a_place_the_table_does_not_hold_is_declined_by_name(
    runtime: Runtime, question: str, file: str, place: str
) -> None:
    said, _ = ask(runtime, question)
    assert isinstance(said, Declined) and said.rule == "table", said
    sheet = file.removesuffix(".xlsx") if file == "销售.xlsx" else "物品"
    assert said.text.startswith(
        f"你的文档没有说明这一点：{file}，工作表 {sheet} 中的表格没有 {place} 的行 ["
    ), said.text
    assert [Path(c.chunk.source).name for c in said.closest] == [file]


@pytest.mark.parametrize(
    ("question", "word"),
    [("上海的总利润是多少？", "利润"), ("上海手机的平均成本是多少？", "成本")],
)
def test_a_column_the_table_does_not_have_is_named_as_the_question_wrote_it(
    runtime: Runtime, question: str, word: str
) -> None:
    said, _ = ask(runtime, question)
    assert isinstance(said, Declined) and said.rule == "table", said
    assert said.text.startswith(  # was "没有 profit 这一列", the planner's English for 利润
        f"你的文档没有说明这一点：销售.xlsx，工作表 销售 中的表格没有 {word} 这一列；它有 城市、产品、销售额 ["
    ), said.text


def test_a_place_the_table_holds_is_still_computed(runtime: Runtime) -> None:
    said, table = ask(runtime, "北京的总销售额是多少？")
    assert isinstance(said, Answered), said
    assert said.text.startswith("200"), said.text
    assert table is not None and [r.row for r in table.answer.result.rows] == [2, 3]


def test_the_item_with_the_largest_quantity_is_the_item_and_its_row(runtime: Runtime) -> None:
    said, table = ask(runtime, "数量最多的物品是什么？")
    assert isinstance(said, Answered), said
    assert said.text.startswith(  # not "40", the largest 数量 alone
        "轮胎（根据 家里的东西.xlsx，工作表 物品 计算：所有行（7 行）中 数量 最大的行："
        "物品 = 轮胎（数量 40，第 4 行）；共 7 行中的第 4 行）["
    ), said.text
    assert table is not None and [r.row for r in table.answer.result.rows] == [4]
    assert dict(table.answer.result.rows[0].cells) == {"物品": "轮胎", "位置": "车库", "数量": "40"}


def test_a_list_of_groups_cut_at_ten_says_how_many_more_in_chinese(runtime: Runtime) -> None:
    said, _ = ask(runtime, "每个城市的总销售额是多少？")
    assert isinstance(said, Answered), said
    groups = "上海 210; 北京 200; 广州 130; 杭州 70; 南京 64; 成都 58; 武汉 52; 西安 46; 重庆 40; 天津 34"
    assert said.text.startswith(  # was "… 天津 34 (and 2 more)（根据 …"
        f"{groups}（还有 2 项）（根据 销售.xlsx，工作表 销售 计算：所有行（15 行）按 城市 分组的 销售额 的总和："
        f"{groups}（还有 2 项）；"
    ), said.text
    assert "more" not in said.text


def test_an_english_question_over_the_same_table_keeps_the_english_sentence(runtime: Runtime) -> None:
    said, _ = ask(runtime, "How many items are in the 车库?")
    assert isinstance(said, Answered), said
    assert said.text.startswith(
        "47 (computed from 家里的东西.xlsx, sheet 物品: sum of 数量 over rows where 位置 = 车库 (3 rows): 47; "
        "rows 2, 3, 4) ["
    ), said.text


def test_an_english_list_of_groups_cut_at_ten_keeps_its_english_end(runtime: Runtime) -> None:
    said, _ = ask(runtime, "What is the total 销售额 for each 城市?")
    assert isinstance(said, Answered), said
    assert (
        said.text.startswith("上海 210; 北京 200; 广州 130; ")
        and "天津 34 (and 2 more) (computed from" in said.text
    ), said.text
