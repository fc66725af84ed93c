"""An answer's sources numbered 1, 2, … in the order a reader meets them (issue 69: "citation numbers start
at [2] or [3]"), the one rule every way an answer is shown follows: the chat (``ui/chat/numbered.py``),
``kimas ask`` and the OpenAI-compatible API (``app/tools/openai_wire.py``).

The pipeline numbers a source by its place in the evidence the model was given, and the model cites by
those numbers; the passage ranked first often backs no sentence, or the quote comes from the second. A
reader meets the quote (where it is shown above the answer), then the answer's markers, then the source
list (``markers.shown_numbers``). ``in_reading_order`` numbers a whole answer; ``StreamNumbering`` numbers
one as it streams to an output that cannot take back what it sent (a terminal, a server-sent event): a
marker keeps the number it was sent with, and the sources it did not name follow. The stored answer, the
JSON of ``kimas ask --json`` and the trace keep the evidence's numbers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from kimas_desktop.answer.writing.markers import place_markers, renumber, shown_numbers
from kimas_desktop.types import Citation, Quote, SentenceSupport

__all__ = ["ReadingOrder", "StreamNumbering", "in_reading_order"]

_OPEN_MARKER = re.compile(r"\[[\d\s,;]*$")  # "[", "[1", "[1, " at the end of what streamed so far


@dataclass(frozen=True)
class ReadingOrder:
    """An answer with its sources as the reader meets them: its text (the written markers renumbered), its
    checked sentences moved with the text, its quotes and citations (sorted by their new numbers), and
    ``numbers``: source number → the number it is shown by."""

    answer: str
    support: tuple[SentenceSupport, ...]
    quotes: tuple[Quote, ...]
    citations: tuple[Citation, ...]
    numbers: dict[int, int]


def in_reading_order(
    answer: str,
    support: Sequence[SentenceSupport],
    citations: Sequence[Citation],
    quotes: Sequence[Quote] = (),
    *,
    quote_first: bool = True,
    listed: Sequence[int] | None = None,
    streaming: bool = False,
) -> ReadingOrder:
    """``answer`` and its parts numbered by reading order: ``quotes`` first when they are shown above the
    answer (``quote_first``), then the answer's markers (written, or placed by the support check), then
    ``listed`` (the sources below it; the citations' numbers by default). A marker to a source not listed
    is dropped, unless the answer is still ``streaming`` (its sources are not known yet)."""
    cited = [c.n for c in citations]
    keep = [q.display for q in quotes]  # the documents' words: "[12]" there is a reference of theirs
    numbers = shown_numbers(
        answer,
        place_markers(answer, support, set(cited)),
        first=[q.n for q in quotes] if quote_first else (),
        listed=cited if listed is None else listed,
        keep=keep,
        unlisted=streaming,
    )
    return _numbered(answer, support, citations, quotes, numbers)


def _numbered(
    answer: str,
    support: Sequence[SentenceSupport],
    citations: Sequence[Citation],
    quotes: Sequence[Quote],
    numbers: dict[int, int],
) -> ReadingOrder:
    numbers = _with(numbers, [c.n for c in citations])
    text, moved = renumber(answer, support, numbers, [q.display for q in quotes])
    shown = sorted((replace(c, n=numbers[c.n]) for c in citations), key=lambda c: c.n)
    said = tuple(replace(q, n=numbers[q.n]) for q in quotes if q.n in numbers)  # not shown: not numbered
    return ReadingOrder(text, moved, said, tuple(shown), numbers)


def _with(numbers: dict[int, int], sources: Sequence[int]) -> dict[int, int]:
    """``numbers`` and, after them, each of ``sources`` it lacks."""
    return {n: i for i, n in enumerate(dict.fromkeys([*numbers, *sources]), 1)}


class StreamNumbering:
    """An answer's written markers renumbered as its text streams (``add``), for an output that cannot
    take back what it sent; ``end`` gives the rest to send and the whole answer in the same numbers."""

    def __init__(self, quote_first: bool = True) -> None:
        self._quote_first = quote_first
        self._quotes: tuple[Quote, ...] = ()
        self._raw = ""  # the text as the model wrote it
        self._sent = 0  # characters of the renumbered text sent so far

    def quoted(self, quotes: Sequence[Quote]) -> dict[int, int]:
        """The grounded quote, before the answer streams: the numbers its parts are shown by."""
        self._quotes = tuple(quotes)
        return self._numbers(self._raw)

    def add(self, delta: str) -> str:
        """What to send of ``delta``, its markers renumbered (an unfinished marker waits for its end)."""
        self._raw += delta
        cut = _OPEN_MARKER.search(self._raw)
        return self._send(self._raw[: cut.start()] if cut else self._raw)

    def said(self, text: str) -> str:
        """``text`` of the answer (a sentence of it) with its markers in the numbers they were sent with."""
        return renumber(text, (), self._numbers(self._raw), [q.display for q in self._quotes])[0]

    def flush(self) -> str:
        """What the stream still holds back (an unfinished marker at its end), once it has ended."""
        return self._send(self._raw)

    def end(
        self, final: str | None, support: Sequence[SentenceSupport], citations: Sequence[Citation]
    ) -> tuple[str, ReadingOrder]:
        """The rest to send and the answer in the numbers its markers were sent with, the sources it did
        not name after them: ``final`` (None: what streamed), after a break when it is not what streamed
        (an answer set aside for the quote)."""
        streamed = self.flush()
        text = self._raw if final is None else final
        numbers = self._numbers(self._raw)
        placed = place_markers(text, support, {c.n for c in citations})
        numbers = _with(numbers, [*shown_numbers(text, placed, listed=[c.n for c in citations])])
        order = _numbered(text, support, citations, self._quotes, numbers)
        if text.startswith(self._raw):
            return streamed + order.answer[self._sent :], order
        return streamed + "\n\n" + order.answer, order

    def _numbers(self, text: str) -> dict[int, int]:
        first = [q.n for q in self._quotes] if self._quote_first else []
        return shown_numbers(text, first=first, keep=[q.display for q in self._quotes], unlisted=True)

    def _send(self, text: str) -> str:
        said, _ = renumber(text, (), self._numbers(text), [q.display for q in self._quotes])
        out = said[self._sent :]
        self._sent = len(said)
        return out
