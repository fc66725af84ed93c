"""A turn's sources numbered as the reader meets them (issue 69: "citation numbers start at [2] or [3]").

The chat shows each answer's sources as 1, 2, … in the order they appear: the quote above the answer
first, then the answer's markers, then the source list, and writes the answer's own markers in those
numbers (``kimas_desktop.answer.writing.reading_order``: the rule ``kimas ask`` and the API follow too).
The stored answer and the trace (which lists the evidence as the model saw it) keep the evidence's
numbers.
"""

from __future__ import annotations

from dataclasses import replace

from app.chat.conversation import Turn
from kimas_desktop.answer.writing.reading_order import in_reading_order

__all__ = ["FOUND_SHOWN", "numbered"]

FOUND_SHOWN = 5  # the passages a stopped answer lists as found before the stop


def numbered(turn: Turn) -> tuple[Turn, dict[int, int]]:
    """A copy of ``turn`` (to draw, never to store) whose quotes, citations, checked sentences and written
    markers use the numbers a reader meets the sources by, and that map (source number → shown number)."""
    if turn.mode == "model":
        return turn, {}
    listed = [c.n for c in turn.citations] or _found(turn)
    order = in_reading_order(
        turn.answer, turn.support, turn.citations, turn.quotes, listed=listed, streaming=not turn.finished
    )
    shown = replace(
        turn, answer=order.answer, support=order.support, quotes=order.quotes, citations=order.citations
    )
    return shown, order.numbers


def _found(turn: Turn) -> list[int]:
    """The evidence a stopped answer without citations lists (``render``: "found before the stop")."""
    if turn.state != "stopped" or turn.trace is None:
        return []
    return list(range(1, min(FOUND_SHOWN, len(turn.trace.evidence)) + 1))
