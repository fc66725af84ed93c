"""``ArrowEngine``: runs a ``TableQuery`` over a table the shelf keeps, with ``pyarrow.compute``.

The shelf hands the table as Arrow (one column per ``TableColumn``: numbers float64, dates date32 or
timestamp, text string, and ``_row``, the row's 1-based number in its sheet). A wide table is read long
first when the plan says so (``TableQuery.melt``: ``indexer.tables.reshape``). Filters select rows (text
compared without case or surrounding spaces; a date given as a year, a quarter or a month covers all its
days, "--05" and "--Q2" every year's May and second quarter), the operation computes over them, and the
result names the value, the query in plain words and the rows it used, each once with its row number and
the sheet's cells (a month of a column of months written "2025-05", a quarter "Q2 2025"). A query that
selects no row gives an empty result (the answer declines), naming the range each date or year column
it filtered covers ("Month runs from 2024-01 to 2025-12").
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Protocol

import pyarrow as pa
import pyarrow.compute as pc

from indexer.tables.reshape import covers, melted
from kimas_desktop.answer.tables.numbers import number_text
from kimas_desktop.tables import Grain, TableFilter, TableInfo, TableQuery, TableResult, TableRow

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


def _cell(v: object, grain: Grain = "") -> str:
    """A value as the answer writes it: a month of a column of months "2025-05", a quarter "Q2 2025"."""
    if v is None:
        return ""
    if isinstance(v, float):
        return number_text(v)
    if isinstance(v, dt.date) and grain:
        return f"{v.year}-{v.month:02d}" if grain == "month" else f"Q{(v.month + 2) // 3} {v.year}"
    if isinstance(v, dt.datetime):
        return v.date().isoformat() if v.time() == dt.time() else v.isoformat(sep=" ")
    if isinstance(v, dt.date):
        return v.isoformat()
    return str(v)


def _date_span(value: str) -> tuple[dt.date, dt.date]:
    """The days an ISO year, quarter ("1990-Q2"), month or day covers: [first, after)."""
    year, _, quarter = value.partition("-Q")
    if quarter:
        first = dt.date(int(year), 3 * int(quarter) - 2, 1)
        return first, dt.date(first.year + (quarter == "4"), (first.month + 2) % 12 + 1, 1)
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
    if kind == "date" and str(f.value).startswith("--"):
        return _every_year(pc.cast(col, pa.date32()), str(f.value)[2:], f.op)
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


def _every_year(day: pa.ChunkedArray, period: str, op: str) -> pa.ChunkedArray:
    """A month ("05") or a quarter ("Q2") of every year: the days whose month is in it (``op`` "=": in it;
    "<", ">" …: before or after it within the year)."""
    month = pc.month(day)
    lo, hi = (3 * int(period[1:]) - 2, 3 * int(period[1:])) if period.startswith("Q") else (int(period),) * 2
    return {
        "=": lambda: pc.and_(pc.greater_equal(month, lo), pc.less_equal(month, hi)),
        "<": lambda: pc.less(month, lo),
        "<=": lambda: pc.less_equal(month, hi),
        ">": lambda: pc.greater(month, hi),
        ">=": lambda: pc.greater_equal(month, lo),
    }[op]()


def _select(table: pa.Table, info: TableInfo, filters: Sequence[TableFilter]) -> pa.Table:
    mask = None
    for f in filters:
        m = _mask(table, info, f)
        mask = m if mask is None else pc.and_(mask, m)
    return table if mask is None else table.filter(pc.fill_null(mask, False))


def _what(q: TableQuery) -> str:
    """The column computed over, in words: "sales (North, South, East, West)" for a wide table's."""
    return q.melt.words() if q.melt is not None and q.target == q.melt.value else q.target


def _where(filters: Sequence[TableFilter]) -> str:
    return "rows where " + " and ".join(f.words() for f in filters) if filters else "all rows"


def _grain(info: TableInfo, column: str) -> Grain:
    return next((c.grain for c in info.columns if c.name == column), "")


def _shown(info: TableInfo) -> Callable[[object, str], str]:
    """A value of a column as the answer writes it (a month of a column of months: "2025-05")."""
    return lambda v, column: _cell(v, _grain(info, column))


def _rows(table: pa.Table, info: TableInfo, q: TableQuery) -> tuple[TableRow, ...]:
    """The first rows of ``table``, each once (a wide table read long holds a row once per column read),
    with the sheet's own cells."""
    made = (q.melt.name, q.melt.value) if q.melt is not None else ()
    names = [c.name for c in info.columns if c.name in table.column_names and c.name not in made]
    width = len(q.melt.columns) if q.melt is not None else 1
    seen: dict[int, TableRow] = {}
    for r in table.slice(0, SHOWN_ROWS * width).to_pylist():
        if len(seen) < SHOWN_ROWS and int(r[ROW]) not in seen:
            seen[int(r[ROW])] = TableRow(int(r[ROW]), tuple((n, _cell(r[n], _grain(info, n))) for n in names))
    return tuple(seen.values())


def _n(rows: pa.Table, q: TableQuery) -> int:
    """How many of the sheet's rows ``rows`` holds (a wide table read long holds each once per column)."""
    return rows.num_rows if q.melt is None else int(pc.count_distinct(rows[ROW]).as_py())


