"""What a question names in a table, for the planner (``planner.py``): cells of text columns, dates, numbers
beside a number column, years, and the columns it mentions; each becomes a filter or a mention, and every
token is used once."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kimas_desktop.answer.tables.reading import Token, keys, month_number, tokens_kept
from kimas_desktop.tables import FilterOp, TableColumn, TableFilter, TableInfo
from kimas_desktop.text.scripts import has_unspaced
from kimas_desktop.text.words import STOPWORDS, words

__all__ = [
    "Found",
    "Span",
    "compare",
    "date_filters",
    "find",
    "glossed_codes",
    "informative",
    "mentions_of",
    "month_names",
    "number_filters",
    "same",
    "time_op",
    "unspaced_found",
    "value_filters",
    "year_column",
    "year_filter",
]


@dataclass(frozen=True)
class Span:
    column: TableColumn
    start: int
    end: int  # exclusive, in tokens
    op: str = ""  # the operation a word of the header names and the question said ("maximum" for temp_max)


# Words that name an operation, as a header may abbreviate them ("temp_max", "avg_price", "total_sales").
_OPS = {
    "max": ("max", "maximum", "highest", "largest", "most", "peak", "greatest", "biggest", "top"),
    "min": ("min", "minimum", "lowest", "smallest", "least", "fewest"),
    "mean": ("mean", "avg", "average"),
    "sum": ("sum", "total"),
}
_OP_OF = {w: op for op, ws in _OPS.items() for w in ws}
_PLACE_SUFFIXES = ("ese", "ean", "ian", "ish", "an", "i")  # Japanese, European, Canadian, Danish, German


_COMPARE: tuple[tuple[str, FilterOp], ...] = (
    (r"(?:more|greater|higher|larger|bigger) than|over|above|exceeding|exceeds?", ">"),
    (r"(?:less|fewer|lower|smaller) than|under|below", "<"),
    (r"at least|(?:or|and) more|no less than", ">="),
    (r"at most|no more than|up to", "<="),
)
_YEAR_WORDS = {"in", "during", "of", "for", "on", "year", "years", "between", "and", "from", "to"}
_TIME: tuple[tuple[str, FilterOp], ...] = (("since", ">="), ("after", ">"), ("before", "<"), ("until", "<="))
_RANGE_START, _RANGE_END = ("between", "from"), ("and", "to", "through")


def _when(t: Token) -> bool:
    return t.date is not None or (t.number is not None and 1000 <= t.number <= 2100)


def time_op(toks: Sequence[Token], i: int) -> FilterOp | None:
    """The comparison the words around the date or year at ``i`` say: "since 2015" >=, "before 2015" <,
    "between 2013 and 2014" (or "from … to …") >= for the first, <= for the second; None otherwise."""
    low = [t.text.lower() for t in toks]
    if "difference" in low:
        return None  # "the difference between 1947 and 1962": two rows, not a range
    if i > 0 and low[i - 1] in dict(_TIME):
        return dict(_TIME)[low[i - 1]]
    if (
        0 < i < len(toks) - 2
        and low[i - 1] in _RANGE_START
        and low[i + 1] in _RANGE_END
        and _when(toks[i + 2])
    ):
        return ">="
    if i >= 3 and low[i - 1] in _RANGE_END and _when(toks[i - 2]) and low[i - 3] in _RANGE_START:
        return "<="
    return None


def find(seq: Sequence[str], toks: Sequence[Token], used: set[int]) -> list[int]:
    """Where the keys ``seq`` appear in a row among the question's unused tokens."""
    n = len(seq)
    qk = [t.key or t.text.replace(",", "").lower() for t in toks]
    return [
        i
        for i in range(len(toks) - n + 1)
        if tuple(qk[i : i + n]) == tuple(seq) and not used & set(range(i, i + n))
    ]


def _op_word(t: Token) -> str:
    return _OP_OF.get(t.text.lower(), "")


def same(t: Token, header_key: str) -> bool:
    """Whether the question's token ``t`` names the header's key: the same key, the same operation
    ("maximum" for "max"), or one a short form of the other ("temperature" for "temp", "precip" for
    "precipitation": at least three letters, no stopword)."""
    q = t.key or t.text.replace(",", "").lower()
    h = header_key
    if q == h or (_op_word(t) and _op_word(t) == _OP_OF.get(h)):
        return True
    if not (q.isalpha() and h.isalpha()) or q in STOPWORDS or h in STOPWORDS:
        return False
    return (len(h) >= 3 and q.startswith(h)) or (len(q) >= 4 and h.startswith(q))


