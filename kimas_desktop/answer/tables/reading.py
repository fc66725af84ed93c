"""What the table planner reads: the question as tokens (words, numbers, dates), a cell or header as the
keys it is matched by, and the values the retrieved row chunks hold ("Header: value; …" lines).

Words come from the one text layer (``kimas_desktop.text.words``: any script), numbers and dates are read
first so "1,200", "3.5", "1990-03-05" and "March 5, 1990" stay one token each. A key is a word's stem,
lower-cased, with ``_`` and a trailing "'s" cut ("Aberdeen_City" → "aberdeen", "city").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from kimas_desktop.tables import TableColumn, TableInfo
from kimas_desktop.text.gloss import gloss
from kimas_desktop.text.words import stem, words

__all__ = ["Token", "keys", "month_number", "row_values", "subject", "tokens", "tokens_kept"]

_MONTHS = {
    m: i
    for i, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for m in names
}
_NAMED = [m.capitalize() for m in _MONTHS if len(m) > 3 or m == "may"]  # "in May", "of March": every year's
_MONTH = r"(?P<{0}>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_SPECIAL = re.compile(
    r"(?P<q1>\bQ(?P<qa>[1-4])[\s/-]*(?P<ya>\d{4})\b)"  # Q2 2025, Q2-2025
    r"|(?P<q2>\b(?P<yb>\d{4})[\s-]*Q(?P<qb>[1-4])\b)"  # 2025Q2, 2025-Q2, 2025 Q2
    r"|(?P<q3>\b(?:the\s+)?(?P<qc>first|1st|second|2nd|third|3rd|fourth|4th)\s+quarter"
    r"(?:\s+(?:of|in)\s+(?P<yc>\d{4}))?\b)"  # the third quarter (of 1977)
    r"|(?P<q4>(?<=\bin )Q(?P<qd>[1-4])\b)"  # in Q3 (of every year)
    r"|(?P<iso>\b\d{4}[-/]\d{1,2}(?:[-/]\d{1,2})?\b)"
    r"|(?P<mdy>\b" + _MONTH.format("m1") + r"\s+(?P<d1>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y1>\d{4})\b)"
    r"|(?P<dmy>\b(?P<d2>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH.format("m2") + r",?\s+(?P<y2>\d{4})\b)"
    r"|(?P<my>\b" + _MONTH.format("m3") + r",?\s+(?P<y3>\d{4})\b)"
    r"|(?P<m>(?<=\b(?:in|of) )(?-i:(?P<m4>" + "|".join(sorted(_NAMED, key=len, reverse=True)) + r"))\b)"
    r"|(?P<num>(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.])-?\d+(?:\.\d+)?(?![\w]))",
    re.I,
)


@dataclass(frozen=True)
class Token:
    text: str  # as written
    key: str  # the stem, lower-cased ("" for a number or a date)
    number: float | None = None
    date: str | None = None  # ISO year, month or day ("1990", "1990-03", "1990-03-05")


def _iso(m: re.Match[str]) -> str | None:
    """The ISO text of a date the question writes: a day, a month, a quarter ("1977-Q3"), or a month or
    quarter of every year ("--05", "--Q3")."""
    if m.group("q1") or m.group("q2"):
        return f"{m.group('ya') or m.group('yb')}-Q{m.group('qa') or m.group('qb')}"
    if m.group("q3"):
        n = _ORDINALS[m.group("qc").lower()]
        return f"{m.group('yc')}-Q{n}" if m.group("yc") else f"--Q{n}"
    if m.group("q4"):
        return f"--Q{m.group('qd')}"
    if m.group("m"):
        return f"--{_MONTHS[m.group('m4').lower().rstrip('.')]:02d}"
    if m.group("iso"):
        parts = [int(p) for p in re.split(r"[-/]", m.group("iso"))]
        if not 1 <= parts[1] <= 12 or (len(parts) == 3 and not 1 <= parts[2] <= 31):
            return None
        return "-".join([f"{parts[0]:04d}", *(f"{p:02d}" for p in parts[1:])])
    for kind, mon, day, year in (
        ("mdy", "m1", "d1", "y1"),
        ("dmy", "m2", "d2", "y2"),
        ("my", "m3", "", "y3"),
    ):
        if m.group(kind):
            month = _MONTHS[m.group(mon).lower().rstrip(".")]
            d = f"-{int(m.group(day)):02d}" if day else ""
            return f"{int(m.group(year)):04d}-{month:02d}{d}"
    return None


_CJK_MONTHS = {f"{n}月": i for i, n in enumerate("一 二 三 四 五 六 七 八 九 十 十一 十二".split(), start=1)}


def month_number(text: str) -> int | None:
    """The month a header or cell names: "JAN", "January", "Sept.", "1月", "一月" → 1 … 12; None."""
    low = text.strip().lower().rstrip(".")
    if low in _MONTHS:
        return _MONTHS[low]
    if low.endswith("月") and low[:-1].isdigit() and 1 <= int(low[:-1]) <= 12:
        return int(low[:-1])
    return _CJK_MONTHS.get(low)


def _key(word: str) -> str:
    """A word's stem without a final "e", so a plural meets its singular ("males"/"male" stem to "mal"/
    "male": both "mal")."""
    k = stem(word)
    return k[:-1] if len(k) > 3 and k.endswith("e") and k.isalpha() else k


def _word_tokens(text: str) -> list[Token]:
    out = []
    for w in words(text):
        for part in re.split(r"[_\-]+", w):
            if part:
                out.append(Token(part, _key(part)))
    return out


def tokens_kept(text: str, kept: Sequence[tuple[int, int, bool]]) -> tuple[list[Token], list[int]]:
    """``tokens`` with each character span of ``kept`` (in order, not overlapping) read apart from the text
    around it: whole, as one token whose key is its text lower-cased (a cell found inside an unspaced
    question: "车库" in "车库里的数量", which the segmenter and the glossary read as "cars 库里"), or, not
    whole, as ``tokens`` reads it alone (a header: "物品" in "多少件物品", segmented "件物品"). Also the
    index of each whole span's token."""
    out: list[Token] = []
    at: list[int] = []
    pos = 0
    for start, end, whole in kept:
        out += tokens(text[pos:start])
        if whole:
            at.append(len(out))
            out.append(Token(text[start:end], text[start:end].lower()))
        else:
            out += tokens(text[start:end])
        pos = end
    return out + tokens(text[pos:]), at


