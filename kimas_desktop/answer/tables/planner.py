"""``TablePlanner``: from a question and a table's header, kinds and values to a ``TableQuery``, no model.

What it reads, in this order:
    values      a cell of a text column named in the question (from the column's samples and the row chunks
                the search found): a filter ``column = value``; the longest names first; a cell in a script
                without spaces (Chinese, Japanese) found inside the question's characters ("车库里")
    dates       a date ("on 1990-03-05", "March 5, 1990", "in March 1990") with a date column: a filter
                on that day, month or year
    numbers     a number next to a number column ("8 cylinders", "poverty above 15"): a filter, with the
                comparison the words before it say; a year with no column beside it goes to the date
                column or a column called year; "top 5" and "the three cars with the highest …" give a
                top-k its k
    columns     the other columns the question names: the target (the first number column after the
                operation's word, else the first named)
    operation   "difference between A and B", "top k", "for each X"/"by X" (group), "how many" (a count,
                the named number column's value for the named row, or the sum of a quantity column:
                "how many items" over 数量), "total", "average", "highest"/
                "lowest" (with "which …"/"who"/"when": the row that has it; else the value), else a lookup
No plan (None) when the question names something the table does not hold (a name, a number or a date the
plan does not use; what "how many" counts in rows a key names, when that is no column, value or name of the
table: "executions" in "How many executions did Ohio have?" over a table of crime rates; a kind of row the
table does not list: "daisy" in "the daisy flowers" where a column names the rows' kinds; ``unasked.py``)
or asks nothing the plan can compute: such a question goes the usual way, or is declined when ``absent``
names what it lacks; a plan whose filters select no row is declined by the engine's empty result.
The frame's words and the columns an operation reads (target, row label, group) are in ``targets.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from kimas_desktop.answer.tables.named import (
    date_filters,
    glossed_codes,
    mentions_of,
    number_filters,
    unspaced_found,
    value_filters,
)
from kimas_desktop.answer.tables.reading import row_values, subject, tokens_kept
from kimas_desktop.answer.tables.targets import (
    COUNTED,
    FRAME,
    MAX,
    MEAN,
    MIN,
    ROW_KINDS,
    SUM,
    Reading,
    asks_row,
    coarser,
    count_at,
    counts_rows,
    grouped_by,
    has,
    is_key,
    label_column,
    measure_of,
    quantity_column,
    repeats,
    superlative,
    target_column,
    target_or_measure,
    top_k,
    totals_ranked,
    which_column,
    without,
)
from kimas_desktop.answer.tables.unasked import (
    closest,
    lacking,
    table_words,
    uncounted,
    unkinded,
    untargeted,
)
from kimas_desktop.answer.tables.wide import members, nouns, view
from kimas_desktop.tables import (
    Aggregate,
    Operation,
    TableColumn,
    TableFilter,
    TableInfo,
    TableQuery,
)
from kimas_desktop.text.gloss import written
from kimas_desktop.text.words import STOPWORDS

__all__ = ["TablePlanner"]


class TablePlanner:
    """The LLM-free planner (the paper's solver, KAG's "logical form", reduced to one table query)."""

    def plan(self, question: str, table: TableInfo, rows: Iterable[str] = ()) -> TableQuery | None:
        """The query ``question`` asks of ``table`` (``rows``: the text of the row chunks the search found),
        or None when it asks nothing this planner can compute or names what the table lacks."""
        rows = list(rows)
        r = self._read(question, table, rows)
        if r is None:
            return None
        query = _planned(question, table, r)
        return self._wide(question, table, rows, r, query) or query

    def _wide(
        self, question: str, table: TableInfo, rows: list[str], r: Reading, base: TableQuery | None
    ) -> TableQuery | None:
        """The plan over ``table`` read long (``wide.py``) when it has columns that are one measure per
        category and the question asks of them as one ("total sales", "per region", "which cause"), not
        of one of them ("the North region's sales": ``base``, over its column)."""
        wide = members(table)
        said = nouns(r.toks, r.used, table, wide, FRAME) if wide else None
        if said is None:
            return None
        named = {c.name for c in wide}
        if base is not None and (base.target in named or not any(said)):
            return None
        category, measure = (written(w, question) if w else w for w in said)
        long, melt = view(table, wide, category, measure)
        lr = self._read(question, long, rows)
        if lr is None:
            return None
        value = next(c for c in long.columns if c.name == melt.value)
        query = _planned(question, long, replace(lr, measure=value, melt=melt))
        return None if query is None else replace(query, melt=melt)

    def follow(
        self, question: str, table: TableInfo, before: TableQuery, rows: Iterable[str] = ()
    ) -> TableQuery | None:
        """A follow-up ("and in 2015?", "and for AAPL?") as the plan ``before`` with the values it names:
        each filter it reads replaces the earlier plan's filters on the same column, the operation and its
        columns stay. None when it names no filter, or names what the table lacks."""
        r = self._read(question, table, rows)
        if r is None or not r.filters or before.operation == "difference" or lacking(r, table):
            return None
        renamed = {f.column for f in r.filters}
        kept = tuple(f for f in before.filters if f.column not in renamed)
        return replace(before, filters=kept + tuple(r.filters))

    def missing(self, question: str, table: TableInfo, rows: Iterable[str] = ()) -> tuple[str, ...]:
        """What a question about ``table`` names that the table does not hold: a name when it names one of
        its columns ("Ontario" in "What is the murder rate of Ontario?"), a kind of row ("daisy" in "the
        daisy flowers"), what a count counts in rows a key names ("executions" in "How many executions
        did Ohio have?"); () when it names none."""
        rows_, columns = self.lacks(question, table, rows)
        return rows_ + columns

    def absent(self, question: str, table: TableInfo, rows: Iterable[str] = ()) -> str:
        """``missing`` in words, for the decline: "no row for Ontario", "no column for executions"; ""
        when the question names nothing the table lacks."""
        rows_, columns = self.lacks(question, table, rows)
        said = [f"no {what} for {' '.join(w)}" for what, w in (("row", rows_), ("column", columns)) if w]
        if columns:
            names = ", ".join(c.name for c in table.columns)
            near = closest(columns[0], table)
            said.append(f"it has {names}" + (f" (the closest: {near})" if near else ""))
        return "; ".join(said)

    def lacks(
        self, question: str, table: TableInfo, rows: Iterable[str] = ()
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``missing`` as the rows and the columns the table lacks (for ``absent``'s sentence in another
        language)."""
        r = self._read(question, table, rows)
        if r is None:
            return (), ()
        names = lacking(r, table) if r.mentions else []
        query = _operation(question, table, r)
        kinds = unkinded(r.toks, r.used, query, table, FRAME) if query is not None else []
        counted = uncounted(r.toks, r.used, r.filters, table, FRAME)
        if (query is None or _unnamed_measure(query, table, r)) and not counted:
            counted = untargeted(
                r.toks, r.used, table, MEAN | SUM | MAX | MIN, FRAME - MEAN - SUM - MAX - MIN
            )
        return tuple(dict.fromkeys(names + kinds)), tuple(counted)

    def _read(self, question: str, table: TableInfo, rows: Iterable[str] = ()) -> Reading | None:
        seen = row_values(rows, table.columns)
        found = unspaced_found(question, table, seen)
        kept = [f.kept for f in found]
        toks, at = tokens_kept(question, kept)
        used = set(at)
        codes = glossed_codes(question, table, toks, used, seen, kept)
        cells = [f for f in found if f.value is not None]
        values = [(TableFilter(f.column.name, "=", str(f.value)), i) for f, i in zip(cells, at, strict=True)]
        values = sorted(values + value_filters(table, toks, used, seen), key=lambda x: x[1])
        filters = [f for f, _ in values]
        mentions = mentions_of(table, toks, used)
        k = count_at(toks, mentions)
        used.update(() if k is None else (k,))  # the k of "the three cars with the highest horsepower"
        filters += date_filters(table, toks, used)
        numbered = number_filters(table, toks, used, mentions)
        if numbered is None:
            return None
        measure = measure_of(table)
        return Reading(toks, filters + numbered, used, mentions, values, tuple(codes), measure)

    def score(self, question: str, table: TableInfo, rows: Iterable[str] = ()) -> int:
        """How much of ``table`` the question names (to choose among a file's tables)."""
        r = self._read(question, table, rows)
        return 0 if r is None else 2 * len(r.filters) + len({m.column.name for m in r.mentions})


def _planned(question: str, table: TableInfo, r: Reading) -> TableQuery | None:
    """The operation's plan, unless the question names what the table lacks."""
    query = _operation(question, table, r)
    if (
        query is None
        or _unnamed_measure(query, table, r)
        or lacking(r, table)
        or uncounted(r.toks, r.used, r.filters, table, FRAME)
        or unkinded(r.toks, r.used, query, table, FRAME)
    ):
        return None
    return query


def _unnamed_measure(query: TableQuery, table: TableInfo, r: Reading) -> bool:
    """Whether the plan computes the table's one measure where the question names another ("total profit")."""
    if r.measure is None or query.target != r.measure.name or any(m.column == r.measure for m in r.mentions):
        return False
    ops = MEAN | SUM | MAX | MIN
    return bool(untargeted(r.toks, r.used, table, ops, FRAME - ops | {"per", "each", "every"}))


def _operation(question: str, table: TableInfo, r: Reading) -> TableQuery | None:
    for step in (_difference, _top, _most_rows, _group, _how_many, _aggregate, _extreme, _lookup):
        q = step(question, table, r)
        if q is not None:
            return q
    return None


def _difference(question: str, table: TableInfo, r: Reading) -> TableQuery | None:
    if has(r, {"difference"}) is None:
        return None
    same = [(f, g) for i, f in enumerate(r.filters) for g in r.filters[i + 1 :] if f.column == g.column]
    pairs = [(f, g) for f, g in same if f.op == g.op == "="]
    target = target_column(r, None)
    if not pairs or target is None:
        return None
    a, b = pairs[0]
    rest = tuple(f for f in r.filters if f not in (a, b))
    return TableQuery("difference", target.name, rest, pair=(a, b))


def _top(question: str, table: TableInfo, r: Reading) -> TableQuery | None:
    k = top_k(r)
    sup = superlative(r)
    if k < 1:
        return None
    target = target_column(without(r, which_column(table, r)), sup[1] if sup else None)
    if target is None:
        return None
    agg: Aggregate = "min" if sup is not None and sup[0] == "min" else "max"
    return TableQuery("top", target.name, tuple(r.filters), label_column(table, r, target).name, agg=agg, k=k)


def _most_rows(question: str, table: TableInfo, r: Reading) -> TableQuery | None:
    """ "Which island has the most penguins?", "which state has the fewest airports": the rows counted per
    group of the column "which" names, the largest (smallest) count first, when the word after the
    superlative (before it when it ends the question: "哪个岛的企鹅最多") names the rows (the table's subject,
    "rows", "entries"), not a number column."""
    sup = superlative(r)
    by = which_column(table, r)
    if sup is None or by is None or by.kind == "number" or sup[1] == 0:
        return None
    word = r.toks[sup[1]].text.lower()
    noun = r.toks[sup[1] + 1 if sup[1] + 1 < len(r.toks) else sup[1] - 1].key
    rows_noun = noun in subject(table) or noun in ROW_KINDS
    if word not in COUNTED or not rows_noun or target_column(without(r, by), sup[1]) is not None:
        return None
    return TableQuery("group", "", tuple(r.filters), by=by.name, agg="count", least=word != "most")


def _aggregate_word(r: Reading) -> tuple[Aggregate, int | None]:
    for words_, agg in ((MEAN, "mean"), (SUM, "sum")):
        i = has(r, words_)
        if i is not None:
            return agg, i  # type: ignore[return-value]
    sup = superlative(r)
    if sup is not None:
        return sup[0], sup[1]  # type: ignore[return-value]
    return "count", has(r, {"how", "number", "count"})


def _group(question: str, table: TableInfo, r: Reading) -> TableQuery | None:
    by = grouped_by(r, question)
    if by is None or (is_key(table, by) and r.melt is None):
        return None  # "the average deaths per month" over one row per month: the mean of all
    rest = replace(r, mentions=[m for m in r.mentions if m.column.name != by.name])
    agg, at = _aggregate_word(rest)
    target = target_or_measure(rest, at) if agg != "count" else target_column(rest, at)
    if agg != "count" and target is None:
        return None
    quantity = _quantity(r, table) if agg == "count" and target is None else None
    if quantity is not None:
        return TableQuery("group", quantity.name, tuple(r.filters), by=by.name, agg="sum")
    return TableQuery("group", target.name if target else "", tuple(r.filters), by=by.name, agg=agg)


def _quantity(r: Reading, table: TableInfo) -> TableColumn | None:
    """The column "how many" sums when the table says how many of each row's thing there are ("how many
    items" over a 数量 column: the items, not the rows); None when it counts rows ("how many kinds")."""
    i = has(r, {"how"})
    if i is None or i + 1 >= len(r.toks) or r.toks[i + 1].text.lower() != "many" or counts_rows(r, i):
        return None
    return quantity_column(table)


def _how_many(question: str, table: TableInfo, r: Reading) -> TableQuery | None:
    i = has(r, {"how"})
    if i is None or i + 1 >= len(r.toks) or r.toks[i + 1].text.lower() != "many":
        return None
    target = target_column(r, i)
    if target is not None and has(r, SUM) is not None:
        return TableQuery("sum", target.name, tuple(r.filters))
    named = any(m.start == i + 2 and m.column.kind == "number" for m in r.mentions)
    counted = r.toks[i + 2] if i + 2 < len(r.toks) and i + 2 not in r.used else None
    unnamed = counted is not None and bool(counted.key) and counted.key not in table_words(table, FRAME)
    if target is not None and r.filters and (r.values or named or unnamed):  # "how many soldiers died of"
        if coarser(table, r.filters):  # "how many deaths from wounds in 1854" over one row per month
            return TableQuery("sum", target.name, tuple(r.filters))
        return TableQuery("lookup", target.name, tuple(r.filters))  # "how many construction jobs in May 2009"
    if not r.filters and not counts_rows(r, i) and _unknown_words(r, table, i + 2):
        return None  # "how many tulip flowers": a word that names no column or value narrows the rows
    if uncounted(r.toks, r.used, r.filters, table, FRAME):
        return None
    quantity = _quantity(r, table)
    if quantity is not None:
        return TableQuery("sum", quantity.name, tuple(r.filters))  # "how many items": their 数量, summed
    return TableQuery("count", "", tuple(r.filters))


def _unknown_words(r: Reading, table: TableInfo, start: int) -> list[str]:
    """The words that narrow the noun after "how many" ("tulip" in "how many tulip flowers"): from token
    ``start`` up to the next stopword, all but the last (the rows' own noun), that no column, value or the
    file's name explains."""
    own = subject(table)
    phrase = []
    for i in range(start, len(r.toks)):
        t = r.toks[i]
        if t.text.lower() in STOPWORDS or not t.key:
            break
        phrase.append(i)
    return [
        r.toks[i].key
        for i in phrase[:-1]
        if i not in r.used and r.toks[i].key not in own and r.toks[i].key not in FRAME
    ]


def _aggregate(question: str, table: TableInfo, r: Reading) -> TableQuery | None:
    for words_, op in ((MEAN, "mean"), (SUM, "sum")):
        i = has(r, words_)
        if i is None:
            continue
        target = target_or_measure(r, i)
        if target is None:
            return None
        sup = superlative(r)
        label = label_column(table, r, target)
        if sup is not None and asks_row(r, table) and (label.kind == "text" or repeats(table, r, label)):
            least = sup[0] == "min"
            return TableQuery("group", target.name, tuple(r.filters), by=label.name, agg=op, least=least)  # type: ignore[arg-type]
        return TableQuery(op, target.name, tuple(r.filters))  # type: ignore[arg-type]
    return None


def _extreme(question: str, table: TableInfo, r: Reading) -> TableQuery | None:
    sup = superlative(r)
    if sup is None:
        return None
    target = target_or_measure(without(r, which_column(table, r)), sup[1])
    if target is None:
        return None
    if asks_row(r, table):
        label = label_column(table, r, target)
        if totals_ranked(table, r, label, target):  # "which month had the highest sales": each month's sum
            least = sup[0] == "min"
            return TableQuery("group", target.name, tuple(r.filters), by=label.name, agg="sum", least=least)
        op: Operation = "argmax" if sup[0] == "max" else "argmin"
        return TableQuery(op, target.name, tuple(r.filters), label.name)
    return TableQuery(sup[0], target.name, tuple(r.filters))  # type: ignore[arg-type]


def _lookup(question: str, table: TableInfo, r: Reading) -> TableQuery | None:
    """The target's value in the rows the filters select; a column whose header holds the operation the
    question said ("the maximum temperature" over temp_max) is that column's value in one row, and its
    max over many ("the maximum temperature in 2014")."""
    target = target_column(r, None, numeric=False)
    if target is None:
        return None
    op = next((m.op for m in r.mentions if m.column.name == target.name and m.op), "")
    if op and target.kind == "number":
        return TableQuery(op, target.name, tuple(r.filters))  # type: ignore[arg-type]
    if not r.filters:
        return None
    return TableQuery("lookup", target.name, tuple(r.filters))
