"""Sources that disagree on the asked value (issue 70): "kept for 7 days only" in a note, "retained for 90
days" in an audit. The quote takes one sentence; when another file states the same kind of value,
differently, in a sentence that answers nearly as well, the answer shows both with their sources rather
than pick one (a planted note must not silence the document it contradicts).

A rival is a scored sentence that
- comes from another file than the best sentence;
- scores at least ``RATIO`` of the best (a rival says it in other words: "request a refund up to 30 days"
  beside "ask for a refund within 14 days" overlaps the question less);
- reads as close to the question as the best does (``CLOSE`` of its cosine: a sentence about another
  event of the same subject, "moved its headquarters in 2005" beside "founded in 1998", reads further);
- holds a word of the question that the best holds too, other than the value's unit (its subject:
  "backups" or "refund", not only "days");
- states a value of the same unit as the best sentence (a number and the word after it: "7 days" and
  "90 days"; a year alone counts as a year) but a different number, and neither sentence holds the other's.

Asked for numbers only (how many, how long, when: ``question_words.answer_kind``): a name that differs is
as often a second true answer as a contradiction.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kimas_desktop.answer.signals.quote import ScoredSentence, answer_type
from kimas_desktop.text.words import STOPWORDS, stem, stems

__all__ = ["rival", "values"]

RATIO = 0.55
CLOSE = 0.9
# a number (1,000 / 7.5 / 90) and the word or CJK character after it ("90 days", "90天", "7-day")
_VALUE = re.compile(r"(?<![A-Za-z\d.,])(\d[\d,]*(?:\.\d+)?)(?:\s*-?\s*)([^\W\d_]+)?")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def values(text: str) -> set[tuple[str, str]]:
    """The (number, unit) pairs of ``text``: the unit is the stem of the word after the number, a CJK
    word's first character ("" for a stop word or none); a number that may be a year also counts as one."""
    out = set()
    for m in _VALUE.finditer(text):
        number, word = m.group(1).replace(",", ""), m.group(2) or ""
        if word and _CJK.match(word):
            out.add((number, word[0]))
        elif word and word.lower() not in STOPWORDS:
            out.add((number, stem(word)))
        if len(number) == 4 and number.isdigit() and 1000 <= int(number) <= 2200:
            out.add((number, "year"))
    return out


def _differ(a: set[tuple[str, str]], b: set[tuple[str, str]]) -> bool:
    """Units both state, and for none of them a number in common ("in 2019, 40 days" and "in 2021, 40
    days" agree on the days)."""
    shared = {u for _, u in a} & {u for _, u in b}
    if not shared:
        return False
    return all(not {n for n, u in a if u == unit} & {n for n, u in b if u == unit} for unit in shared)


def rival(question: str, scored: Sequence[ScoredSentence]) -> ScoredSentence | None:
    """The best sentence of another file that states the asked value otherwise (see the module), or None."""
    if not scored or answer_type(question) != "number":
        return None
    best = scored[0]
    if best.instruction or best.score <= 0:
        return None
    stated = values(best.sentence.text)
    subject = stems(question) & stems(best.sentence.text) - {unit for _, unit in stated}
    if not stated or not subject:
        return None
    for s in scored[1:]:
        if s.score < RATIO * best.score:
            return None
        other_file = s.chunk.source != best.chunk.source
        shares = bool(subject & stems(s.sentence.text)) and s.cosine >= CLOSE * best.cosine
        if other_file and not s.instruction and shares and _differ(stated, values(s.sentence.text)):
            return s
    return None
