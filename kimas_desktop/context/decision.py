"""The context manager's decision for a turn (``TurnDecision``): whether the question depends on the
conversation (self-contained, on its topic, or on the previous exchange), on which earlier messages, and
why, in English and as a code (``Reason``) the trace says in the page's language. ``dependence`` makes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from kimas_desktop.trace import Reason
from kimas_desktop.types import Message

__all__ = ["FIRST_QUESTION", "DecisionMethod", "Dependence", "TurnDecision", "exchanges", "ruled"]

Dependence = Literal["self-contained", "topic", "previous"]
DecisionMethod = Literal["first-turn", "rules", "llm"]


@dataclass(frozen=True)
class TurnDecision:
    depends: Dependence
    turns: tuple[int, ...]  # indices into the history of the messages the turn depends on
    method: DecisionMethod
    reason: str
    similarity: float | None = None  # the closest earlier message's, when measured
    topic: tuple[int, ...] = ()  # the exchange that started the conversation's current topic
    # A self-contained question on the conversation's subject: the exchanges whose main terms its search
    # keeps (none reach the summarizer). Empty for a change of subject and for follow-ups.
    subject: tuple[int, ...] = ()
    # A follow-up only by its closeness to the conversation: the question says what it asks in its own
    # words (no reference back, not too short), so its search also reads it as asked (``Pipeline``).
    own_reading: bool = False
    reason_said: Reason | None = None  # ``reason`` as a code (the trace says it in the page's language)

    def shifted(self, offset: int) -> TurnDecision:
        """The same decision with its indices moved by ``offset`` (from a window to the whole history)."""

        def move(ix: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(i + offset for i in ix)

        return replace(self, turns=move(self.turns), topic=move(self.topic), subject=move(self.subject))

    def relabelled(self, depends: Dependence, history: Sequence[Message], reason: Reason) -> TurnDecision:
        """The same turn under another label (a capable model's judgement), with the turns it implies."""
        last = exchanges(history)[-1] if history else ()
        used = {"self-contained": (), "topic": self.topic, "previous": tuple(sorted({*self.topic, *last}))}
        subject = self.subject if depends == "self-contained" else ()
        own = self.own_reading or not self.uses_history  # the rules found it complete in its own words
        return TurnDecision(
            depends, used[depends], "llm", reason.english, self.similarity, self.topic, subject, own, reason
        )

    @property
    def uses_history(self) -> bool:
        return self.depends != "self-contained"

    def sources(self, history: Sequence[Message]) -> tuple[str, ...]:
        """The files the conversation's answers came from, which the turn's search as asked is also kept
        to when, by itself, it finds them (``Pipeline``): "Why did Liam leave?" after two answers from an
        article about a band finds other Liams in other files and, kept to the article, this one. A
        question on another subject finds none of those files and stays out of them. One the rules find
        on the conversation's subject (``subject``) is kept to them either way ("What kind of topics did
        the show cover?" in a chat about a radio show that never names it). A follow-up uses the
        answers it depends on; one that refers back or is too short has no search as asked
        (``searched_both_ways``), so none; a self-contained question uses the current topic's answers."""
        if self.uses_history and not self.own_reading:
            return ()
        turns = self.turns if self.uses_history else range(self.topic[0], len(history)) if self.topic else ()
        return tuple(dict.fromkeys(f for i in turns if i < len(history) for f in history[i].sources))

    def searched_both_ways(self, question: str, query: str) -> bool:
        """Whether the turn is searched both as rewritten (``query``) and as asked: a follow-up that says
        what it asks in its own words. One that refers back ("When was he born?") or is too short has no
        reading of its own: searched as asked, it finds other stories' passages, and the grounded quote
        took them (bench/RESULTS.md, issue 23, sixth round)."""
        return self.uses_history and self.own_reading and query.strip() != question.strip()


def ruled(
    depends: Dependence, turns: tuple[int, ...], said: Reason, best: float, topic: tuple[int, ...], **kw: Any
) -> TurnDecision:
    """The rules' decision, with why (``said``: its English and its code)."""
    return TurnDecision(depends, turns, "rules", said.english, best, topic, reason_said=said, **kw)


FIRST = Reason("the conversation's first question", "first_question")
FIRST_QUESTION = TurnDecision("self-contained", (), "first-turn", FIRST.english, reason_said=FIRST)


def exchanges(history: Sequence[Message]) -> list[tuple[int, ...]]:
    """The history's user turns, each with the answer that follows it: [(0, 1), (2, 3), …]."""
    out: list[tuple[int, ...]] = []
    for i, m in enumerate(history):
        if m.role == "user":
            nxt = i + 1 < len(history) and history[i + 1].role == "assistant"
            out.append((i, i + 1) if nxt else (i,))
    return out
