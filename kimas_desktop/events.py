"""What the pipeline yields while it answers. Only ``ui/`` and ``cli/`` turn these into output."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kimas_desktop.answer.outcome import Answered, Outcome
from kimas_desktop.answer.tables.answer import TableAnswer
from kimas_desktop.answer.writing.budget import Pace
from kimas_desktop.trace import Trace
from kimas_desktop.types import Answerability, Citation, Quote, SentenceSupport

__all__ = [
    "AnswerDelta",
    "CitationsReady",
    "Done",
    "Event",
    "QuoteReady",
    "Status",
    "SupportReady",
    "TableReady",
    "TraceReady",
]


@dataclass(frozen=True)
class Status:
    """A stage started (for 'routing…', 'searching 2 collections…'); while the model answers, ``pace``
    says what it does and how fast (the status line's speed, issue 46).

    ``message`` is the step in words (English, or already in the question's language); a step the UI says
    in its own words has a ``code`` too, with its plain ``values`` (issue 69: the UI says "searched" with
    its ``collections``' titles, never by matching the English sentence). Codes: "searched"
    (``collections``: their ids), "asking" (``sources``: the online sources' names)."""

    stage: str
    message: str
    pace: Pace | None = None
    code: str = ""
    values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class AnswerDelta:
    """A piece of the answer's text. ``quote_only``: the text is the quote said as the answer, the chat model
    writing none of its own (issue 69; the answer ends ``Answered(quote_only=True)``): an output that showed
    the quote (``QuoteReady``) does not show it again."""

    text: str
    quote_only: bool = False


@dataclass(frozen=True)
class QuoteReady:
    """The grounded quote, right after reranking and before the chat model writes: verbatim sentences of
    the sources (``Quote.n`` numbers them as the answer's citations do), and whether the evidence answers
    the question at all. ``quotes`` is empty when no sentence came close."""

    quotes: tuple[Quote, ...]
    answerability: Answerability
    disagree: bool = False  # the quotes are two files stating the asked value differently


@dataclass(frozen=True)
class SupportReady:
    """The support check of the finished answer: one entry per answer sentence, in order."""

    sentences: tuple[SentenceSupport, ...]
    uses_quote: bool | None = None  # False: the answer ignores or contradicts the grounded quote

    @property
    def unsupported(self) -> int:
        return sum(1 for s in self.sentences if not s.supported)


@dataclass(frozen=True)
class CitationsReady:
    citations: tuple[Citation, ...]
    available: bool = True  # False: the look-back step failed; the answer stands without citations
    note: str = ""


@dataclass(frozen=True)
class TableReady:
    """A question computed over a table (before the answer's text): the value, the query in plain words
    and the rows it used, each with its row number in the file (``answer/tables``)."""

    answer: TableAnswer


@dataclass(frozen=True)
class TraceReady:
    trace: Trace


@dataclass(frozen=True)
class Done:
    """The answer ended: how (``outcome``: answered, declined, nothing found, stopped)."""

    outcome: Outcome

    @property
    def answer(self) -> str:
        return self.outcome.text

    @property
    def answered_from_sources(self) -> bool:
        return isinstance(self.outcome, Answered)


Event = Status | QuoteReady | TableReady | AnswerDelta | CitationsReady | SupportReady | TraceReady | Done
