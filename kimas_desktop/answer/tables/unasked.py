"""What a table question asks that its table cannot honour, for the planner (``planner.py``): the thing a
count counts in rows a key names, when that is no column, value or name of the table ("executions" in "How
many executions did Ohio have?" over a table of states' crime rates: counting Ohio's row answers 1), and
a kind of row the table does not list ("daisy" in "the daisy flowers", where a column names the rows'
kinds: averaging every flower is not what was asked), and a place written in Chinese that no cell of a
table written in Chinese holds ("阁楼" in "阁楼里的数量总共是多少？": summing every room is not what was
asked; the English question's "Attic" is a name by its capital). Words are matched by their stems (the one
text layer: "states" is "state"), phrases run between stopwords, numbers and dates in any script.
"""

from __future__ import annotations

from collections.abc import Sequence

from kimas_desktop.answer.tables.reading import Token, keys, subject
from kimas_desktop.answer.tables.targets import FRAME, Reading, top_k
from kimas_desktop.tables import TableFilter, TableInfo, TableQuery
from kimas_desktop.text.gloss_names import NAMES
from kimas_desktop.text.scripts import has_unspaced
from kimas_desktop.text.words import STOPWORDS, is_name

__all__ = [
    "closest",
    "initialled",
    "lacking",
    "phrases",
    "table_words",
    "uncounted",
    "unkinded",
    "unplaced",
    "untargeted",
]

# Where a Chinese question writes a place: "<place>里", "<place>的", "在<place>", "从<place>".
_PLACE_AFTER = {"里", "中", "内", "上", "的", "那里", "这里", "地区"}
_PLACE_BEFORE = {"在", "从", "来自", "去", "到"}


def phrases(toks: Sequence[Token]) -> list[list[int]]:
    """The runs of words between stopwords, numbers and dates ("the daisy flowers" → [daisy, flowers])."""
    runs: list[list[int]] = [[]]
    for i, t in enumerate(toks):
        if t.key and t.number is None and t.date is None and t.text.lower() not in STOPWORDS:
            runs[-1].append(i)
        elif runs[-1]:
            runs.append([])
    return [run for run in runs if run]


def table_words(table: TableInfo, frame: set[str]) -> set[str]:
    """The keys of the table's file name, sheet, headers and sampled values, and the question's frame."""
    out = subject(table) | frame
    for c in table.columns:
        out.update(keys(c.name))
        if c.kind == "text":
            out.update(k for v in c.samples for k in keys(v))
    return out


def _is_key(table: TableInfo, column: str) -> bool:
    """Whether ``column`` is a text column whose values are known to be (nearly) all distinct: one row
    each. Known only when its samples (the first 50 distinct values) cover nearly every row: in a longer
    table 50 distinct names may still repeat ("How many orders did Acme place?" over 1,000 orders, where
    counting Acme's rows is the answer), so the rule stays off there."""
    for c in table.columns:
        if c.name == column and c.kind == "text":
            return len(c.samples) >= table.rows * 0.9
    return False


def uncounted(
    toks: Sequence[Token], used: set[int], filters: Sequence[TableFilter], table: TableInfo, frame: set[str]
) -> list[str]:
    """What "how many X" counts, when the rows are named by a key (one row each: counting them would
    answer 1) and a word of X's phrase is no column, value or word of the table's name: ["executions"]
    for "How many executions did Ohio have?" over a table of states' crime rates (the first such word;
    the phrase runs to the next stopword, so it may hold a verb: "hurricanes hit")."""
    low = [t.text.lower() for t in toks]
    at = [i for i in range(len(toks) - 2) if low[i : i + 2] == ["how", "many"] and i not in used]
    if not at or not any(f.op == "=" and _is_key(table, f.column) for f in filters):
        return []
    run = next((p for p in phrases(toks) if p[0] == at[0] + 2), [])
    known = table_words(table, frame)
    return [toks[j].text for j in run if j not in used and toks[j].key not in known][:1]


def unkinded(
    toks: Sequence[Token], used: set[int], query: TableQuery, table: TableInfo, frame: set[str]
) -> list[str]:
    """Words that pick a kind of row the table does not list: when a text column names the rows' kinds
    (a few values, each on many rows) and the plan does not filter or group on it, the words before a
    phrase's noun ("daisy" in "the daisy flowers") that are no column, value or word of the table's name.
    A phrase holding a column or a value ("the murder crime rate", "the setosa flowers") is left alone."""
    planned = {f.column for f in query.filters} | {query.by}
    kinds = [
        c
        for c in table.columns
        if c.kind == "text" and 2 <= len(c.samples) < 50 and 2 * len(c.samples) <= table.rows
    ]
    if not kinds or any(c.name in planned for c in kinds):
        return []
    known = table_words(table, frame)
    headers = {k for c in table.columns for k in keys(c.name)}
    out = []
    for run in phrases(toks):
        if used & set(run):
            continue
        if len(run) == 1 and query.operation == "lookup" and toks[run[0]].key not in known:
            out.append(toks[run[0]].text)  # "the net generation from solar": one kind, unnamed
        if len(run) < 2 or toks[run[-1]].key in headers:
            continue
        out += [toks[i].text for i in run[:-1] if toks[i].key not in known]
    return out


