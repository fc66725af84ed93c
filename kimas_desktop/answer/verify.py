"""The chat model's answerability judgement (RAGentA's evidence judging, as one JSON-constrained call),
made by extracting and verifying rather than by asking yes or no.

The model copies the words of a source that answer the question (``{"answer": "..."}``, empty when no
source states it). They count as an answer only when they are really in a source and say something the
question does not (a word of their own). "In a source" compares the words that carry meaning (numbers and
content words, lightly stemmed), in order and next to each other: case, punctuation, an added or dropped
"the" or "which", a plural, or a last word the length limit cut short do not matter; a changed number, an
added name or a reordering do. Asked "do the sources state the answer?", the 0.5B benchmark model said
yes to every question, answerable or not; made to copy, it wrote invented or question-echoing words that
this verification rejects (bench/RESULTS.md).

Used with a chat model good enough to judge (``grounding.llm_check``: "auto" = any model but the embedded
135M one). The lexical decision (``answerability.py``) then runs with a lower threshold, so it declines only
the clear cases, and this judgement declines what the evidence does not state. The prompt starts with the
answer prompt's [system][sources] prefix, so the llama.cpp prompt cache makes the answer that follows
nearly free to start.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kimas_desktop.answer.summarizer import SYSTEM, sources_block
from kimas_desktop.protocols import ChatModel
from kimas_desktop.structured import ask_json, string_field
from kimas_desktop.text.words import meaningful_stems as _meaningful
from kimas_desktop.types import Hit, Message

__all__ = ["AnswerCheck", "Verdict", "check_messages", "verify"]

CHECK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "maxLength": 200}},
    "required": ["answer"],
}


@dataclass(frozen=True)
class Verdict:
    """``words``: what the model copied; ``reason``: why they do not count ("" when they do)."""

    answerable: bool
    words: str
    reason: str = ""


def check_messages(question: str, hits: Sequence[Hit]) -> list[Message]:
    body = (
        f"{sources_block(hits)}\n\nQuestion: {question}\n\n"
        "Copy the exact words from one source that answer this question. If no source states the answer, "
        'reply with an empty string. Reply as JSON: {"answer": "..."}'
    )
    return [Message("system", SYSTEM), Message("user", body)]


def _held(copied: list[str], source: list[str]) -> bool:
    """``copied`` appears in ``source`` as a run; its last word may be cut short (the length limit)."""
    n = len(copied)
    for i in range(len(source) - n + 1):
        last = source[i + n - 1]
        if source[i : i + n - 1] == copied[:-1] and (
            last == copied[-1] or (n >= 4 and last.startswith(copied[-1]))
        ):
            return True
    return False


def verify(copied: str, question: str, hits: Sequence[Hit]) -> Verdict:
    """Do the copied words answer from the sources? See the module docstring."""
    found = _meaningful(copied)
    if not found:
        return Verdict(False, copied, "the model found no answer in the sources")
    if not any(_held(found, _meaningful(h.chunk.text)) for h in hits):
        return Verdict(False, copied, "the model's words are not in the sources")
    if not set(found) - set(_meaningful(question)):
        return Verdict(False, copied, "the model's words only repeat the question")
    return Verdict(True, copied)


class AnswerCheck:
    def __init__(self, chat: ChatModel) -> None:
        self._chat = chat

    def judge(self, question: str, hits: Sequence[Hit]) -> Verdict:
        """Raises StructuredOutputError (or the model's KimasError) on failure; the caller keeps the
        lexical decision."""
        words = ask_json(
            self._chat,
            check_messages(question, hits),
            CHECK_SCHEMA,
            lambda data: string_field(data, "answer", max_len=400),
            max_tokens=80,
        )
        return verify(words, question, hits)