def _droppable(k: str) -> bool:
    """A header key a question may leave out: a unit or a joining word ("mm" in bill_length_mm, "in" and
    "lbs" in Weight_in_lbs), or an operation it says in other words."""
    return len(k) <= 3 or k in STOPWORDS


def _window(hk: Sequence[str], toks: Sequence[Token], i: int, n: int) -> str | None:
    """Whether tokens ``i``..``i+n`` name the header ``hk`` (each a different key, in any order; the keys
    left out droppable, with one informative word among those named); the operation word it holds ("" for
    none), or None."""
    left = list(hk)
    op = ""
    informative_ = False
    for t in toks[i : i + n]:
        j = next((j for j, h in enumerate(left) if same(t, h)), None)
        if j is None:
            return None
        h = left.pop(j)
        if _OP_OF.get(h) and _op_word(t):
            op = _OP_OF[h]
        elif h not in STOPWORDS and (len(h) > 1 or h.isdigit()):
            informative_ = True
    if left and (not informative_ or not all(_droppable(h) for h in left)):
        return None  # a header named whole needs no informative word ("YES"); one cut short does
    return op


def informative(k: Sequence[str]) -> bool:
    return any(x not in STOPWORDS and len(x) > 1 for x in k)


_BRACKET = re.compile(r"[(（]\s*([^()（）]{1,24}?)\s*[)）]")


def glossed_codes(
    question: str,
    table: TableInfo,
    toks: list[Token],
    used: set[int],
    seen: dict[str, set[str]],
    kept: Sequence[tuple[int, int, bool]] = (),
) -> list[str]:
    """Mark as used the words a bracketed code explains ("Microsoft" in "Microsoft (MSFT)", "real GDP" in
        "real GDP (realgdp)") when the code is a value or a column of the table: the code is matched, its gloss
        names nothing more. A code the table lacks leaves its gloss to be missed, and is returned ("ON" in
    "Ontario (ON)" over a table of US airports, whose city column happens to hold an Ontario)."""
    names = {keys(c.name) for c in table.columns}
    values = {
        keys(v) for c in table.columns if c.kind == "text" for v in set(c.samples) | seen.get(c.name, set())
    }
    lacking = []
    for m in _BRACKET.finditer(question):
        code = keys(m.group(1))
        if code and code not in names and code not in values and len(code) == 1 and m.group(1).isupper():
            lacking.append(m.group(1))
        if not code or (code not in names and code not in values):
            continue
        i = len(tokens_kept(question[: m.start()], [k for k in kept if k[1] <= m.start()])[0]) - 1
        while i >= 0 and i not in used and toks[i].key and toks[i].text.lower() not in STOPWORDS:
            if toks[i].text.lower() in _OP_OF or toks[i].text.lower() in _FRAME_WORDS:
                break
            used.add(i)
            i -= 1
    return lacking


_FRAME_WORDS = {"how", "many", "much", "number", "count", "difference", "value"}


@dataclass(frozen=True)
class Found:
    """A cell (``value``) or a header (``value`` None) of ``column`` inside the question's characters."""

    start: int
    end: int
    column: TableColumn
    value: str | None

    @property
    def kept(self) -> tuple[int, int, bool]:
        return self.start, self.end, self.value is not None


def _word_spans(question: str) -> set[tuple[int, int]]:
    """The character spans of the segmenter's words in ``question``."""
    out, pos = set(), 0
    for w in words(question):
        at = question.find(w, pos)
        if at >= 0:
            out.add((at, at + len(w)))
            pos = at + len(w)
    return out