def untargeted(
    toks: Sequence[Token], used: set[int], table: TableInfo, ops: set[str], frame: set[str]
) -> list[str]:
    """What an operation ("total", "average", "highest") computes over when that is no column, value or
    word of the table's name: ["snowfall"] for "What was the total snowfall in Seattle in 2014?" over
    a table of precipitation and temperatures. The phrase right after the operation's word."""
    at = next((i for i, t in enumerate(toks) if t.text.lower() in ops and i not in used), None)
    if at is None:
        return []
    run = next((p for p in phrases(toks) if at + 1 in p or (p[0] == at and len(p) > 1)), [])
    known = table_words(table, frame)
    return [toks[j].text for j in run if j != at and j not in used and toks[j].key not in known][:1]


def unplaced(toks: Sequence[Token], used: set[int], table: TableInfo, frame: set[str]) -> list[str]:
    """Places a question writes in a script without spaces where a table's cells would be, that the table
    does not hold: a word of two or more characters, before "里"/"的"/"中" or after "在"/"从", that no
    cell, header, name of the table or glossary entry explains; only over a table whose text cells are in
    such a script ("阁楼" in "阁楼里的数量总共是多少？" over rooms 车库, 客厅, 卧室; "西雅图" in "西雅图的
    降水量" over an English table is its subject, which the table cannot say in Chinese)."""
    if not any(c.kind == "text" and any(has_unspaced(v) for v in c.samples) for c in table.columns):
        return []
    known = table_words(table, frame)
    out = []
    for i, t in enumerate(toks):
        if i in used or len(t.text) < 2 or not has_unspaced(t.text) or t.text in STOPWORDS:
            continue
        after = toks[i + 1].text if i + 1 < len(toks) else ""
        before = toks[i - 1].text if i > 0 else ""
        if t.key not in known and (after in _PLACE_AFTER or before in _PLACE_BEFORE):
            out.append(t.text)
    return out


def closest(word: str, table: TableInfo) -> str:
    """The column nearest to ``word``: one whose values or name begin as the word does (at least three
    letters: "snowfall" → the weather column holding "snow"), else the nearest name by its letters; ""."""
    import difflib

    low = word.lower()
    for c in table.columns:
        named = [c.name] + (list(c.samples) if c.kind == "text" else [])
        if any(len(k) >= 3 and low.startswith(k) for v in named for k in keys(v)):
            return c.name
    near = difflib.get_close_matches(low, [c.name.lower() for c in table.columns], n=1, cutoff=0.6)
    return next((c.name for c in table.columns if near and c.name.lower() == near[0]), "")


_PLACES = frozenset(NAMES.values())  # countries and regions, a name wherever the question puts them


def lacking(r: Reading, table: TableInfo) -> list[str]:
    """What the question names that the plan does not use: names (capitalised words; places written in
    Chinese over a table written in Chinese), numbers and dates outside every filter, column and the
    file's own name."""
    own = subject(table)
    k = top_k(r)
    out = list(r.codes) + unplaced(r.toks, r.used, table, FRAME)
    subject_name = initialled(r, own)
    for i, t in enumerate(r.toks):
        if i in r.used or t.key in own or t.key in FRAME or i in subject_name:
            continue
        counted = t.date is not None or (t.number is not None and not (k and t.number == k))
        named = is_name(t.text, i) or t.text in _PLACES  # "Nauru" first in "Nauru has how many …"
        if counted or (t.key and named and t.key not in STOPWORDS):
            out.append(t.text)
    return out


def initialled(r: Reading, own: set[str]) -> set[int]:
    """The tokens of a name whose initials are a word of the file's name ("San Francisco" over
    sf-temps.csv, "New York City" over nyc-taxis.csv): the table's subject, no filter."""
    out: set[int] = set()
    i = 0
    while i < len(r.toks):
        j = i
        while j < len(r.toks) and r.toks[j].text[:1].isupper() and r.toks[j].text.isalpha():
            j += 1
        if j - i >= 2 and "".join(t.text[0] for t in r.toks[i:j]).lower() in own:
            out.update(range(i, j))
        i = max(j, i + 1)
    return out
