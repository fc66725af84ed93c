"""``TablePlanner``: from a question and a table's header, kinds and values to a ``TableQuery``, no model.

What it reads, in this order:
    values      a cell of a text column named in the question (from the column's samples and the row chunks
                the search found): a filter ``column = value``; the longest names first
    dates       a date ("on 1990-03-05", "March 5, 1990", "in March 1990") with a date column: a filter
                on that day, month or year
    numbers     a number next to a number column ("8 cylinders", "poverty above 15"): a filter, with the
                comparison the words before it say; a year with no column beside it goes to the date
                column or a column called year; "top 5" is the k of a top-k
    columns     the other columns the question names: the target (the first number column after the
                operation's word, else the first named)
    operation   "difference between A and B", "top k", "for each X"/"by X" (group), "how many" (a count,
                or the named number column's value for the named row), "total", "average", "highest"/
                "lowest" (with "which …"/"who"/"when": the row that has it; else the value), else a lookup
No plan (None) when the question names something the table does not hold (a name, a number or a date the
plan does not use; what "how many" counts in rows a key names, when that is no column, value or name of the
table: "executions" in "How many executions did Ohio have?" over a table of crime rates; a kind of row the
table does not list: "daisy" in "the daisy flowers" where a column names the rows' kinds; ``unasked.py``)
or asks nothing the plan can compute: such a question goes the usual way, or is declined when ``absent``
names what it lacks; a plan whose filters select no row is declined by the engine's empty result.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from kimas_desktop.answer.tables.named import (
    Span,
    date_filters,
    mentions_of,
    number_filters,
    value_filters,
)
from kimas_desktop.answer.tables.reading import Token, keys, row_values, tokens
from kimas_desktop.answer.tables.unasked import uncounted, unkinded
from kimas_desktop.tables import (
    Aggregate,
    Operation,
    TableColumn,
    TableFilter,
    TableInfo,
    TableQuery,
)
from kimas_desktop.text.words import STOPWORDS, is_name

__all__ = ["TablePlanner"]

_MAX = {
    "highest",
    "largest",
    "most",
    "maximum",
    "max",
    "biggest",
    "greatest",
    "peak",
    "top",
    "best",
    "longest",
}
_MIN = {"lowest", "smallest", "least", "minimum", "min", "fewest", "worst", "shortest"}
_SUM = {"total", "sum", "combined", "altogether", "overall"}
_MEAN = {"average", "mean", "avg"}
_GROUP = re.compile(r"\b(?:for each|for every|in each|per|by|broken down by|across)\s+(?:the\s+)?$", re.I)
_COUNT_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "ten": 10,
}
# Words of the question's frame: never a sign that it names something the table lacks.
_FRAME = _MAX | _MIN | _SUM | _MEAN | {"how", "many", "much", "number", "count", "difference", "value", "row"}


@dataclass(frozen=True)
class _Reading:
    """What the question names: its tokens, the filters and which tokens they used, the columns it names."""

    toks: list[Token]
    filters: list[TableFilter]
    used: set[int]
    mentions: list[Span]
    values: list[tuple[TableFilter, int]]  # value filters and where they start


class TablePlanner:
    """The LLM-free planner (the paper's solver, KAG's "logical form", reduced to one table query)."""

    def plan(self, question: str, table: TableInfo, rows: Iterable[str] = ()) -> TableQuery | None:
        """The query ``question`` asks of ``table`` (``rows``: the text of the row chunks the search found),
        or None when it asks nothing this planner can compute or names what the table lacks."""
        r = self._read(question, table, rows)
        if r is None:
            return None
        query = _operation(question, table, r)
        if (
            query is None
            or _lacking(r, table)
            or uncounted(r.toks, r.used, r.filters, table, _FRAME)
            or unkinded(r.toks, r.used, query, table, _FRAME)
        ):
            return None
        return query

    def missing(self, question: str, table: TableInfo, rows: Iterable[str] = ()) -> tuple[str, ...]:
        """What a question about ``table`` names that the table does not hold: a name when it names one of
        its columns ("Ontario" in "What is the murder rate of Ontario?"), a kind of row ("daisy" in "the
        daisy flowers"), what a count counts in rows a key names ("executions" in "How many executions
        did Ohio have?"); () when it names none."""
        rows_, columns = self._absent(question, table, rows)
        return rows_ + columns

    def absent(self, question: str, table: TableInfo, rows: Iterable[str] = ()) -> str:
        """``missing`` in words, for the decline: "no row for Ontario", "no column for executions"; ""
        when the question names nothing the table lacks."""
        rows_, columns = self._absent(question, table, rows)
        said = [f"no {what} for {' '.join(w)}" for what, w in (("row", rows_), ("column", columns)) if w]
        return " and ".join(said)

    def _absent(
        self, question: str, table: TableInfo, rows: Iterable[str]
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        r = self._read(question, table, rows)
        if r is None:
            return (), ()
        names = _lacking(r, table) if r.mentions else []
        query = _operation(question, table, r)
        kinds = unkinded(r.toks, r.used, query, table, _FRAME) if query is not None else []
        return tuple(names + kinds), tuple(uncounted(r.toks, r.used, r.filters, table, _FRAME))

    def _read(self, question: str, table: TableInfo, rows: Iterable[str] = ()) -> _Reading | None:
        toks = tokens(question)
        used: set[int] = set()
        values = value_filters(table, toks, used, row_values(rows, table.columns))
        filters = [f for f, _ in values]
        mentions = mentions_of(table, toks, used)
        filters += date_filters(table, toks, used)
        numbered = number_filters(table, toks, used, mentions)
        if numbered is None:
            return None
        return _Reading(toks, filters + numbered, used, mentions, values)

    def score(self, question: str, table: TableInfo, rows: Iterable[str] = ()) -> int:
        """How much of ``table`` the question names (to choose among a file's tables)."""
        r = self._read(question, table, rows)
        return 0 if r is None else 2 * len(r.filters) + len({m.column.name for m in r.mentions})


def _has(r: _Reading, words_: set[str]) -> int | None:
    """The index of the first token among ``words_``, or None."""
    for i, t in enumerate(r.toks):
        if t.text.lower() in words_ and i not in r.used:
            return i
    return None


def _k(r: _Reading) -> int:
    for i, t in enumerate(r.toks):
        low = t.text.lower()
        nxt = r.toks[i + 1] if i + 1 < len(r.toks) else None
        if low in ("top", "first", "bottom") and nxt is not None:
            if nxt.number is not None:
                return int(nxt.number)
            if nxt.text.lower() in _COUNT_WORDS:
                return _COUNT_WORDS[nxt.text.lower()]
        small = low in _COUNT_WORDS or t.number is not None
        if small and nxt is not None and nxt.text.lower() in _MAX | _MIN and i not in r.used:
            return _COUNT_WORDS.get(low) or int(t.number or 0)
    return 0


def _target(r: _Reading, after: int | None, numeric: bool = True) -> TableColumn | None:
    """The column computed over: named, not filtered on, a number column when ``numeric``; the first after
    the operation's word when there is one."""
    filtered = {f.column for f in r.filters}
    cands = [m for m in r.mentions if m.column.name not in filtered]
    if numeric:
        cands = [m for m in cands if m.column.kind == "number"]
    if not cands:
        return None
    if after is not None:
        later = [m for m in cands if m.start > after]
        if later:
            return later[0].column
    return cands[0].column


def _which(table: TableInfo, r: _Reading) -> TableColumn | None:
    """The column "which <noun>" / "what <noun>" names ("which state", "in which year"), if any."""
    q = [t.text.lower() for t in r.toks]
    for i, w in enumerate(q[:-1]):
        if w in ("which", "what"):
            nxt = r.toks[i + 1].key
            for c in table.columns:
                if c.kind != "number" and nxt in keys(c.name):
                    return c
            for c in table.columns:
                if nxt in keys(c.name):
                    return c
    return None


def _without(r: _Reading, column: TableColumn | None) -> _Reading:
    if column is None:
        return r
    return replace(r, mentions=[m for m in r.mentions if m.column.name != column.name])


def _label(table: TableInfo, r: _Reading, target: TableColumn) -> TableColumn:
    """The column that names the answer's row: "which state" → state; "when" → the date or year column;
    else the first text column whose values are (nearly) all distinct, else the first column."""
    named = _which(table, r)
    if named is not None and named.name != target.name:
        return named
    q = [t.text.lower() for t in r.toks]
    if "when" in q or "year" in [t.key for t in r.toks]:
        for c in table.columns:
            if c.kind == "date" or ("year" in keys(c.name) and c.name != target.name):
                return c
    texts = [c for c in table.columns if c.kind == "text"]
    distinct = [c for c in texts if len(c.samples) >= min(table.rows, 50) * 0.9]
    return (distinct or texts or [table.columns[0]])[0]


def _by(r: _Reading, question: str) -> TableColumn | None:
    """The column of "for each X" / "by X" / "per X"."""
    for m in r.mentions:
        before = " ".join(t.text for t in r.toks[max(0, m.start - 4) : m.start]) + " "
        if _GROUP.search(before):
            return m.column
    return None


def _superlative(r: _Reading) -> tuple[str, int] | None:
    i, j = _has(r, _MAX), _has(r, _MIN)
    if i is None and j is None:
        return None
    if j is None or (i is not None and i < j):
        return "max", i or 0
    return "min", j


def _asks_row(r: _Reading, table: TableInfo) -> bool:
    """ "which …", "who", "when", "what <column>": the question wants the row, not the value."""
    q = [t.text.lower() for t in r.toks]
    if {"which", "who", "when", "whom"} & set(q):
        return True
    if "what" in q:
        i = q.index("what")
        nxt = r.toks[i + 1].key if i + 1 < len(q) else ""
        return any(nxt in keys(c.name) and c.kind != "number" for c in table.columns) or nxt == "year"
    return False


def _operation(question: str, table: TableInfo, r: _Reading) -> TableQuery | None:
    for step in (_difference, _top, _group, _how_many, _aggregate, _extreme, _lookup):
        q = step(question, table, r)
        if q is not None:
            return q
    return None


def _difference(question: str, table: TableInfo, r: _Reading) -> TableQuery | None:
    if _has(r, {"difference"}) is None:
        return None
    same = [(f, g) for i, f in enumerate(r.filters) for g in r.filters[i + 1 :] if f.column == g.column]
    pairs = [(f, g) for f, g in same if f.op == g.op == "="]
    target = _target(r, None)
    if not pairs or target is None:
        return None
    a, b = pairs[0]
    rest = tuple(f for f in r.filters if f not in (a, b))
    return TableQuery("difference", target.name, rest, pair=(a, b))


def _top(question: str, table: TableInfo, r: _Reading) -> TableQuery | None:
    k = _k(r)
    sup = _superlative(r)
    if k < 1:
        return None
    target = _target(_without(r, _which(table, r)), sup[1] if sup else None)
    if target is None:
        return None
    agg: Aggregate = "min" if sup is not None and sup[0] == "min" else "max"
    return TableQuery("top", target.name, tuple(r.filters), _label(table, r, target).name, agg=agg, k=k)


def _aggregate_word(r: _Reading) -> tuple[Aggregate, int | None]:
    for words_, agg in ((_MEAN, "mean"), (_SUM, "sum")):
        i = _has(r, words_)
        if i is not None:
            return agg, i  # type: ignore[return-value]
    sup = _superlative(r)
    if sup is not None:
        return sup[0], sup[1]  # type: ignore[return-value]
    return "count", _has(r, {"how", "number", "count"})


def _group(question: str, table: TableInfo, r: _Reading) -> TableQuery | None:
    by = _by(r, question)
    if by is None:
        return None
    rest = replace(r, mentions=[m for m in r.mentions if m.column.name != by.name])
    agg, at = _aggregate_word(rest)
    target = _target(rest, at)
    if agg != "count" and target is None:
        return None
    return TableQuery("group", target.name if target else "", tuple(r.filters), by=by.name, agg=agg)


def _how_many(question: str, table: TableInfo, r: _Reading) -> TableQuery | None:
    i = _has(r, {"how"})
    if i is None or i + 1 >= len(r.toks) or r.toks[i + 1].text.lower() != "many":
        return None
    target = _target(r, i)
    if target is not None and _has(r, _SUM) is not None:
        return TableQuery("sum", target.name, tuple(r.filters))
    if target is not None and r.values and any(m.start == i + 2 for m in r.mentions):
        return TableQuery("lookup", target.name, tuple(r.filters))
    if not r.filters and _unknown_words(r, table, i + 2):
        return None  # "how many tulip flowers": a word that names no column or value narrows the rows
    if uncounted(r.toks, r.used, r.filters, table, _FRAME):
        return None
    return TableQuery("count", "", tuple(r.filters))


def _unknown_words(r: _Reading, table: TableInfo, start: int) -> list[str]:
    """The words that narrow the noun after "how many" ("tulip" in "how many tulip flowers"): from token
    ``start`` up to the next stopword, all but the last (the rows' own noun), that no column, value or the
    file's name explains."""
    own = set(keys(Path(table.source).stem)) | set(keys(table.sheet))
    phrase = []
    for i in range(start, len(r.toks)):
        t = r.toks[i]
        if t.text.lower() in STOPWORDS or not t.key:
            break
        phrase.append(i)
    return [
        r.toks[i].key
        for i in phrase[:-1]
        if i not in r.used and r.toks[i].key not in own and r.toks[i].key not in _FRAME
    ]


def _aggregate(question: str, table: TableInfo, r: _Reading) -> TableQuery | None:
    for words_, op in ((_MEAN, "mean"), (_SUM, "sum")):
        i = _has(r, words_)
        if i is None:
            continue
        target = _target(r, i)
        if target is None:
            return None
        sup = _superlative(r)
        label = _label(table, r, target)
        if sup is not None and _asks_row(r, table) and label.kind == "text":
            return TableQuery("group", target.name, tuple(r.filters), by=label.name, agg=op)  # type: ignore[arg-type]
        return TableQuery(op, target.name, tuple(r.filters))  # type: ignore[arg-type]
    return None


def _extreme(question: str, table: TableInfo, r: _Reading) -> TableQuery | None:
    sup = _superlative(r)
    if sup is None:
        return None
    target = _target(_without(r, _which(table, r)), sup[1])
    if target is None:
        return None
    if _asks_row(r, table):
        op: Operation = "argmax" if sup[0] == "max" else "argmin"
        return TableQuery(op, target.name, tuple(r.filters), _label(table, r, target).name)
    return TableQuery(sup[0], target.name, tuple(r.filters))  # type: ignore[arg-type]


def _lookup(question: str, table: TableInfo, r: _Reading) -> TableQuery | None:
    if not r.filters:
        return None
    target = _target(r, None, numeric=False)
    if target is None:
        return None
    return TableQuery("lookup", target.name, tuple(r.filters))


def _lacking(r: _Reading, table: TableInfo) -> list[str]:
    """What the question names that the plan does not use: names (capitalised words), numbers and dates
    outside every filter, column and the file's own name."""
    own = set(keys(Path(table.source).stem)) | set(keys(table.sheet))
    k = _k(r)
    out = []
    for i, t in enumerate(r.toks):
        if i in r.used or t.key in own or t.key in _FRAME:
            continue
        counted = t.date is not None or (t.number is not None and not (k and t.number == k))
        if counted or (t.key and is_name(t.text, i) and t.key not in STOPWORDS):
            out.append(t.text)
    return out
