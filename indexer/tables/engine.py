"""``ArrowEngine``: runs a ``TableQuery`` over a table the shelf keeps, with ``pyarrow.compute``.

The shelf hands the table as Arrow (one column per ``TableColumn``: numbers float64, dates date32 or
timestamp, text string, and ``_row``, the row's 1-based number in its sheet). Filters select rows (text
compared without case or surrounding spaces; a date given as a year or a month covers all its days), the
operation computes over them, and the result names the value, the query in plain words and the rows it
used, each with its row number. A query that selects no row gives an empty result (the answer declines).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Protocol

import pyarrow as pa
import pyarrow.compute as pc

from kimas_desktop.answer.tables.numbers import number_text
from kimas_desktop.tables import TableFilter, TableInfo, TableQuery, TableResult, TableRow

__all__ = ["ArrowEngine", "ArrowShelf", "number_text", "precision"]

ROW = "_row"
SHOWN_ROWS = 5


class ArrowShelf(Protocol):
    def arrow(self, table: TableInfo) -> pa.Table: ...


def precision(info: TableInfo, column: str) -> int:
    """The decimals a person reads a computed value of ``column`` with: as many as its values are written
    with ("27.9" for a mean of temperatures written to one decimal; a mean of whole numbers gets one),
    at most four."""
    for c in info.columns:
        if c.name == column:
            written = [
                len(s.partition(".")[2]) for s in c.samples if s.replace(".", "", 1).lstrip("-").isdigit()
            ]
            return min(max(written, default=4), 4)
    return 4


def _cell(v: object) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return number_text(v)
    if isinstance(v, dt.datetime):
        return v.date().isoformat() if v.time() == dt.time() else v.isoformat(sep=" ")
    if isinstance(v, dt.date):
        return v.isoformat()
    return str(v)


def _date_span(value: str) -> tuple[dt.date, dt.date]:
    """The days an ISO year, month or day covers: [first, after)."""
    parts = [int(p) for p in value.split("-")]
    if len(parts) == 1:
        return dt.date(parts[0], 1, 1), dt.date(parts[0] + 1, 1, 1)
    if len(parts) == 2:
        y, m = parts
        return dt.date(y, m, 1), dt.date(y + (m == 12), m % 12 + 1, 1)
    day = dt.date(*parts)
    return day, day + dt.timedelta(days=1)


def _mask(table: pa.Table, info: TableInfo, f: TableFilter) -> pa.ChunkedArray:
    kinds = {c.name: c.kind for c in info.columns}
    col = table[f.column]
    kind = kinds.get(f.column, "text")
    if kind == "date":
        day = pc.cast(col, pa.date32())
        first, after = _date_span(str(f.value))
        lo, hi = pa.scalar(first, pa.date32()), pa.scalar(after, pa.date32())
        return {
            "=": lambda: pc.and_(pc.greater_equal(day, lo), pc.less(day, hi)),
            "<": lambda: pc.less(day, lo),
            "<=": lambda: pc.less(day, hi),
            ">": lambda: pc.greater_equal(day, hi),
            ">=": lambda: pc.greater_equal(day, lo),
        }[f.op]()
    if kind == "number":
        x = pa.scalar(float(f.value), pa.float64())
        op = {"=": pc.equal, "<": pc.less, "<=": pc.less_equal, ">": pc.greater, ">=": pc.greater_equal}
        return op[f.op](pc.cast(col, pa.float64()), x)
    text = pc.utf8_lower(pc.utf8_trim_whitespace(pc.cast(col, pa.string())))
    return pc.equal(text, str(f.value).strip().lower())


def _select(table: pa.Table, info: TableInfo, filters: Sequence[TableFilter]) -> pa.Table:
    mask = None
    for f in filters:
        m = _mask(table, info, f)
        mask = m if mask is None else pc.and_(mask, m)
    return table if mask is None else table.filter(pc.fill_null(mask, False))


def _where(filters: Sequence[TableFilter]) -> str:
    return "rows where " + " and ".join(f.words() for f in filters) if filters else "all rows"


def _rows(table: pa.Table, info: TableInfo) -> tuple[TableRow, ...]:
    names = [c.name for c in info.columns if c.name in table.column_names]
    shown = table.slice(0, SHOWN_ROWS).to_pylist()
    return tuple(TableRow(int(r[ROW]), tuple((n, _cell(r[n])) for n in names)) for r in shown)


def _empty(query: TableQuery) -> TableResult:
    said = f"no {_where(query.filters)}" if query.filters else f"no row with a value of {query.target}"
    return TableResult(None, "", said, (), 0)


class ArrowEngine:
    """The ``TableEngine`` over a shelf's Arrow tables."""

    def __init__(self, shelf: ArrowShelf) -> None:
        self._shelf = shelf

    def run(self, table: TableInfo, query: TableQuery) -> TableResult:
        data = self._shelf.arrow(table)
        if query.operation == "difference":
            return self._difference(data, table, query)
        rows = _select(data, table, query.filters)
        if query.operation == "count":
            n = rows.num_rows
            return TableResult(float(n), str(n), f"{_where(query.filters)}: {n}", _rows(rows, table), n)
        if query.target and query.operation != "group":
            rows = rows.filter(pc.is_valid(rows[query.target]))
        if rows.num_rows == 0:
            return _empty(query)
        if query.operation == "lookup":
            return self._lookup(rows, table, query)
        if query.operation in ("sum", "mean", "min", "max"):
            return self._aggregate(rows, table, query)
        if query.operation in ("argmax", "argmin"):
            return self._arg(rows, table, query)
        if query.operation == "group":
            return self._group(rows, table, query)
        return self._top(rows, table, query)

    @staticmethod
    def _lookup(rows: pa.Table, info: TableInfo, q: TableQuery) -> TableResult:
        values = list(dict.fromkeys(_cell(v) for v in rows[q.target].to_pylist()))
        first = rows[q.target][0].as_py()
        value = float(first) if isinstance(first, int | float) else _cell(first)
        text = values[0] if len(values) == 1 else ", ".join(values[:SHOWN_ROWS])
        more = f" ({rows.num_rows} rows)" if rows.num_rows > 1 else ""
        return TableResult(
            value, text, f"{q.target} in {_where(q.filters)}{more}: {text}", _rows(rows, info), rows.num_rows
        )

    @staticmethod
    def _aggregate(rows: pa.Table, info: TableInfo, q: TableQuery) -> TableResult:
        if rows.num_rows == 1 and q.operation != "sum":
            return ArrowEngine._lookup(rows, info, q)  # temp_max on one day: that day's value
        col = pc.cast(rows[q.target], pa.float64())
        fn = {"sum": pc.sum, "mean": pc.mean, "min": pc.min, "max": pc.max}[q.operation]
        v = float(fn(col).as_py())
        used = rows
        if q.operation in ("min", "max"):
            used = rows.filter(pc.equal(col, v))  # the rows that hold the extreme
        exact = number_text(v)
        places = precision(info, q.target)
        text = number_text(round(v, max(places, 1) if q.operation == "mean" else places))
        said = exact if text == exact else f"{text} (exactly {exact})"
        n = f"{rows.num_rows} row" + ("s" if rows.num_rows != 1 else "")  # a sum over one row: "(1 row)"
        desc = f"{q.operation} of {q.target} over {_where(q.filters)} ({n}): {said}"
        return TableResult(v, text, desc, _rows(used, info), rows.num_rows)

    @staticmethod
    def _arg(rows: pa.Table, info: TableInfo, q: TableQuery) -> TableResult:
        col = pc.cast(rows[q.target], pa.float64())
        extreme = (pc.max if q.operation == "argmax" else pc.min)(col).as_py()
        best = rows.filter(pc.equal(col, extreme)).slice(0, 1)
        label = q.label or q.target
        name = _cell(best[label][0].as_py())
        which = "largest" if q.operation == "argmax" else "smallest"
        desc = (
            f"the row with the {which} {q.target} of {_where(q.filters)} ({rows.num_rows} rows): "
            f"{label} = {name} ({q.target} {number_text(extreme)}, row {best[ROW][0].as_py()})"
        )
        return TableResult(name, name, desc, _rows(best, info), rows.num_rows)

    @staticmethod
    def _group(rows: pa.Table, info: TableInfo, q: TableQuery) -> TableResult:
        if q.agg == "count" or not q.target:
            grouped = rows.group_by(q.by).aggregate([(ROW, "count")])
            values = grouped[f"{ROW}_count"]
            what = "rows"
        else:
            valid = rows.filter(pc.is_valid(rows[q.target]))
            grouped = valid.group_by(q.by).aggregate([(q.target, q.agg)])
            values = grouped[f"{q.target}_{q.agg}"]
            what = f"{q.agg} of {q.target}"
        sign = 1 if q.least else -1
        pairs = sorted(
            zip(grouped[q.by].to_pylist(), values.to_pylist(), strict=True), key=lambda p: sign * (p[1] or 0)
        )
        shown = "; ".join(f"{_cell(k)} {number_text(float(v))}" for k, v in pairs[:10])
        more = f" (and {len(pairs) - 10} more)" if len(pairs) > 10 else ""
        desc = f"{what} by {q.by} over {_where(q.filters)} ({rows.num_rows} rows): {shown}{more}"
        return TableResult(_cell(pairs[0][0]), shown + more, desc, _rows(rows, info), rows.num_rows)

    @staticmethod
    def _top(rows: pa.Table, info: TableInfo, q: TableQuery) -> TableResult:
        order = "ascending" if q.agg == "min" else "descending"
        k = max(q.k, 1)
        best = rows.sort_by([(q.target, order)]).slice(0, k)
        label = q.label or q.target
        shown = ", ".join(
            f"{_cell(r[label])} ({_cell(r[q.target])})" for r in best.select([label, q.target]).to_pylist()
        )
        which = "smallest" if q.agg == "min" else "largest"
        desc = f"the {k} rows with the {which} {q.target} of {_where(q.filters)}: {shown}"
        first = _cell(best[label][0].as_py())
        return TableResult(first, shown, desc, _rows(best, info), rows.num_rows)

    @staticmethod
    def _difference(data: pa.Table, info: TableInfo, q: TableQuery) -> TableResult:
        if q.pair is None:
            return _empty(q)
        a = _select(data, info, (*q.filters, q.pair[0]))
        b = _select(data, info, (*q.filters, q.pair[1]))
        a = a.filter(pc.is_valid(a[q.target]))
        b = b.filter(pc.is_valid(b[q.target]))
        if a.num_rows == 0 or b.num_rows == 0:
            return _empty(q)
        x, y = float(a[q.target][0].as_py()), float(b[q.target][0].as_py())
        v = x - y
        text = number_text(v)
        desc = (
            f"{q.target} where {q.pair[0].words()} ({number_text(x)}) minus where {q.pair[1].words()} "
            f"({number_text(y)}): {text}"
        )
        both = pa.concat_tables([a.slice(0, 1), b.slice(0, 1)])
        return TableResult(v, text, desc, _rows(both, info), 2)
