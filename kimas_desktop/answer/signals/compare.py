"""Computed answers for comparisons (KAG's solver computes what needs computing instead of asking the model).

A question that compares two named things by a date or a number ("Which was founded first, the Rhine
Company or the Elbe Works?", "Which is longer, the Rhine or the Elbe?", "How many years passed between the
founding of A and of B?") is answered in code: for each thing, the sentence of the evidence that names it
and carries a year (or a number) is found, the values are compared, and the answer states both values
with their sources. A small model asked to compare two years gets it wrong about as often as not; this
cannot, and the values it shows can be checked.

``parse`` reads the question (None: not a comparison this module knows); ``compute`` finds the values in
the evidence (None: a value is missing, and the question goes the usual way).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from kimas_desktop.text.sentences import chunk_sentences
from kimas_desktop.text.words import content_words, stem, stems
from kimas_desktop.types import Hit

__all__ = ["Comparison", "Computed", "Value", "compute", "parse"]

Order = Literal["earliest", "latest", "largest", "smallest", "difference"]

_EARLY = r"first|earlier|earliest|sooner|older|oldest|before"
_LATE = r"last|later|latest|more recent|most recent|newer|newest|younger|youngest"
_BIG = r"bigger|biggest|larger|largest|longer|longest|higher|highest|taller|tallest|greater|heavier|more|most"
_SMALL = r"smaller|smallest|shorter|shortest|lower|lowest|less|least|fewer|lighter"
# The two things: "..., X or Y?" / "... X or Y first?" / "between X and Y".
_PAIR_OR = re.compile(
    r"(?:^|,|:|\b(?:was|is|were|are|came|come|did|does|has|had)\b)\s*(?:the\s+)?(?P<a>[^,:?]+?)\s+or\s+(?:the\s+)?(?P<b>[^,:?]+?)\s*(?:\b(?:"
    + _EARLY
    + "|"
    + _LATE
    + r")\b[^?]*)?\?*$",
    re.I,
)
_PAIR_BETWEEN = re.compile(r"\bbetween\s+(?:the\s+)?(?P<a>.+?)\s+and\s+(?:the\s+)?(?P<b>[^?]+?)\s*\?*$", re.I)
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?:\s*(%|[a-zA-Z]{1,12}))?")
# Words of a question that are about the comparison, not about the things compared.
_FRAME = {
    "which",
    "what",
    "who",
    "how",
    "many",
    "much",
    "year",
    "years",
    "passed",
    "between",
    "after",
    "first",
    "earlier",
    "earliest",
    "sooner",
    "older",
    "oldest",
    "last",
    "later",
    "latest",
    "recent",
    "newer",
    "newest",
    "younger",
    "youngest",
    "bigger",
    "biggest",
    "larger",
    "largest",
    "longer",
    "longest",
    "higher",
    "highest",
    "taller",
    "tallest",
    "greater",
    "heavier",
    "more",
    "most",
    "smaller",
    "smallest",
    "shorter",
    "shortest",
    "lower",
    "lowest",
    "less",
    "least",
    "fewer",
    "lighter",
    "one",
}


@dataclass(frozen=True)
class Comparison:
    order: Order
    by: Literal["year", "number"]
    items: tuple[str, str]  # the two things, as the question names them
    attribute: tuple[str, ...]  # the question's other content words ("founded", "length"): stems


@dataclass(frozen=True)
class Value:
    item: str
    value: float
    text: str  # as the source writes it ("1851", "1,233 km")
    n: int  # the source's number in the evidence (1-based)
    start: int  # the sentence's offsets in the source's chunk text
    end: int


@dataclass(frozen=True)
class Computed:
    comparison: Comparison
    values: tuple[Value, Value]
    text: str  # the answer


def _order(question: str) -> tuple[Order, Literal["year", "number"]] | None:
    q = question.lower()
    if re.search(r"\bhow many years\b", q):
        return "difference", "year"
    if re.search(rf"\b(?:{_EARLY})\b", q):
        return "earliest", "year"
    if re.search(rf"\b(?:{_LATE})\b", q):
        return "latest", "year"
    if re.search(rf"\b(?:{_BIG})\b", q):
        return "largest", "number"
    if re.search(rf"\b(?:{_SMALL})\b", q):
        return "smallest", "number"
    return None


def _clean(item: str) -> tuple[str, list[str]]:
    """The thing's name, and words around it that belong to the question's attribute ("founded", "the
    founding of"): a leading auxiliary, a leading lower-case "X of", trailing lower-case words after a
    name."""
    words = re.sub(
        r"^(?:was|is|were|are|did|does|has|had)\s+", "", item.strip(" .,;:'\""), flags=re.I
    ).split()
    extra: list[str] = []
    while words and words[0].lower() in ("the", "a", "an"):
        words = words[1:]
    if "of" in words[:3] and all(w.islower() for w in words[: words.index("of")]):
        cut = words.index("of")
        extra += words[:cut]
        words = [w for w in words[cut + 1 :] if w.lower() not in ("the",)] if len(words) > cut + 1 else words
    if any(w[:1].isupper() for w in words):
        while words and words[-1].islower():
            extra.append(words.pop())
    return " ".join(words), extra


def parse(question: str) -> Comparison | None:
    """The comparison ``question`` asks for, or None."""
    order = _order(question)
    if order is None:
        return None
    text = question.strip()
    m = _PAIR_BETWEEN.search(text) if order[0] == "difference" else None
    m = m or _PAIR_OR.search(text) or _PAIR_BETWEEN.search(text)
    if m is None:
        return None
    (a, extra_a), (b, extra_b) = _clean(m.group("a")), _clean(m.group("b"))
    if not content_words(a) or not content_words(b) or a.lower() == b.lower():
        return None
    # "Which was founded first, A or B": the attribute is what the question says beside the two things.
    rest = " ".join([text[: m.start("a")], *extra_a, *extra_b, text[m.end("b") :]])
    named = stems(a) | stems(b)
    attribute = tuple(s for s in (stem(w) for w in content_words(rest) if w not in _FRAME) if s not in named)
    return Comparison(order[0], order[1], (a, b), attribute)


def _numbers(sentence: str, by: str) -> list[tuple[float, str, int]]:
    """(value, as written, offset) of each year or number in ``sentence``."""
    if by == "year":
        return [(float(m.group()), m.group(), m.start()) for m in _YEAR.finditer(sentence)]
    out = []
    for m in _NUMBER.finditer(sentence):
        if _YEAR.fullmatch(m.group(1)) and not m.group(3):
            continue  # a bare year is a date, not a quantity
        value = float(m.group(1).replace(",", "") + ("." + m.group(2) if m.group(2) else ""))
        out.append((value, m.group().strip(), m.start()))
    return out


def _find(item: str, c: Comparison, hits: Sequence[Hit]) -> Value | None:
    """The value of ``item``: from the sentence of the evidence that names it (all its content words)
    and carries a value, preferring the one that says most of the question's attribute and comes from a
    better-ranked source; within it, the value nearest to the item's name."""
    need = stems(item)
    best: tuple[tuple[int, float], Value] | None = None
    for n, hit in enumerate(hits, start=1):
        for s in chunk_sentences(hit.chunk):
            said = stems(s.text)
            if not need <= said:
                continue
            found = _numbers(s.text, c.by)
            if not found:
                continue
            where = s.text.lower().find(item.lower().split()[0])
            value, written, _ = min(found, key=lambda f: abs(f[2] - where) if where >= 0 else f[2])
            rank = (sum(1 for a in c.attribute if a in said), -n)
            if best is None or rank > best[0]:
                best = (rank, Value(item, value, written, n, s.start, s.end))
    return None if best is None else best[1]


def _answer(c: Comparison, a: Value, b: Value) -> str:
    both = f"{a.item} {a.text} [{a.n}], {b.item} {b.text} [{b.n}]."
    if c.order == "difference":
        return f"{abs(a.value - b.value):g} years: {both}"
    if a.value == b.value:
        return f"Neither: both are {a.text}: {both}"
    low = c.order in ("earliest", "smallest")
    pick = a if (a.value < b.value) == low else b
    says = {
        "earliest": "came first",
        "latest": "came later",
        "largest": "is the larger",
        "smallest": "is the smaller",
    }[c.order]
    return f"{pick.item} {says}: {both}"


def compute(question: str, hits: Sequence[Hit]) -> Computed | None:
    """The comparison's answer from the evidence ``hits`` (numbered [1]… in this order), or None."""
    c = parse(question)
    if c is None:
        return None
    a, b = _find(c.items[0], c, hits), _find(c.items[1], c, hits)
    if a is None or b is None:
        return None
    return Computed(c, (a, b), _answer(c, a, b))
