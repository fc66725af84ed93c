"""What a table question's words point at, for the planner (``planner.py``): the words of its frame
("highest", "total", "how many"), the column an operation computes over (``target_column``), the column that names
the answer's row (``label_column``: "which state", "when"), the column of "for each X" (``grouped_by``), the k of
"top 5" (``top_k``) and whether the question wants a row or a value (``asks_row``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from kimas_desktop.answer.tables.named import Span
from kimas_desktop.answer.tables.reading import Token, keys
from kimas_desktop.tables import Melt, TableColumn, TableFilter, TableInfo

__all__ = [
    "COUNTED",
    "FRAME",
    "MAX",
    "MEAN",
    "MIN",
    "QUANTITY",
    "ROW_KINDS",
    "SUM",
    "WHEN",
    "Reading",
    "asks_row",
    "asks_when",
    "coarser",
    "count_at",
    "counts",
    "counts_rows",
    "grouped_by",
    "has",
    "is_key",
    "is_kinds",
    "label_column",
    "measure_of",
    "quantity_column",
    "repeats",
    "row_noun",
    "superlative",
    "target_column",
    "target_or_measure",
    "top_k",
    "totals_ranked",
    "which_column",
    "without",
]

MAX = {
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
MIN = {"lowest", "smallest", "least", "minimum", "min", "fewest", "worst", "shortest"}
# The superlatives that count rows ("which island has the most penguins", "the fewest airports").
COUNTED = {"most", "fewest", "least"}
SUM = {"total", "sum", "combined", "altogether", "overall"}
MEAN = {"average", "mean", "avg"}
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
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
# The words after "which"/"what" that ask for the row's date ("on which day", "what year"), as keys.
WHEN = {"day", "dat", "month", "year", "week", "tim", "quarter"}
# Words of the question's frame: never a sign that it names something the table lacks.
FRAME = MAX | MIN | SUM | MEAN | {"how", "many", "much", "number", "count", "difference", "value", "row"}
# Headers that hold how many pieces of each row's thing there are: "how many items" sums them, not the
# rows. Not "Count": issue 43's browser test reads "How many items are in the shelf Garage?" over a Count
# column as the rows (2), and a Count column often tallies observations.
QUANTITY = {"quantity", "qty", "units", "pieces", "pcs", "数量", "数目", "件数", "个数", "個数"}
# The words after "how many" that count the rows themselves ("how many kinds of items", "有多少种物品").
ROW_KINDS = {"kind", "type", "sort", "variety", "row", "entry", "record", "line", "种", "类", "行"}


@dataclass(frozen=True)
class Reading:
    """What the question names: its tokens, the filters and which tokens they used, the columns it names."""

    toks: list[Token]
    filters: list[TableFilter]
    used: set[int]
    mentions: list[Span]
    values: list[tuple[TableFilter, int]]  # value filters and where they start
    codes: tuple[str, ...] = ()  # bracketed codes ("(TX)") that are no value or column of the table
    measure: TableColumn | None = None  # what an aggregate computes when the question names no number
    melt: Melt | None = None  # planning over a wide table read long (``wide.py``)


def quantity_column(table: TableInfo) -> TableColumn | None:
    """The one number column whose header says how many of the row's thing there are ("数量",
    "Quantity", "qty (pcs)"); None when there is none or more than one."""
    found = [
        c
        for c in table.columns
        if c.kind == "number" and re.sub(r"[(（].*?[)）]", "", c.name).strip().lower() in QUANTITY
    ]
    return found[0] if len(found) == 1 else None


def counts_rows(r: Reading, at: int) -> bool:
    """Whether the words after "how many" at ``at`` count rows: "how many kinds of items", "多少种"."""
    nxt = r.toks[at + 2] if at + 2 < len(r.toks) else None
    return nxt is not None and (nxt.key in ROW_KINDS or nxt.text.lower() in ROW_KINDS)


def has(r: Reading, words_: set[str]) -> int | None:
    """The index of the first token among ``words_``, or None."""
    for i, t in enumerate(r.toks):
        if t.text.lower() in words_ and i not in r.used:
            return i
    return None


def _k_of(t: Token) -> int:
    """ "three" → 3, "5" → 5 (one to twelve in words, a whole number in figures); 0 for no count."""
    if t.number is not None:
        return int(t.number) if t.number == int(t.number) and t.number > 0 else 0
    return _COUNT_WORDS.get(t.text.lower(), 0)


def count_at(toks: Sequence[Token], mentions: Sequence[Span]) -> int | None:
    """The index of the k of a top k written as a count of rows: "the three cars with the highest
    horsepower", "the 5 days with the lowest temp_min" (after "the", before a plural noun that starts no
    column's name, in a question with a superlative); None otherwise. English: a Chinese count is read
    by ``text.gloss`` ("最高的三辆车" → first 3)."""
    if not any(t.text.lower() in MAX | MIN for t in toks):
        return None
    named = {m.start for m in mentions}
    for i in range(1, len(toks) - 1):
        noun, low = toks[i + 1], toks[i + 1].text.lower()
        plural = low.endswith("s") and noun.key != low and noun.number is None and noun.date is None
        if toks[i - 1].text.lower() == "the" and _k_of(toks[i]) and plural and i + 1 not in named:
            return i
    return None


def top_k(r: Reading) -> int:
    at = count_at(r.toks, r.mentions)
    if at is not None:
        return _k_of(r.toks[at])
    for i, t in enumerate(r.toks):
        low = t.text.lower()
        nxt = r.toks[i + 1] if i + 1 < len(r.toks) else None
        if low in ("top", "first", "bottom") and nxt is not None:
            if nxt.number is not None:
                return int(nxt.number)
            if nxt.text.lower() in _COUNT_WORDS:
                return _COUNT_WORDS[nxt.text.lower()]
        small = low in _COUNT_WORDS or t.number is not None
        if small and nxt is not None and nxt.text.lower() in MAX | MIN and i not in r.used:
            return _COUNT_WORDS.get(low) or int(t.number or 0)
    return 0


def target_column(r: Reading, after: int | None, numeric: bool = True) -> TableColumn | None:
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


def target_or_measure(r: Reading, after: int | None) -> TableColumn | None:
    """``target_column``, else the table's one measure ("average per region" over Month, Region, Sales)."""
    return target_column(r, after) or r.measure


