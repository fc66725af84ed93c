"""How an answer ends: one typed outcome, whatever path the question took.

    Answered      the chat model wrote it from the evidence; its citations come from the support check
    Declined      the evidence does not answer: say so and point at the closest passages
    NothingFound  no knowledge yet, or nothing came close: a fixed sentence, not the model's
    Stopped       the user stopped it; ``text`` is what was written until then

The pipeline ends every answer with ``Pipeline._finish(outcome)``, which emits the trailing events. No
reply text is ever parsed to learn which of these it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from kimas_desktop.text.words import truncate
from kimas_desktop.types import Citation, Quote

__all__ = [
    "DECLINE_START",
    "NOTHING_FOUND",
    "NO_KNOWLEDGE",
    "Answered",
    "Declined",
    "NothingFound",
    "Outcome",
    "Stopped",
    "decline_text",
]

NO_KNOWLEDGE = (
    "There is no knowledge to answer from yet. Open the Knowledge tab and add a folder or drop files "
    "onto a collection (or run `kimas index PATH`), then ask again."
)
NOTHING_FOUND = "Nothing in your documents comes close to this question."
DECLINE_START = "Your documents don't say"


@dataclass(frozen=True)
class Answered:
    text: str
    citations: tuple[Citation, ...]
    note: str = ""  # about the citations ("no sentence of the answer is backed by the sources")
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


Outcome = Answered | Declined | NothingFound | Stopped


def decline_text(question: str, quotes: Sequence[Quote]) -> str:
    """The answer when the evidence does not answer: say so, and name the closest passages."""
    asked = truncate(question.strip().rstrip("?"), 160)
    if not quotes:
        return f"{DECLINE_START} anything about “{asked}”."
    places = []
    for q in quotes[:2]:
        where = ", ".join(x for x in (Path(q.chunk.source).name, q.chunk.locator) if x)
        places.append(f"[{q.n}] {where}")
    return f"{DECLINE_START} “{asked}”; the closest passages are {' and '.join(places)}."
