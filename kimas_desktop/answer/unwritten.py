"""``quote_while_unwritten``: the answer while the chat model that writes it is not there yet (issue 71:
llama.cpp is still being built for this computer, and the chat model raises ``ModelUnavailableError`` with
the code ``NOT_READY``). The quote, in the documents' own words, takes the model's place with its sources,
as when a model's answer is set aside or the model writes none (``writer.quote_answer``, the one path of a
quote as the answer); a decline, a table or a computed answer needed no model anyway.
With no quote to give, or any other failure, the error goes up as before."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kimas_desktop.answer.run import Run
from kimas_desktop.answer.writer import quote_answer
from kimas_desktop.errors import ModelUnavailableError
from kimas_desktop.events import AnswerDelta, Event
from kimas_desktop.trace import Reason
from kimas_desktop.types import Quote

__all__ = ["NOT_READY", "quote_while_unwritten"]

NOT_READY = "chat_model_not_ready"
NOTE = Reason("the chat model is not ready yet: the quote in its place", "model_not_ready")


def quote_while_unwritten(steps: Iterator[Event], run: Run, quotes: Sequence[Quote]) -> Iterator[Event]:
    """``steps`` (the writer's events); when the model is not ready before it wrote a word, the quote."""
    wrote = False
    try:
        for event in steps:
            wrote = wrote or isinstance(event, AnswerDelta)
            yield event
    except ModelUnavailableError as err:
        if err.code != NOT_READY or wrote or not quotes:
            raise
        yield from quote_answer(run, quotes, NOTE)