def _empty(query: TableQuery, data: pa.Table | None = None, info: TableInfo | None = None) -> TableResult:
    """Nothing to compute; the range each filtered date or year column covers, when ``data`` is given."""
    said = f"no {_where(query.filters)}" if query.filters else f"no row with a value of {query.target}"
    spans = covers(data, info, query.filters, _shown(info)) if data is not None and info is not None else ()
    said += "".join(f"; {c} runs from {lo} to {hi}" for c, lo, hi in spans)
    return TableResult(None, "", said, (), 0, spans)


class ArrowEngine:
    """The ``TableEngine`` over a shelf's Arrow tables."""

    def __init__(self, shelf: ArrowShelf) -> None:
        self._shelf = shelf

    def run(self, table: TableInfo, query: TableQuery) -> TableResult:
        data = self._shelf.arrow(table)
        if query.melt is not None:
            data, table = melted(data, table, query.melt)
        if query.operation == "difference":
            return self._difference(data, table, query)
        rows = _select(data, table, query.filters)
        if query.operation == "count":
            n = _n(rows, query)
            desc = f"{_where(query.filters)}: {n}"
            return TableResult(float(n), str(n), desc, _rows(rows, table, query), n)
        if query.target and query.operation != "group":
            rows = rows.filter(pc.is_valid(rows[query.target]))
        if rows.num_rows == 0:
            return _empty(query, data, table)
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
        grain = _grain(info, q.target)
        values = list(dict.fromkeys(_cell(v, grain) for v in rows[q.target].to_pylist()))
        first = rows[q.target][0].as_py()
        value = float(first) if isinstance(first, int | float) else _cell(first, grain)
        text = values[0] if len(values) == 1 else ", ".join(values[:SHOWN_ROWS])
        n = _n(rows, q)
        more = f" ({n} rows)" if n > 1 else ""
        return TableResult(
            value, text, f"{_what(q)} in {_where(q.filters)}{more}: {text}", _rows(rows, info, q), n
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
        count = _n(rows, q)
        n = f"{count} row" + ("s" if count != 1 else "")  # a sum over one row: "(1 row)"
        desc = f"{q.operation} of {_what(q)} over {_where(q.filters)} ({n}): {said}"
        return TableResult(v, text, desc, _rows(used, info, q), count)

    @staticmethod
    def _arg(rows: pa.Table, info: TableInfo, q: TableQuery) -> TableResult:
        col = pc.cast(rows[q.target], pa.float64())
        extreme = (pc.max if q.operation == "argmax" else pc.min)(col).as_py()
        best = rows.filter(pc.equal(col, extreme)).slice(0, 1)
        label = q.label or q.target
        name = _cell(best[label][0].as_py(), _grain(info, label))
        which = "largest" if q.operation == "argmax" else "smallest"
        desc = (
            f"the row with the {which} {_what(q)} of {_where(q.filters)} ({_n(rows, q)} rows): "
            f"{label} = {name} ({q.target} {number_text(extreme)}, row {best[ROW][0].as_py()})"
        )
        return TableResult(name, name, desc, _rows(best, info, q), _n(rows, q))

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
            what = f"{q.agg} of {_what(q)}"
        sign = 1 if q.least else -1
        pairs = sorted(
            zip(grouped[q.by].to_pylist(), values.to_pylist(), strict=True), key=lambda p: sign * (p[1] or 0)
        )
        grain = _grain(info, q.by)
        shown = "; ".join(f"{_cell(k, grain)} {number_text(float(v))}" for k, v in pairs[:10])
        more = f" (and {len(pairs) - 10} more)" if len(pairs) > 10 else ""
        desc = f"{what} by {q.by} over {_where(q.filters)} ({_n(rows, q)} rows): {shown}{more}"
        first = _cell(pairs[0][0], grain)
        return TableResult(first, shown + more, desc, _rows(rows, info, q), _n(rows, q))

    @staticmethod
    def _top(rows: pa.Table, info: TableInfo, q: TableQuery) -> TableResult:
        order = "ascending" if q.agg == "min" else "descending"
        k = max(q.k, 1)
        best = rows.sort_by([(q.target, order)]).slice(0, k)
        label = q.label or q.target
        grain = _grain(info, label)
        shown = ", ".join(
            f"{_cell(r[label], grain)} ({_cell(r[q.target])})"
            for r in best.select([label, q.target]).to_pylist()
        )
        which = "smallest" if q.agg == "min" else "largest"
        desc = f"the {k} rows with the {which} {_what(q)} of {_where(q.filters)}: {shown}"
        first = _cell(best[label][0].as_py(), grain)
        return TableResult(first, shown, desc, _rows(best, info, q), _n(rows, q))

    @staticmethod
    def _difference(data: pa.Table, info: TableInfo, q: TableQuery) -> TableResult:
        if q.pair is None:
            return _empty(q)
        a = _select(data, info, (*q.filters, q.pair[0]))
        b = _select(data, info, (*q.filters, q.pair[1]))
        a = a.filter(pc.is_valid(a[q.target]))
        b = b.filter(pc.is_valid(b[q.target]))
        if a.num_rows == 0 or b.num_rows == 0:
            return _empty(q, data, info)
        x, y = float(a[q.target][0].as_py()), float(b[q.target][0].as_py())
        v = x - y
        text = number_text(v)
        desc = (
            f"{q.target} where {q.pair[0].words()} ({number_text(x)}) minus where {q.pair[1].words()} "
            f"({number_text(y)}): {text}"
        )
        both = pa.concat_tables([a.slice(0, 1), b.slice(0, 1)])
        return TableResult(v, text, desc, _rows(both, info, q), 2)