def tokens(text: str) -> list[Token]:
    """The question's tokens in order: dates and numbers whole, the rest as words (Chinese read through
    ``text.gloss``)."""
    text = gloss(text)
    out: list[Token] = []
    pos = 0
    for m in _SPECIAL.finditer(text):
        out += _word_tokens(text[pos : m.start()])
        if m.group("num"):
            out.append(Token(m.group(), "", number=float(m.group().replace(",", ""))))
        else:
            iso = _iso(m)
            out.append(Token(m.group(), "", date=iso) if iso else Token(m.group(), m.group().lower()))
        pos = m.end()
    return out + _word_tokens(text[pos:])


def keys(text: str) -> tuple[str, ...]:
    """The keys a header or a cell is matched by (numbers as written, without separators)."""
    return tuple(t.key or t.text.replace(",", "").lower() for t in tokens(text))


def subject(table: TableInfo) -> set[str]:
    """The keys of what the table is about, as its file's name and its sheet's say ("seattle-weather.csv"
    → seattl, weather): words a question may repeat that describe the table and never filter it."""
    return set(keys(PurePath(table.source).stem.replace(".", " "))) | set(keys(table.sheet))


def row_values(texts: Iterable[str], columns: Sequence[TableColumn]) -> dict[str, set[str]]:
    """The values each column holds in the row chunks' text ("Header: value; Header: value" lines)."""
    names = sorted((c.name for c in columns), key=len, reverse=True)
    if not names:
        return {}
    field = re.compile(r"(?:^|;\s*|\n)(" + "|".join(re.escape(n) for n in names) + r"):\s*")
    out: dict[str, set[str]] = {}
    for text in texts:
        for line in text.splitlines():
            found = list(field.finditer(line))
            ends: list[re.Match[str] | None] = [*found[1:], None]
            for a, b in zip(found, ends[: len(found)], strict=True):
                value = line[a.end() : b.start() if b is not None else len(line)].strip().rstrip(";")
                if value:
                    out.setdefault(a.group(1), set()).add(value)
    return out
