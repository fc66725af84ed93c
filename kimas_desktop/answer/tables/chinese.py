"""A table answer in Chinese, for a question written in Chinese (issue 57): the frame around the computed
value ("47（根据 家里的东西.xlsx，工作表 物品 计算：……；第 2、3、4 行）[1]。"), the query in plain words,
and the decline ("你的文档没有说明这一点：…… 中的表格没有 阁楼 的行 [1]。"), built from the plan and what
the engine computed, as ``answer.py`` and the engine build the English ones. Column names, values and
the file's name stay as the file writes them; the filters keep their "位置 = 车库" form, which the table
of rows shown under the answer repeats.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from kimas_desktop.answer.tables.numbers import number_text
from kimas_desktop.tables import TableFilter, TableInfo, TableQuery, TableResult

__all__ = ["absent_said", "answer_text_zh", "described", "in_chinese"]

_WORKBOOKS = (".xlsx", ".xlsm", ".xls", ".ods")
_OPS = {"sum": "总和", "mean": "平均值", "min": "最小值", "max": "最大值", "count": "行数"}
_PICKED = ("min", "max", "argmax", "argmin", "top")
_MORE = re.compile(r" \(and (\d+) more\)$")  # the engine's end of a list of groups cut at 10


def _place(table: TableInfo) -> str:
    """ "家里的东西.xlsx，工作表 物品", "cars.csv", or a document's table: "report.docx，table 2"."""
    name = Path(table.source).name
    if not table.sheet:
        return name
    sheet = "工作表 " if Path(table.source).suffix.lower() in _WORKBOOKS else ""
    return f"{name}，{sheet}{table.sheet}"


def _where(filters: Sequence[TableFilter]) -> str:
    """ "位置 = 车库 的行", "所有行"."""
    return " 且 ".join(f.words() for f in filters) + " 的行" if filters else "所有行"


def _rows_said(result: TableResult, operation: str) -> str:
    """ "第 2、3、4 行", "共 7 行中的第 4 行" (the one picked), "第 2、3、4、5、6 行及另外 12 行"."""
    numbers = "、".join(str(r.row) for r in result.rows)
    more = result.used - len(result.rows)
    if more > 0 and operation in _PICKED:
        return f"共 {result.used} 行中的第 {numbers} 行"
    return f"第 {numbers} 行" + (f"及另外 {more} 行" if more > 0 else "")


def _cell(result: TableResult, i: int, column: str) -> str:
    return dict(result.rows[i].cells).get(column, "") if i < len(result.rows) else ""


def _exactly(result: TableResult) -> str:
    exact = number_text(result.value) if isinstance(result.value, float) else result.text
    return result.text if exact == result.text else f"{result.text}（精确值 {exact}）"


def _what(q: TableQuery) -> TableQuery:
    """``q`` with its target in words: "销售额（North、South、East、West）" for a wide table's measure."""
    if q.melt is None or q.target != q.melt.value:
        return q
    return replace(q, target=f"{q.target}（{'、'.join(q.melt.columns)}）")


def described(q: TableQuery, r: TableResult) -> str:
    """The query ``q`` in Chinese with what it computed (``r``), as the engine's English description; a
    decline names the range of each date or year column it filtered ("Month 的范围是 2024-01 到 2025-12")."""
    q = _what(q)
    where, n = _where(q.filters), f"（{r.used} 行）"
    op = q.operation
    if r.empty:
        spans = "".join(f"；{c} 的范围是 {lo} 到 {hi}" for c, lo, hi in r.covers)
        return (f"没有{where}" if q.filters else f"没有 {q.target} 有值的行") + spans
    if op == "count":
        return f"{where}数：{r.text}" if q.filters else f"总行数：{r.text}"
    if op in ("lookup", "min", "max", "mean") and (op == "lookup" or r.used == 1):
        return f"{where}中的 {q.target}" + (n if r.used > 1 else "") + f"：{r.text}"
    if op in ("sum", "mean", "min", "max"):
        return f"{where}{n}中 {q.target} 的{_OPS[op]}：{_exactly(r)}"
    if op in ("argmax", "argmin"):
        which = "最大" if op == "argmax" else "最小"
        label = q.label or q.target
        row = r.rows[0].row if r.rows else 0
        return (
            f"{where}{n}中 {q.target} {which}的行：{label} = {r.text}"
            f"（{q.target} {_cell(r, 0, q.target)}，第 {row} 行）"
        )
    if op == "group":
        what = "行数" if q.agg == "count" or not q.target else f" {q.target} 的{_OPS[q.agg]}"
        return f"{where}{n}按 {q.by} 分组的{what}：{r.text}"
    if op == "top":
        which = "最小" if q.agg == "min" else "最大"
        return f"{where}中 {q.target} {which}的 {q.k} 行：{r.text}"
    if q.pair is None:
        return r.description
    a, b = q.pair
    return (
        f"{a.words()} 的 {q.target}（{_cell(r, 0, q.target)}）减去 {b.words()} 的"
        f"（{_cell(r, 1, q.target)}）：{r.text}"
    )


def in_chinese(q: TableQuery, r: TableResult) -> TableResult:
    """What ``q`` computed (``r``) as a Chinese answer states it: the value, with a list of groups cut at
    10 ending "（还有 2 项）", not the engine's " (and 2 more)", and the query in Chinese (``described``)."""
    r = replace(r, text=_MORE.sub(lambda m: f"（还有 {m[1]} 项）", r.text))
    return replace(r, description=described(q, r))


def absent_said(rows: Sequence[str], columns: Sequence[str], table: TableInfo, near: str) -> str:
    """What the question names that ``table`` lacks, in Chinese: "没有 阁楼 的行", "没有 降雪量 这一列；
    它有 ……（最接近的：……）"."""
    said = []
    if rows:
        said.append(f"没有 {'、'.join(rows)} 的行")
    if columns:
        said.append(f"没有 {'、'.join(columns)} 这一列")
        names = "、".join(c.name for c in table.columns)
        said.append(f"它有 {names}" + (f"（最接近的：{near}）" if near else ""))
    return "；".join(said)


def answer_text_zh(table: TableInfo, result: TableResult, n: int, operation: str = "") -> str:
    """The answer as a Chinese reader reads it: the value, then how it was computed and from which rows;
    or the decline (``result`` empty). ``result.description`` is already in Chinese (``described``)."""
    where = _place(table)
    if result.empty:
        return f"你的文档没有说明这一点：{where} 中的表格{result.description} [{n}]。"
    rows = _rows_said(result, operation)
    return f"{result.text}（根据 {where} 计算：{result.description}；{rows}）[{n}]。"
