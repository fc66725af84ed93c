"""A turn's sources numbered as the reader meets them (issue 69: "citation numbers start at [2] or [3]").

The pipeline numbers a source by its place in the evidence the model was given, and the model cites by
those numbers; the passage ranked first often backs no sentence, or the quote comes from the second. The
chat shows each answer's sources as 1, 2, … in the order they appear: the quote above the answer first,
then the answer's markers, then the source list (``markers.shown_numbers``), and writes the answer's own
markers in those numbers. The stored answer and the trace (which lists the evidence as the model saw it)
keep the evidence's numbers.
"""

from __future__ import annotations

from dataclasses import replace

from app.chat.conversation import Turn
from kimas_desktop.answer.writing.markers import place_markers, renumber, shown_numbers

__all__ = ["FOUND_SHOWN", "numbered"]

FOUND_SHOWN = 5  # the passages a stopped answer lists as found before the stop


def numbered(turn: Turn) -> tuple[Turn, dict[int, int]]:
    """A copy of ``turn`` (to draw, never to store) whose quotes, citations, checked sentences and written
    markers use the numbers a reader meets the sources by, and that map (source number → shown number)."""
    if turn.mode == "model":
        return turn, {}
    cited = [c.n for c in turn.citations]
    listed = cited or _found(turn)
    keep = [q.display for q in turn.quotes]  # the documents' words: "[12]" there is a reference of theirs
    numbers = shown_numbers(
        turn.answer,
        place_markers(turn.answer, turn.support, set(cited)),
        first=[q.n for q in turn.quotes],
        listed=listed,
        keep=keep,
        unlisted=not turn.finished,
    )
    answer, support = renumber(turn.answer, turn.support, numbers, keep)
    citations = sorted((replace(c, n=numbers[c.n]) for c in turn.citations), key=lambda c: c.n)
    quotes = tuple(replace(q, n=numbers[q.n]) for q in turn.quotes)
    return replace(turn, answer=answer, support=support, quotes=quotes, citations=tuple(citations)), numbers


def _found(turn: Turn) -> list[int]:
    """The evidence a stopped answer without citations lists (``render``: "found before the stop")."""
    if turn.state != "stopped" or turn.trace is None:
        return []
    return list(range(1, min(FOUND_SHOWN, len(turn.trace.evidence)) + 1))