def unspaced_found(question: str, table: TableInfo, seen: dict[str, set[str]]) -> list[Found]:
    """Cells of text columns and headers written in a script without spaces (Chinese, Japanese), found
    inside the question as written: "车库" in "车库里的数量总共是多少？", where no word boundary sets it apart
    (the segmenter cuts "车库里", the glossary reads "车" as cars). Longest first, each cell once, none
    inside a longer cell or header found before it ("车库" is not found in "车库门遥控器" when that is a
    cell too); one character only as a word of its own ("书" is not found in "书房"). In order."""
    low = question.lower()
    cands: list[tuple[str, TableColumn, str | None]] = [
        (c.name, c, None) for c in table.columns if has_unspaced(c.name)
    ]
    for c in table.columns:
        if c.kind == "text":
            cands += [(v, c, v) for v in set(c.samples) | seen.get(c.name, set()) if has_unspaced(v)]
    alone = _word_spans(question) if any(len(t.strip()) == 1 for t, _, _ in cands) else set()
    taken: list[Found] = []
    for text, column, value in sorted(cands, key=lambda x: (-len(x[0].strip()), x[2] is None, x[0])):
        word = text.strip().lower()
        at = low.find(word) if word else -1
        while at >= 0:
            span = (at, at + len(word))
            free = not any(span[0] < f.end and f.start < span[1] for f in taken)
            if free and (len(word) > 1 or span in alone):
                taken.append(Found(*span, column, value))
                if value is not None:
                    break  # a cell once; a header at each of its places
            at = low.find(word, at + 1)
    return sorted(taken, key=lambda f: f.start)


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
    for i, t in enumerate(toks):
        place = _place(t, [(c, v, k) for _, c, v, k in cands if len(k) == 1]) if i not in used else None
        if place is not None:
            used.add(i)
            out.append((TableFilter(place[0].name, "=", place[1]), i))
    return sorted(out, key=lambda x: x[1])


def _place(
    t: Token, values: list[tuple[TableColumn, str, tuple[str, ...]]]
) -> tuple[TableColumn, str] | None:
    """The one value an adjective of place names ("Japanese" → Japan, "European" → Europe, "German" →
    Germany): the word less its ending begins the value's word, or the value's word begins it."""
    low = t.text.lower()
    for suffix in _PLACE_SUFFIXES:
        base = low[: -len(suffix)]
        if not low.endswith(suffix) or len(base) < 4 or not low.isalpha():
            continue
        found = {(c.name, v): c for c, v, k in values if k[0].startswith(base) or base.startswith(k[0])}
        if len(found) == 1:
            (_, v), c = next(iter(found.items()))
            return c, v
    return None


def mentions_of(table: TableInfo, toks: list[Token], used: set[int]) -> list[Span]:
    """The columns the question names by their header's words: in any order, abbreviated either way, a
    unit left out ("the maximum temperature" names temp_max, "flipper length" flipper_length_mm); the
    mentions that cover most words first, each word once."""
    cands: list[tuple[int, int, int, Span]] = []
    for order, c in enumerate(table.columns):
        hk = keys(c.name)
        for n in range(min(len(hk), len(toks)), 0, -1):
            for i in range(len(toks) - n + 1):
                if used & set(range(i, i + n)):
                    continue
                op = _window(hk, toks, i, n)
                if op is not None:
                    cands.append((-n, len(hk) - n, order, Span(c, i, i + n, op)))
    spans: list[Span] = []
    for *_, span in sorted(cands, key=lambda x: x[:3]):
        if not used & set(range(span.start, span.end)):
            used.update(range(span.start, span.end))
            spans.append(span)
    return sorted(spans, key=lambda s: s.start)


def date_filters(table: TableInfo, toks: list[Token], used: set[int]) -> list[TableFilter]:
    """A date the question names, on the table's date column; without one, a month ("January 1998", "in
    March") on a column whose values are months' names (JAN … DEC), with its year on the year column."""
    dates = [c for c in table.columns if c.kind == "date"]
    months = [c for c in table.columns if c.kind == "text" and month_names(c.samples)]
    out = []
    for i, t in enumerate(toks):
        if t.date is None or i in used:
            continue
        if dates:
            used.add(i)
            out.append(TableFilter(dates[0].name, time_op(toks, i) or "=", t.date))
            continue
        year, _, month = t.date.lstrip("-").partition("-") if t.date[:2] != "--" else ("", "", t.date[2:])
        named = month_names(months[0].samples).get(int(month)) if months and month.isdigit() else None
        by_year = year_column(table, float(year)) if year.isdigit() else None
        if named is not None and (by_year is not None or not year):
            used.add(i)
            out.append(TableFilter(months[0].name, "=", named))
            if by_year is not None:
                out.append(year_filter(by_year, "=", float(year)))
    return out


def month_names(values: Sequence[str]) -> dict[int, str]:
    """The month each of ``values`` names ("JAN", "1月"), by number; {} unless each names another month."""
    out = {}
    for v in values:
        n = month_number(v)
        if n is None or n in out:
            return {}
        out[n] = v
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
        timed = time_op(toks, i)
        if year is not None and timed is not None:
            out.append(year_filter(year, timed, t.number))
            used.update(range(max(0, i - 1), i + 1))
            continue
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
