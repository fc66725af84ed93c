"""What a question names in a table, for the planner (``planner.py``): cells of text columns, dates, numbers
beside a number column, years, and the columns it mentions; each becomes a filter or a mention, and every
token is used once."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kimas_desktop.answer.tables.reading import Token, keys
from kimas_desktop.tables import FilterOp, TableColumn, TableFilter, TableInfo
from kimas_desktop.text.words import STOPWORDS

__all__ = [
    "Span",
    "compare",
    "date_filters",
    "find",
    "informative",
    "mentions_of",
    "number_filters",
    "value_filters",
    "year_column",
    "year_filter",
]


@dataclass(frozen=True)
class Span:
    column: TableColumn
    start: int
    end: int  # exclusive, in tokens


_COMPARE: tuple[tuple[str, FilterOp], ...] = (
    (r"(?:more|greater|higher|larger|bigger) than|over|above|exceeding|exceeds?", ">"),
    (r"(?:less|fewer|lower|smaller) than|under|below", "<"),
    (r"at least|(?:or|and) more|no less than", ">="),
    (r"at most|no more than|up to", "<="),
)
_YEAR_WORDS = {"in", "during", "of", "for", "on", "year", "years", "between", "and", "from", "to"}


def find(seq: Sequence[str], toks: Sequence[Token], used: set[int]) -> list[int]:
    """Where the keys ``seq`` appear in a row among the question's unused tokens."""
    n = len(seq)
    qk = [t.key or t.text.replace(",", "").lower() for t in toks]
    return [
        i
        for i in range(len(toks) - n + 1)
        if tuple(qk[i : i + n]) == tuple(seq) and not used & set(range(i, i + n))
    ]


def informative(k: Sequence[str]) -> bool:
    return any(x not in STOPWORDS and len(x) > 1 for x in k)


def value_filters(
    table: TableInfo, toks: list[Token], used: set[int], seen: dict[str, set[str]]
) -> list[tuple[TableFilter, int]]:
    """Cells of text columns the question names, longest first, each token used once."""
    cands = []
    for c in table.columns:
        if c.kind != "text":
            continue
        for v in set(c.samples) | seen.get(c.name, set()):
            k = keys(v)
            if k and informative(k):
                cands.append((len(k), c, v, k))
    out = []
    for _, c, v, k in sorted(cands, key=lambda x: -x[0]):
        for i in find(k, toks, used)[:1]:
            used.update(range(i, i + len(k)))
            out.append((TableFilter(c.name, "=", v), i))
    return sorted(out, key=lambda x: x[1])


def mentions_of(table: TableInfo, toks: list[Token], used: set[int]) -> list[Span]:
    """The columns the question names by their header's words (longest headers first)."""
    spans: list[Span] = []
    taken: set[int] = set(used)
    for c in sorted(table.columns, key=lambda c: -len(keys(c.name))):
        k = keys(c.name)
        for i in find(k, toks, taken) if k else []:
            taken.update(range(i, i + len(k)))
            spans.append(Span(c, i, i + len(k)))
    used.update(taken - used)
    return sorted(spans, key=lambda s: s.start)


def date_filters(table: TableInfo, toks: list[Token], used: set[int]) -> list[TableFilter]:
    dates = [c for c in table.columns if c.kind == "date"]
    out = []
    for i, t in enumerate(toks):
        if t.date is not None and dates and i not in used:
            used.add(i)
            out.append(TableFilter(dates[0].name, "=", t.date))
    return out


def compare(toks: list[Token], i: int) -> tuple[FilterOp, int]:
    """The comparison the words before token ``i`` say, and where those words start."""
    before = " ".join(t.text.lower() for t in toks[max(0, i - 3) : i])
    for words_, op in _COMPARE:
        m = re.search(rf"(?:^|\s)(?:{words_})$", before)
        if m:
            return op, i - len(before[m.start() :].split())
    return "=", i


def year_column(table: TableInfo, value: float) -> TableColumn | None:
    if not (1000 <= value <= 2100 and value == int(value)):
        return None
    for c in table.columns:
        if c.kind == "date":
            return c
    for c in table.columns:
        if c.kind == "number" and any(k in ("year", "yr") for k in keys(c.name)):
            return c
    return None


def year_filter(column: TableColumn, op: FilterOp, year: float) -> TableFilter:
    return TableFilter(column.name, op, str(int(year)) if column.kind == "date" else year)


def number_filters(
    table: TableInfo, toks: list[Token], used: set[int], mentions: list[Span]
) -> list[TableFilter] | None:
    """Numbers beside a number column, years, and "top k" (k is read later; its token is left unused)."""
    out = []
    for i, t in enumerate(toks):
        if t.number is None or i in used:
            continue
        if i > 0 and toks[i - 1].key in ("top", "first", "bottom"):
            continue
        op, at = compare(toks, i)
        year = year_column(table, t.number)
        if year is not None and at > 0 and toks[at - 1].text.lower() in _YEAR_WORDS:
            out.append(year_filter(year, op, t.number))
            used.update(range(at - 1, i + 1))
            continue
        near = [
            m
            for m in mentions
            if m.column.kind == "number" and (0 <= at - m.end <= 3 or 0 <= m.start - i - 1 <= 1)
        ]
        if near:
            col = min(near, key=lambda m: min(abs(at - m.end), abs(m.start - i)))
            out.append(TableFilter(col.column.name, op, t.number))
            used.update(range(at, i + 1))
            continue
        if year is not None:
            out.append(year_filter(year, op, t.number))
            used.update(range(at, i + 1))
    return out
