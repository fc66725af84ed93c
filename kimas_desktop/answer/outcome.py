"""How an answer ends: one typed outcome, whatever path the question took.

    Answered      the chat model wrote it from the evidence; its citations come from the support check.
                  Or the documents' own words (the quote): ``set_aside`` then holds the model's text that
                  no source backed (``AnswerPolicy.sets_aside``); ``quote_only``: the chat model writes
                  no answer of its own (the policy's form ``quote``)
    Declined      the evidence does not answer: say so and point at the closest passages
    NothingFound  no knowledge yet, or nothing came close: a fixed sentence, not the model's
    ModelAlone    the chat's model-alone mode: the model answered from its own knowledge, no retrieval ran
    Stopped       the user stopped it; ``text`` is what was written until then

The pipeline ends every answer with ``Pipeline._finish(outcome)``, which emits the trailing events. No
reply text is ever parsed to learn which of these it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Literal

from kimas_desktop.answer.phrases import phrase
from kimas_desktop.text.visible import visible_name
from kimas_desktop.text.words import truncate
from kimas_desktop.types import Citation, Quote

__all__ = [
    "DECLINE_START",
    "MAY_ANSWER",
    "NOTHING_FOUND",
    "NO_KNOWLEDGE",
    "QUOTE_START",
    "SET_ASIDE",
    "Answered",
    "Declined",
    "ModelAlone",
    "NothingFound",
    "Outcome",
    "Stopped",
    "decline_text",
    "quote_text",
]

NO_KNOWLEDGE = (
    "There is no knowledge to answer from yet. Open the Knowledge tab and add a folder or drop files "
    "onto a collection (or run `kimas index PATH`), then ask again."
)
NOTHING_FOUND = "Nothing in your documents comes close to this question."
DECLINE_START = "Your documents don't say"
MAY_ANSWER = "The closest passage may answer this:"
QUOTE_START = "Your documents say:"
SET_ASIDE = "The model's own answer was set aside: none of its sentences is backed by your documents."


@dataclass(frozen=True)
class Answered:
    text: str
    citations: tuple[Citation, ...]
    note: str = ""  # about the citations ("no sentence of the answer is backed by the sources")
    set_aside: str = ""  # the model's answer shown in its place was the quote (no source backed it)
    quote_only: bool = False  # the quote is the answer: the chat model writes none of its own (issue 69)
    kind: Literal["answered"] = "answered"


@dataclass(frozen=True)
class Declined:
    text: str
    closest: tuple[Citation, ...]  # the passages that came closest; they do not answer
    rule: str  # the policy rule that declined
    kind: Literal["declined"] = "declined"


@dataclass(frozen=True)
class NothingFound:
    text: str
    reason: Literal["no knowledge", "nothing close"]
    kind: Literal["nothing found"] = "nothing found"


@dataclass(frozen=True)
class Stopped:
    text: str
    kind: Literal["stopped"] = "stopped"


@dataclass(frozen=True)
class ModelAlone:
    """Not from the documents: the chat model alone answered (``answer.model_alone``)."""

    text: str
    model: str  # its model_id
    kind: Literal["model alone"] = "model alone"


Outcome = Answered | Declined | NothingFound | Stopped | ModelAlone


def decline_text(question: str, quotes: Sequence[Quote], *, may_answer: bool = False) -> str:
    """The answer when the evidence does not answer: say so, and name the closest passages. ``may_answer``:
    the quote names the question's subject and holds an answer-shaped span, so the decline shows it
    rather than call the documents silent about what the user reads just above."""
    asked = truncate(question.strip().rstrip("?？"), 160)
    say = partial(phrase, question=question)
    if may_answer and quotes:
        q = quotes[0]
        return f"{say('may answer')} “{truncate(q.display, 400)}” ([{q.n}] {_where(q)}). {say('not sure')}"
    if not quotes:
        return say("decline bare").format(asked=asked)
    places = list(dict.fromkeys(f"[{q.n}] {_where(q)}" for q in quotes))[:2]  # a source once (issue 46)
    return say("decline").format(asked=asked, places=say("and").join(places))


def quote_text(
    quotes: Sequence[Quote], *, set_aside: bool = False, question: str = "", disagree: bool = False
) -> str:
    """An answer in the documents' own words: the quote; ``set_aside``: say the model's text was set
    aside for it; ``disagree``: say the quoted sources disagree (``signals/disagree.py``), each quote with
    its file. In ``question``'s language (``phrases.py``)."""
    if disagree:
        said = " ".join(f"“{q.display}” ([{q.n}] {_where(q)})" for q in quotes)
        return f"{phrase('disagree', question)} {said}"
    said = " ".join(f"“{q.display}” [{q.n}]" for q in quotes)
    aside = f" {phrase('set aside', question)}" if set_aside else ""
    return f"{phrase('quote start', question)} {said}{aside}"


def _where(q: Quote) -> str:
    """The quote's file as a person should see its name (``visible_name``: no bidi trick) and its place."""
    return ", ".join(x for x in (visible_name(Path(q.chunk.source).name), q.chunk.locator) if x)
