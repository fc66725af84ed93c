"""Cells and their kinds: a column is a number, a date or text, told from every one of its values.

A cell comes from a CSV as text, from a workbook typed (float, date, datetime, bool, text). A column is a
``number`` when every value that is not missing reads as one ("1,234.5", "-3", "(12)", "$5", "7%"), a
``date`` when every value reads as a date ("2024-03-01", "01/03/2024", "1 Mar 2024", "2024年3月1日", a
workbook date), or a month or a quarter written as text ("2025-05", "May 2025", "Apr-1854", "2025年5月",
"Q2 2025", "2025Q2", "2025-Q2": its first day, the column's ``grain`` saying what one value covers), else
``text``. Missing values ("", "n/a", "-", "#DIV/0!", ...) are null in any kind. A
code written with a leading zero ("0042") or a number of more than 15 digits (an id) is text: a float
would change it. Slashed dates are month first unless some value's first part is over 12 (then day first).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from kimas_desktop.tables import ColumnKind, Grain, TableColumn

__all__ = ["Cell", "ColumnTally", "cell_text", "parse_date", "parse_number", "parse_period"]

Cell = str | float | int | bool | dt.date | dt.datetime | dt.time | dt.timedelta | None

MAX_SAMPLES = 50
MISSING = {
    "", "na", "n/a", "nan", "null", "none", "-", "--", "—", "–", "?", "#n/a", "#na", "#null!", "#div/0!",
    "#value!", "#ref!", "#name?", "#num!",
}  # fmt: skip
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_GROUPED = re.compile(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_COMMA_DECIMAL = re.compile(r"[+-]?\d{1,3}(?:\.\d{3})+(?:,\d+)?|[+-]?\d+,\d+")
_CURRENCY = "$€£¥₹"
_ISO = re.compile(
    r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})"
    r"(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(?:Z|[+-]\d{2}:?\d{2})?"
)
_SLASHED = re.compile(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?")
_DAY_MONTH = re.compile(r"(\d{1,2})[ -]([A-Za-z]{3,9})\.?[ -],?\s*(\d{4})")
_MONTH_DAY = re.compile(r"([A-Za-z]{3,9})\.? (\d{1,2}),? (\d{4})")
_CJK = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
_YEAR_MONTH = re.compile(r"(\d{4})[-/.](\d{1,2})")
_MONTH_YEAR = re.compile(r"([A-Za-z]{3,9})\.?[ -/,]+(\d{4})")
_CJK_MONTH = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月")
_QUARTERS = (
    re.compile(r"[Qq]([1-4])[ -/]*(?P<y>\d{4})"),  # Q2 2025, Q2-2025, Q2/2025
    re.compile(r"(?P<y>\d{4})[ -/]*[Qq]([1-4])"),  # 2025Q2, 2025-Q2, 2025 Q2
    re.compile(r"(?P<y>\d{4})\s*年?\s*第?\s*([1-4一二三四])\s*季度?"),  # 2025年第2季度, 2025年Q2 is above
)
_MONTH_NAMES = (
    "jan january", "feb february", "mar march", "apr april", "may", "jun june", "jul july", "aug august",
    "sep sept september", "oct october", "nov november", "dec december",
)  # fmt: skip
_MONTHS = {name: i + 1 for i, names in enumerate(_MONTH_NAMES) for name in names.split()}


def missing(text: str) -> bool:
    return text.strip().lower() in MISSING


def parse_number(text: str, *, decimal_comma: bool = False) -> float | None:
    """The number ``text`` writes, or None."""
    s = text.strip().replace("\u00a0", "").replace(" ", "")
    negative = s.startswith("(") and s.endswith(")")
    if negative:
        s = s[1:-1]
    sign = s[:1] if s[:1] in "+-" else ""
    s = s[len(sign) :].lstrip(_CURRENCY).removesuffix("%")
    if decimal_comma and _COMMA_DECIMAL.fullmatch(s):
        s = s.replace(".", "").replace(",", ".")
    elif _GROUPED.fullmatch(s):
        s = s.replace(",", "")
    if not _NUMBER.fullmatch(s) or (len(s) > 1 and s[0] == "0" and s[1].isdigit()):
        return None
    if sum(c.isdigit() for c in s) > 15 and "." not in s and "e" not in s.lower():
        return None
    value = float(sign + s)
    return -value if negative else value


def _when(y: int, m: int, d: int, hh: str | None, mm: str | None, ss: str | None) -> dt.date | None:
    try:
        if hh is None:
            return dt.date(y, m, d)
        return dt.datetime(y, m, d, int(hh), int(mm or 0), int(ss or 0))
    except ValueError:
        return None


def parse_date(text: str, *, day_first: bool = False) -> dt.date | None:
    """The date (or date and time) ``text`` writes, or None."""
    s = text.strip()
    if m := _ISO.fullmatch(s):
        return _when(int(m[1]), int(m[2]), int(m[3]), m[4], m[5], m[6])
    if m := _SLASHED.fullmatch(s):
        a, b = int(m[1]), int(m[2])
        day, month = (a, b) if day_first else (b, a)
        return _when(int(m[3]), month, day, m[4], m[5], m[6])
    if m := _CJK.fullmatch(s):
        return _when(int(m[1]), int(m[2]), int(m[3]), None, None, None)
    if m := _DAY_MONTH.fullmatch(s):
        named = _MONTHS.get(m[2].lower())
        return None if named is None else _when(int(m[3]), named, int(m[1]), None, None, None)
    if m := _MONTH_DAY.fullmatch(s):
        named = _MONTHS.get(m[1].lower())
        return None if named is None else _when(int(m[3]), named, int(m[2]), None, None, None)
    return None


def parse_period(text: str) -> tuple[dt.date, Grain] | None:
    """The month or quarter ``text`` writes as its first day and its grain ("2025-05" → 2025-05-01,
    "month"; "Q2 2025" → 2025-04-01, "quarter"), or None."""
    s = text.strip()
    month: int | None = None
    year = 0
    if m := _YEAR_MONTH.fullmatch(s) or _CJK_MONTH.fullmatch(s):
        year, month = int(m[1]), int(m[2])
    elif m := _MONTH_YEAR.fullmatch(s):
        year, month = int(m[2]), _MONTHS.get(m[1].lower())
    if month is not None:
        return (dt.date(year, month, 1), "month") if 1 <= month <= 12 and year >= 1000 else None
    for pattern in _QUARTERS:
        if m := pattern.fullmatch(s):
            q = next(g for i, g in enumerate(m.groups()) if g and i != pattern.groupindex["y"] - 1)
            n = "一二三四".find(q) + 1 or int(q)
            return dt.date(int(m["y"]), 3 * n - 2, 1), "quarter"
    return None


def cell_text(cell: Cell) -> str:
    """A cell as a person reads it: 3.0 → "3", a date → "2024-03-01", True → "TRUE"."""
    if cell is None:
        return ""
    if isinstance(cell, bool):
        return "TRUE" if cell else "FALSE"
    if isinstance(cell, float):
        if math.isfinite(cell) and cell.is_integer() and abs(cell) < 1e15:
            return str(int(cell))
        return f"{cell:.15g}"
    if isinstance(cell, dt.datetime):
        if cell.time() == dt.time(0):
            return cell.date().isoformat()
        return cell.isoformat(sep=" ", timespec="seconds")
    if isinstance(cell, dt.date | dt.time):
        return cell.isoformat()
    return " ".join(str(cell).split())


class ColumnTally:
    """What one column's values allow (``add`` each), then its ``TableColumn`` and its Arrow converter."""

    def __init__(self, *, decimal_comma: bool = False) -> None:
        self._decimal_comma = decimal_comma
        self.number = True
        self.date = True
        self.has_time = False
        self._day_first_seen = False  # a slashed date whose first part is over 12
        self._month_first_seen = False  # one whose second part is
        self._grains: set[Grain] = set()  # "month", "quarter": the text periods seen ("" for days)
        self.values = 0  # cells not missing
        self._samples: dict[str, None] = {}

    def add(self, cell: Cell) -> None:
        text = cell_text(cell)
        if missing(text):
            return
        self.values += 1
        if len(self._samples) < MAX_SAMPLES:
            self._samples.setdefault(text, None)
        if self.number and not (isinstance(cell, int | float) and not isinstance(cell, bool)):
            self.number = (
                isinstance(cell, str) and parse_number(cell, decimal_comma=self._decimal_comma) is not None
            )
        if self.date:
            self._add_date(cell)

    def _add_date(self, cell: Cell) -> None:
        if isinstance(cell, dt.datetime):
            self.has_time = self.has_time or cell.time() != dt.time(0)
            return
        if isinstance(cell, dt.date):
            return
        if not isinstance(cell, str):
            self.date = False
            return
        day_first = False
        period = parse_period(cell)
        if period is not None:
            self._grains.add(period[1])
            return
        self._grains.add("")
        if m := _SLASHED.fullmatch(cell.strip()):
            day_first = int(m[1]) > 12
            self._day_first_seen |= day_first
            self._month_first_seen |= int(m[2]) > 12
        when = parse_date(cell, day_first=day_first)
        if when is None or (self._day_first_seen and self._month_first_seen):
            self.date = False
            return
        self.has_time = self.has_time or (isinstance(when, dt.datetime) and when.time() != dt.time(0))

    @property
    def day_first(self) -> bool:
        return self._day_first_seen

    @property
    def grain(self) -> Grain:
        """What one value of a date column covers: a day ("", also when days and months mix), a month, a
        quarter (a column of quarters and months: the months)."""
        if "" in self._grains or not self._grains or self.kind != "date":
            return ""
        return "month" if "month" in self._grains else "quarter"

    @property
    def kind(self) -> ColumnKind:
        if self.values and self.number:
            return "number"
        if self.values and self.date:
            return "date"
        return "text"

    def column(self, name: str) -> TableColumn:
        return TableColumn(name, self.kind, tuple(self._samples), self.grain)

    def arrow_type(self) -> pa.DataType:
        kind = self.kind
        if kind == "number":
            return pa.float64()
        if kind == "date":
            return pa.timestamp("us") if self.has_time else pa.date32()
        return pa.string()

    def converter(self) -> Callable[[Cell], Any]:
        """Cell → the value stored in this column's Arrow type (None when missing)."""
        kind = self.kind
        if kind == "number":
            return self._number
        if kind == "date":
            return self._datetime if self.has_time else self._date
        return _text

    def _number(self, cell: Cell) -> float | None:
        if isinstance(cell, int | float) and not isinstance(cell, bool):
            return float(cell)
        if isinstance(cell, str) and not missing(cell):
            return parse_number(cell, decimal_comma=self._decimal_comma)
        return None

    def _when(self, cell: Cell) -> dt.date | None:
        if isinstance(cell, dt.date):
            return cell
        if isinstance(cell, str) and not missing(cell):
            period = parse_period(cell)
            return period[0] if period is not None else parse_date(cell, day_first=self.day_first)
        return None

    def _date(self, cell: Cell) -> dt.date | None:
        when = self._when(cell)
        return when.date() if isinstance(when, dt.datetime) else when

    def _datetime(self, cell: Cell) -> dt.datetime | None:
        when = self._when(cell)
        if when is None or isinstance(when, dt.datetime):
            return when
        return dt.datetime(when.year, when.month, when.day)


def _text(cell: Cell) -> str | None:
    return cell_text(cell) or None
