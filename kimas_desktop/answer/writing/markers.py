"""Inline citation markers: the ``[n]`` after each answer sentence that says which source backs it.

They come from the support check (``SentenceSupport.source``: the best supporting source of a sentence),
not from the model: a sentence gets a marker only when it is supported and its source is one of the
answer's citations, so a marker always points at an entry of the source list. A marker the model already
wrote after the sentence is not repeated. Renderers (UI, ``kimas ask``) draw the markers; the answer text
is stored as the model wrote it.

The model cites by the evidence's numbers, so a first citation was often [2] or [3] (issue 69: the top
passage backed no sentence, or the quote came from the second). A renderer shows each source by the order
a reader meets it (``shown_numbers``) and writes the answer's own markers in those numbers (``renumber``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from kimas_desktop.types import SentenceSupport

__all__ = ["Marker", "insert_markers", "place_markers", "renumber", "shown_numbers"]

_WRITTEN = re.compile(r"\s*\[(\d+(?:\s*[,;]\s*\d+)*)\]")  # "[1]", " [1, 3]" right after a sentence
_NUMBER = re.compile(r"\d+")


@dataclass(frozen=True)
class Marker:
    """``[source]`` goes at ``answer[at]``: right after a sentence's last character."""

    at: int
    source: int


def place_markers(
    answer: str, support: Sequence[SentenceSupport], cited: Collection[int]
) -> tuple[Marker, ...]:
    """One marker after each supported sentence whose best source is among ``cited``, in answer order."""
    out = []
    for s in sorted(support, key=lambda x: x.start):
        if not s.supported or s.source is None or s.source not in cited:
            continue
        if answer[s.start : s.end] != s.text:
            continue  # the support check saw another text (the answer was stripped or changed)
        at = s.start + len(s.text.rstrip())
        after = _WRITTEN.match(answer, at)
        if _cites(s.text, s.source) or (after is not None and _cites(after.group(), s.source)):
            continue  # the model wrote this marker itself
        out.append(Marker(at, s.source))
    return tuple(out)


def _cites(fragment: str, n: int) -> bool:
    return any(str(n) in re.split(r"\s*[,;]\s*", m.group(1)) for m in _WRITTEN.finditer(fragment))


def insert_markers(text: str, markers: Sequence[Marker], draw: Callable[[int], str]) -> str:
    """``text`` with ``draw(source)`` inserted at each marker (``text`` must be the answer they were
    placed in, or a prefix of it)."""
    out, pos = [], 0
    for m in sorted(markers, key=lambda x: x.at):
        if m.at > len(text):
            break
        out.append(text[pos : m.at])
        out.append(draw(m.source))
        pos = m.at
    out.append(text[pos:])
    return "".join(out)


def shown_numbers(
    answer: str,
    markers: Sequence[Marker] = (),
    *,
    first: Sequence[int] = (),
    listed: Sequence[int] = (),
    keep: Collection[str] = (),
    unlisted: bool = False,
) -> dict[int, int]:
    """Source number → the number it is shown by: 1, 2, … in the order a reader meets the sources:
    ``first`` (the quote above the answer), then the answer's markers, written in it or placed
    (``markers``), then ``listed`` (the sources below it). A marker written to a source neither first nor
    listed is numbered only when ``unlisted`` (while the answer streams, before its sources are known);
    else ``renumber`` drops it, so that a number always leads to a source the reader can open. ``keep``:
    the documents' words in ``answer`` (a quote's text may cite its own references: "[12]")."""
    shown = set(first) | set(listed)
    met = [(m.start(), int(n)) for m in _written(answer, keep) for n in _NUMBER.findall(m.group(1))]
    met += [(m.at, m.source) for m in markers]
    in_answer = [n for _, n in sorted(met, key=lambda x: x[0]) if unlisted or n in shown]
    return {n: i for i, n in enumerate(dict.fromkeys([*first, *in_answer, *listed]), 1)}


def renumber(
    answer: str, support: Sequence[SentenceSupport], numbers: Mapping[int, int], keep: Collection[str] = ()
) -> tuple[str, tuple[SentenceSupport, ...]]:
    """``answer`` with its written markers in ``numbers`` (one to a source ``numbers`` does not hold is
    dropped), and its checked sentences moved with the text, each pointing at its source's new number."""
    edits = _edits(answer, numbers, keep)
    pieces, pos = [], 0
    for a, b, said in edits:
        pieces += [answer[pos:a], said]
        pos = b
    text = "".join([*pieces, answer[pos:]])

    def moved(at: int) -> int:
        shift = 0
        for a, b, said in edits:
            if at >= b:
                shift += len(said) - (b - a)
            elif at > a:
                return a + shift + min(at - a, len(said))
        return at + shift

    out = []
    for s in support:
        start, end = moved(s.start), moved(s.end)
        kept = text[start:end] if answer[s.start : s.end] == s.text else s.text
        out.append(replace(s, start=start, end=end, text=kept, source=_moved_source(s, numbers)))
    return text, tuple(out)


def _edits(answer: str, numbers: Mapping[int, int], keep: Collection[str]) -> list[tuple[int, int, str]]:
    """Each written marker ``numbers`` changes: its span, and what it becomes ("" when it is dropped)."""
    out = []
    for m in _written(answer, keep):
        old = [int(n) for n in _NUMBER.findall(m.group(1))]
        new = [numbers[n] for n in old if n in numbers]
        if new != old:
            lead = answer[m.start() : m.start(1) - 1]
            out.append((m.start(), m.end(), f"{lead}[{', '.join(map(str, new))}]" if new else ""))
    return out


def _moved_source(s: SentenceSupport, numbers: Mapping[int, int]) -> int | None:
    return None if s.source is None else numbers.get(s.source)


def _written(answer: str, keep: Collection[str]) -> list[re.Match[str]]:
    """The markers written in ``answer`` ("[2]", " [1, 3]"), outside the documents' words ``keep``."""
    kept = [(m.start(), m.end()) for k in keep if k for m in re.finditer(re.escape(k), answer)]
    return [m for m in _WRITTEN.finditer(answer) if not any(a < m.end() and m.start() < b for a, b in kept)]
