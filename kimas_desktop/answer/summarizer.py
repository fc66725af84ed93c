"""The summarizer (KIMAs §3.4): a streamed answer grounded in numbered sources, then look-back citations.

Prompts are laid out so their long part is a shared prefix: [system][sources] first, then what differs
(history, question, the judge's or the look-back request). A llama.cpp prompt cache then makes the
agentic judgement and the look-back step nearly free for the answer that follows or precedes them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kimas_desktop.answer.filter import format_source
from kimas_desktop.optional import optional
from kimas_desktop.protocols import ChatModel
from kimas_desktop.structured import ask_json, int_list_field
from kimas_desktop.text.words import content_words, truncate
from kimas_desktop.types import Citation, Hit, Message, Quote

NOT_FOUND = "I could not find the answer to this in your documents."
NO_KNOWLEDGE = (
    "There is no knowledge to answer from yet. Open the Knowledge tab and add a folder or drop files "
    "onto a collection (or run `kimas index PATH`), then ask again."
)

SYSTEM = (
    "You are KIMAs, a careful assistant that answers questions using only the numbered sources below. "
    "Answer briefly and directly, in one or two sentences, in the language of the question, using the "
    "words of the sources. Use only facts stated in the sources; never use outside knowledge. If the "
    f"sources do not contain the answer, reply exactly: {NOT_FOUND}"
)


def sources_block(hits: Sequence[Hit]) -> str:
    return "Sources:\n\n" + "\n\n".join(format_source(i + 1, h) for i, h in enumerate(hits))


def history_block(history: Sequence[Message]) -> str:
    """The earlier questions of the chat, as a plain list: no "user:"/"assistant:" lines, which a small
    model goes on writing as a transcript, and no earlier answers, which it copies from (issue 12)."""
    asked = [truncate(m.content, 300) for m in history if m.role == "user"]
    if not asked:
        return ""
    lines = "\n".join(f"- {q}" for q in asked)
    return f"\n\nEarlier questions in this chat, for context only:\n{lines}"


def key_sentences_block(quotes: Sequence[Quote]) -> str:
    """The grounded quote (verbatim sentences the quote scorer picked), so a small model answers from the
    words that matter."""
    if not quotes:
        return ""
    lines = "\n".join(f"[{q.n}] {truncate(q.display, 400)}" for q in quotes)
    return f"\n\nMost relevant sentences:\n{lines}"


def answer_messages(
    question: str, hits: Sequence[Hit], history: Sequence[Message], *, key_sentences: Sequence[Quote] = ()
) -> list[Message]:
    """[system][sources] first (the shared prefix the prompt cache reuses), then what differs."""
    body = (
        f"{sources_block(hits)}{key_sentences_block(key_sentences)}{history_block(history)}"
        f"\n\nQuestion: {question}\nAnswer:"
    )
    return [Message("system", SYSTEM), Message("user", body)]


def is_not_found(answer: str) -> bool:
    a = " ".join(answer.lower().split())
    return a.startswith(NOT_FOUND.lower()[:40]) or "could not find the answer" in a


CITE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"sources": {"type": "array", "items": {"type": "integer"}, "maxItems": 8}},
    "required": ["sources"],
}

CITE_REQUEST = (
    "Look back at your answer. Which numbered sources state the facts you used? "
    'Reply as JSON: {"sources": [numbers]}'
)


@dataclass(frozen=True)
class CitationResult:
    citations: tuple[Citation, ...]
    available: bool
    note: str = ""


def _snippet(text: str, answer: str, max_chars: int = 240) -> str:
    """The chunk sentence that shares most words with the answer."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()] or [text]
    want = set(content_words(answer))
    best = max(sentences, key=lambda s: len(want & set(content_words(s))))
    return truncate(best, max_chars)


def validate_citation_numbers(numbers: Sequence[int], n_sources: int) -> list[int]:
    """Keep numbers that name an existing source (1-based), first occurrence only, in order."""
    out: list[int] = []
    for n in numbers:
        if 1 <= n <= n_sources and n not in out:
            out.append(n)
    return out


class Summarizer:
    def __init__(self, chat: ChatModel, *, max_answer_tokens: int, temperature: float = 0.0) -> None:
        self._chat = chat
        self._max_tokens = max_answer_tokens
        self._temperature = temperature

    def stream(self, messages: Sequence[Message]) -> Iterator[str]:
        yield from self._chat.stream(messages, max_tokens=self._max_tokens, temperature=self._temperature)

    def cite(self, messages: Sequence[Message], answer: str, hits: Sequence[Hit]) -> CitationResult:
        """Look-back citations: which sources the finished answer used. A failed look-back leaves the
        answer without them (the reason in the note); only ``Cancelled`` goes on up."""
        if not hits or not answer.strip():
            return CitationResult((), True, "no sources")
        if is_not_found(answer):
            return CitationResult((), True, "the answer says the sources do not contain it")
        ask = [*messages, Message("assistant", answer), Message("user", CITE_REQUEST)]
        failed: list[str] = []

        def unavailable(reason: str) -> list[int]:
            failed.append(reason)
            return []

        numbers = optional(
            "look-back citations",
            lambda: ask_json(
                self._chat, ask, CITE_SCHEMA, lambda d: int_list_field(d, "sources"), max_tokens=48
            ),
            unavailable,
        )
        if failed:
            return CitationResult((), False, f"citations are unavailable for this answer: {failed[0]}")
        valid = validate_citation_numbers(numbers, len(hits))
        citations = tuple(
            Citation(n, hits[n - 1].chunk, _snippet(hits[n - 1].chunk.text, answer)) for n in valid
        )
        note = "" if citations else "the model named no source"
        if len(valid) < len(numbers):
            note = f"ignored {len(numbers) - len(valid)} invalid source number(s)"
        return CitationResult(citations, True, note)