def measure_of(table: TableInfo) -> TableColumn | None:
    """The table's one number column that is no year ("Sales" beside Month and Region); None."""
    found = [c for c in table.columns if c.kind == "number" and not {"year", "yr"} & set(keys(c.name))]
    return found[0] if len(found) == 1 else None


def repeats(table: TableInfo, r: Reading, column: TableColumn) -> bool:
    """Whether ``column``'s values are known to repeat across the rows (Month over one row per month and
    region; any column but the category of a wide table read long)."""
    if r.melt is not None:
        return column.name not in (r.melt.name, r.melt.value)
    return len(column.samples) < min(table.rows, 50)


def totals_ranked(table: TableInfo, r: Reading, label: TableColumn, target: TableColumn) -> bool:
    """Whether "which <label> had the highest <target>" ranks totals, not rows: the label's values repeat,
    and its rows are split by a column of kinds the plan does not filter on (each month's rows are its
    regions': "which month had the highest sales" sums each month first), or by time alone and the
    measure counts (``counts``); not "which symbol had the highest price in 2009" (the highest price of one
    day)."""
    if label.name == target.name or not repeats(table, r, label):
        return False
    filtered = {f.column for f in r.filters}
    split = any(
        c.kind == "text" and c.name not in filtered and c.name != label.name and is_kinds(table, c)
        for c in table.columns
    )
    return split or (r.melt is None and counts(target))


def counts(column: TableColumn) -> bool:
    """Whether a number column's values are known to be written as whole numbers (counts and amounts, which
    add up over a period: "which region had the highest sales in Q4" ranks the regions' totals; a price
    written with decimals is ranked by its highest value)."""
    return bool(column.samples) and all(s.lstrip("-").isdigit() for s in column.samples)


def is_kinds(table: TableInfo, column: TableColumn) -> bool:
    """A text column naming the rows' kinds: a few values, each on many rows."""
    return 2 <= len(column.samples) < 50 and 2 * len(column.samples) <= table.rows


