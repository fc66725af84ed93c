"""Chinese table questions through the whole product (issue 57): an English-headed .csv and a Chinese-headed
.xlsx (written with openpyxl) indexed by the real indexer into real LanceDB, asked through the runtime's
pipeline as `kimas ask` builds it (``app.runtime``, the real builders: the embedded chat model and the
embedded multilingual-e5-small, which the app picks for a library that is not all English). The value is
computed over the rows of the table the search found: a place written inside the question ("车库里")
filters the rows, "多少件物品" over a 数量 column sums it, a Chinese question over English headers and values
("日本车") computes as the English one does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.runtime import Runtime
from kimas_desktop.answer.outcome import Answered
from tests.app.chinese_tables import ask, indexed
from tests.indexer.tables.workbooks import xlsx_bytes

pytestmark = pytest.mark.slow

THINGS = [
    ("物品", "位置", "数量"),
    ("自行车", "车库", 2),
    ("工具箱", "车库", 5),
    ("轮胎", "车库", 40),
    ("沙发", "客厅", 1),
    ("书", "客厅", 30),
    ("灯", "卧室", 3),
    ("车库门遥控器", "客厅", 8),
]
CARS = (
    "Name,Origin,Horsepower,Cylinders\n"
    "mazda glc,Japan,65,4\nford pinto,USA,75,4\nhonda civic,Japan,67,4\n"
    "ford torino,USA,140,8\nvw rabbit,Europe,71,4\ndatsun 280z,Japan,110,6\n"
)


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    rt = indexed(
        tmp_path_factory.mktemp("zh-tables"),
        {"家里的东西.xlsx": xlsx_bytes({"物品": THINGS}), "cars.csv": CARS},
    )
    yield rt
    rt.close()


@pytest.mark.parametrize(
    ("question", "file", "starts", "says"),
    [
        # Chinese headers: 车库 is found inside 车库里 (was the sum over every row, 89); the answer's frame
        # in Chinese, as the question (was "47 (computed from …: sum of 数量 over rows where …")
        ("车库里的数量总共是多少？", "家里的东西.xlsx", "47（根据 家里的东西.xlsx，工作表 物品 计算：",
         "位置 = 车库 的行（3 行）中 数量 的总和：47；第 2、3、4 行）["),
        # how many items, with a 数量 column: the items, summed, not the 3 rows (was declined)
        ("车库里一共有多少件物品？", "家里的东西.xlsx", "47（根据",
         "位置 = 车库 的行（3 行）中 数量 的总和：47"),
        ("车库里有几种物品？", "家里的东西.xlsx", "3（根据", "位置 = 车库 的行数：3"),
        # English headers and values, a Chinese question
        ("日本车的平均马力是多少？", "cars.csv", "80.7（根据 cars.csv 计算：",
         "Origin = Japan 的行（3 行）中 Horsepower 的平均值：80.7（精确值 80.6667）"),
        ("有几辆日本车？", "cars.csv", "3（根据 cars.csv 计算：", "Origin = Japan 的行数：3"),
        # a count in Chinese numerals before a measure word is the k of a top k, as "the top 3 cars by
        # horsepower" (was declined: "没有 三 的行")
        ("马力最高的三辆车是哪些？", "cars.csv",
         "ford torino (140), datsun 280z (110), ford pinto (75)（根据 cars.csv", "所有行中 Horsepower 最大的 3 行："),
        ("马力最低的两辆车是哪些？", "cars.csv",
         "mazda glc (65), honda civic (67)（根据 cars.csv", "所有行中 Horsepower 最小的 2 行："),
    ],
)  # fmt: skip
def test_a_chinese_question_is_computed_over_the_table_it_names(
    runtime: Runtime, question: str, file: str, starts: str, says: str
) -> None:
    said, table = ask(runtime, question)
    assert isinstance(said, Answered), said
    assert table is not None and Path(table.answer.table.source).name == file
    assert said.text.startswith(starts), said.text
    assert says in said.text, said.text
