"""A table laid out wide, for the planner (``planner.py``): one column per region, per month, per cause of
death, per year, each holding the same kind of number ("Month, North, South, East, West").

``members`` finds such columns from the header and the values, not from a list of words: at least three
number columns whose headers have one form (each one word, or each a year, or each a month's name, in the
same case and script), whose values are written alike (all whole numbers, or all with decimals), that name
no operation ("Total") and no year column. ``nouns`` reads what the question calls them: the category ("per
region", "which cause", "the North region": a word the table does not hold, after a member, "per", "each",
"which") and the measure (a word of the file's name: "sales" in regional-sales.xlsx, "deaths" in
crimean-war-deaths.csv). ``view`` is the table as the engine reads it long (``Melt``): the other columns,
then the category as a text column whose values are the headers, and the measure as a number column, so
the usual plans apply: "average per region" groups by it, "total sales in Q2" sums it over both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import PurePath

from kimas_desktop.answer.tables.reading import Token, keys, month_number, subject
from kimas_desktop.tables import Melt, TableColumn, TableInfo
from kimas_desktop.text.scripts import has_unspaced
from kimas_desktop.text.words import STOPWORDS

__all__ = ["members", "nouns", "view"]

_OPERATIONS = {"total", "sum", "average", "avg", "mean", "max", "min", "maximum", "minimum", "count"}
_CATEGORY_BEFORE = {"per", "each", "every", "which", "what", "by"}


def _form(name: str) -> tuple[str, ...] | None:
    """What kind of header ``name`` is: a year, a month's name, or one word in its case and script; None
    for a header of several words, with a unit, or naming an operation."""
    text = name.strip()
    if re.fullmatch(r"\d{4}", text) and 1000 <= int(text) <= 2100:
        return ("year",)
    if month_number(text) is not None:
        return ("month",)
    k = keys(text)
    if len(k) != 1 or not k[0] or k[0] in _OPERATIONS or text.lower() in _OPERATIONS or not text.isalpha():
        return None
    case = "upper" if text.isupper() else "title" if text.istitle() else "lower" if text.islower() else ""
    return ("word", case, "unspaced" if has_unspaced(text) else "spaced")


def _written(column: TableColumn) -> str:
    """How a number column's values are written: "whole" or "decimal"."""
    return "decimal" if any("." in s for s in column.samples) else "whole"


def _yearly(column: TableColumn) -> bool:
    return bool({"year", "yr", "年", "年份"} & set(keys(column.name)))


def members(table: TableInfo) -> tuple[TableColumn, ...]:
    """The largest set of at least three number columns that are one measure per category; () for none."""
    groups: dict[tuple[object, ...], list[TableColumn]] = {}
    for c in table.columns:
        form = _form(c.name) if c.kind == "number" and not _yearly(c) else None
        if form is not None:
            groups.setdefault((*form, _written(c)), []).append(c)
    best = max(groups.values(), key=len, default=[])
    return tuple(best) if len(best) >= 3 else ()


def nouns(
    toks: Sequence[Token], used: set[int], table: TableInfo, wide: Sequence[TableColumn], frame: set[str]
) -> tuple[str, str] | None:
    """What the question calls the columns ``wide`` (the category: "region") and their values (the measure:
    "sales"), as it writes them ("" when it names none); None when it names something else the table does
    not hold where the measure goes (right after a word of the question's ``frame``: "the total snowfall",
    when "snowfall" is no column, value or word of the file's name)."""
    own = subject(table)
    heads = {k for c in wide for k in keys(c.name)}
    known = set(frame)
    for c in table.columns:
        known.update(keys(c.name))
        if c.kind == "text":
            known.update(k for v in c.samples for k in keys(v))
    category = measure = ""
    for i, t in enumerate(toks):
        low = t.text.lower()
        if (
            i in used
            or not t.key
            or t.key in known
            or low in frame
            or t.number is not None
            or t.date is not None
        ):
            continue
        if low in STOPWORDS or low in _CATEGORY_BEFORE:
            continue
        before = toks[i - 1] if i > 0 else None
        after_member = before is not None and before.key in heads
        if not category and before is not None and (before.text.lower() in _CATEGORY_BEFORE or after_member):
            category = t.text
        elif t.key in own:
            measure = t.text
        elif before is not None and before.text.lower() in frame:
            return None  # "the total snowfall": what is computed is no measure of this table
    return category, measure


def view(
    table: TableInfo, wide: Sequence[TableColumn], category: str, measure: str
) -> tuple[TableInfo, Melt]:
    """``table`` read long: its other columns, ``category`` (text: the headers of ``wide``) and ``measure``
    (a number), and the ``Melt`` the engine reads it by. Names the question does not give: "column" and the
    file's name."""
    names = {c.name.lower() for c in table.columns}
    category = category if category and category.lower() not in names else "column"
    names.add(category.lower())
    own = PurePath(table.source).stem or "value"
    measure = measure if measure and measure.lower() not in names else own
    melt = Melt(tuple(c.name for c in wide), category, measure)
    samples = tuple(dict.fromkeys(s for c in wide for s in c.samples))[:50]
    columns = (
        *(c for c in table.columns if c not in wide),
        TableColumn(category, "text", melt.columns),
        TableColumn(measure, "number", samples),
    )
    return replace(table, columns=columns, rows=table.rows * len(wide)), melt
