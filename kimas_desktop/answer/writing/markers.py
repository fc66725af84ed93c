"""Inline citation markers: the ``[n]`` after each answer sentence that says which source backs it.

They come from the support check (``SentenceSupport.source``: the best supporting source of a sentence),
not from the model: a sentence gets a marker only when it is supported and its source is one of the
answer's citations, so a marker always points at an entry of the source list. A marker the model already
wrote after the sentence is not repeated. Renderers (UI, ``kimas ask``) draw the markers; the answer text
is left as the model wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from kimas_desktop.types import SentenceSupport

__all__ = ["Marker", "insert_markers", "place_markers"]

_WRITTEN = re.compile(r"\s*\[(\d+(?:\s*[,;]\s*\d+)*)\]")  # "[1]", " [1, 3]" right after a sentence


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