def is_key(table: TableInfo, column: TableColumn) -> bool:
    """A column whose values are known to be (nearly) all distinct: one row each."""
    return len(column.samples) >= table.rows * 0.9


def which_column(table: TableInfo, r: Reading) -> TableColumn | None:
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


def without(r: Reading, column: TableColumn | None) -> Reading:
    if column is None:
        return r
    return replace(r, mentions=[m for m in r.mentions if m.column.name != column.name])


def label_column(table: TableInfo, r: Reading, target: TableColumn) -> TableColumn:
    """The column that names the answer's row: "which state" → state, "数量最多的物品" → 物品 (``row_noun``);
    "when" → the date or year column;
    else the first text column whose values are (nearly) all distinct, else the first column."""
    named = which_column(table, r) or row_noun(r)
    if named is not None and named.name != target.name:
        return named
    q = [t.text.lower() for t in r.toks]
    if "when" in q or "year" in [t.key for t in r.toks] or asks_when(r):
        for c in table.columns:
            if c.kind == "date" or ("year" in keys(c.name) and c.name != target.name):
                return c
    texts = [c for c in table.columns if c.kind == "text"]
    distinct = [c for c in texts if len(c.samples) >= min(table.rows, 50) * 0.9]
    return (distinct or texts or [table.columns[0]])[0]


def asks_when(r: Reading) -> bool:
    """Whether "which"/"what" asks for a time: "on which day", "what date", "in which month"."""
    q = [t.text.lower() for t in r.toks]
    return any(w in ("which", "what") and r.toks[i + 1].key in WHEN for i, w in enumerate(q[:-1]))


def grouped_by(r: Reading, question: str) -> TableColumn | None:
    """The column of "for each X" / "by X" / "per X"."""
    for m in r.mentions:
        before = " ".join(t.text for t in r.toks[max(0, m.start - 4) : m.start]) + " "
        if _GROUP.search(before):
            return m.column
    return None


def superlative(r: Reading) -> tuple[str, int] | None:
    i, j = has(r, MAX), has(r, MIN)
    if i is None and j is None:
        return None
    if j is None or (i is not None and i < j):
        return "max", i or 0
    return "min", j


def row_noun(r: Reading) -> TableColumn | None:
    """The column a superlative picks a row by: one not of numbers, not filtered, named right after it
    (and "的": "数量最多的物品是什么？", the 物品 whose 数量 is the most) or right before "with (the)" and
    it ("the item with the largest quantity"); None otherwise."""
    sup = superlative(r)
    if sup is None:
        return None
    filtered = {f.column for f in r.filters}
    for m in r.mentions:
        if m.column.kind == "number" or m.column.name in filtered:
            continue
        after = [t.text.lower() for t in r.toks[sup[1] + 1 : m.start]]
        before = [t.text.lower() for t in r.toks[m.end : sup[1]]]
        if (m.start > sup[1] and after in ([], ["的"])) or (m.end <= sup[1] and before in _WITH):
            return m.column
    return None


_WITH = (["with"], ["with", "the"])


def asks_row(r: Reading, table: TableInfo) -> bool:
    """ "which …", "who", "when", "what <column>", "数量最多的物品" (``row_noun``): the question wants the
    row, not the value."""
    q = [t.text.lower() for t in r.toks]
    if {"which", "who", "when", "whom"} & set(q) or row_noun(r) is not None:
        return True
    if "what" in q:
        i = q.index("what")
        nxt = r.toks[i + 1].key if i + 1 < len(q) else ""
        return any(nxt in keys(c.name) and c.kind != "number" for c in table.columns) or nxt in WHEN
    return False


_FINE = {"": 0, "month": 1, "quarter": 2}


def coarser(table: TableInfo, filters: Sequence[TableFilter]) -> bool:
    """Whether a date filter covers more than one row's date: a year over a column of months, a month over
    a column of days."""
    grains = {c.name: _FINE[c.grain] for c in table.columns if c.kind == "date"}
    for f in filters:
        if f.column in grains and f.op == "=" and isinstance(f.value, str):
            text = f.value.lstrip("-")
            span = (
                3 if "-" not in text and "Q" not in text else 2 if "Q" in text else 1 if len(text) <= 7 else 0
            )
            if f.value.startswith("--") or span > grains[f.column]:
                return True
    return False
