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

Asked only of a chat model whose description says it judges (``ChatModelDescription.judges``), and only
when its verdict could change the decision (``AnswerPolicy.asks_model``): what it finds is one more
signal for the policy, which weighs it with the lexical evidence. The prompt starts with the answer
prompt's [system][sources] prefix, so the llama.cpp prompt cache makes the answer that follows nearly
free to start.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from kimas_desktop.answer.writing.summarizer import SYSTEM, sources_block
from kimas_desktop.protocols import ChatModel
from kimas_desktop.structured import ask_json, string_field
from kimas_desktop.text.words import meaningful_stems as _meaningful
from kimas_desktop.trace import Reason
from kimas_desktop.types import Hit, Message

__all__ = ["AnswerCheck", "Verdict", "VerdictKind", "check_messages", "copied_share", "verify"]

CHECK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "maxLength": 200}},
    "required": ["answer"],
}


VerdictKind = Literal["verified", "near", "echo", "none", "invented"]


@dataclass(frozen=True)
class Verdict:
    """What the check found, as evidence for the answer policy (``answer/policy.py``), never a verdict on
    its own. ``kind``:
        verified   the copied words are in a source and add to the question
        near       most of them are in one source (a real sentence copied with words dropped or changed)
        echo       they are in a source but only repeat the question
        none       the model copied nothing: it found no source that states the answer
        invented   most of them are in no source
    ``words``: what the model copied; ``held``: the largest share of them one source holds;
    ``reason``: why they do not verify ("" when they do), in English; ``reason_said``: the same as a code
    (the trace says it in the page's language)."""

    answerable: bool
    words: str
    reason: str = ""
    kind: VerdictKind = "verified"
    held: float = 1.0
    reason_said: Reason | None = None


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


def copied_share(copied: str, hits: Sequence[Hit]) -> float:
    """The largest share of the copied words (numbers and content words) that one source holds, in any
    order: 1.0 for an exact copy, high for a copy that dropped or changed a few words of a real sentence,
    low for words the model made up."""
    found = _meaningful(copied)
    if not found:
        return 0.0
    best = 0
    for h in hits:
        source = set(_meaningful(h.chunk.text))
        best = max(best, sum(1 for w in found if w in source))
    return best / len(found)


NEAR = 0.6  # share of the copied words one source holds, for a copy that is "near" a real sentence
NO_ANSWER = Reason("the model found no answer in the sources", "no_answer_found")
NOT_AS_WRITTEN = Reason("the model's words are not in the sources as written", "not_as_written")
REPEATS = Reason("the model's words only repeat the question", "repeats_question")


def verify(copied: str, question: str, hits: Sequence[Hit]) -> Verdict:
    """What the copied words show about the sources. See the module docstring and ``Verdict``."""
    found = _meaningful(copied)
    if not found:
        return Verdict(False, copied, NO_ANSWER.english, "none", 0.0, NO_ANSWER)
    held = round(copied_share(copied, hits), 3)
    if not any(_held(found, _meaningful(h.chunk.text)) for h in hits):
        kind: VerdictKind = "near" if held >= NEAR else "invented"
        return Verdict(False, copied, NOT_AS_WRITTEN.english, kind, held, NOT_AS_WRITTEN)
    if not set(found) - set(_meaningful(question)):
        return Verdict(False, copied, REPEATS.english, "echo", held, REPEATS)
    return Verdict(True, copied, "", "verified", held)


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
