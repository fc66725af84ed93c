"""The chat model's answerability judgement (RAGentA's evidence judging, as one JSON-constrained call).

Used with a chat model good enough to judge (``grounding.llm_check``: "auto" = any model but the embedded
135M one, whose verdict is noise). The lexical decision (``answerability.py``) then runs with a lower
threshold, so it declines only the clear cases, and this judgement declines what the evidence does not
state. The prompt starts with the answer prompt's [system][sources] prefix, so the llama.cpp prompt cache
makes the answer that follows nearly free to start.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kimas_desktop.protocols import ChatModel
from kimas_desktop.structured import ask_json
from kimas_desktop.summarizer import SYSTEM, sources_block
from kimas_desktop.types import Hit, Message

__all__ = ["AnswerCheck", "check_messages"]

CHECK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answerable": {"type": "boolean"}},
    "required": ["answerable"],
}


def check_messages(question: str, hits: Sequence[Hit]) -> list[Message]:
    body = (
        f"{sources_block(hits)}\n\nQuestion: {question}\n\n"
        "Do the sources above state the answer to this question? Answer true only if a source states it; "
        'a source on the same topic that does not state it means false. Reply as JSON: {"answerable": '
        "true|false}"
    )
    return [Message("system", SYSTEM), Message("user", body)]


def _parse(data: dict[str, Any]) -> bool:
    value = data["answerable"]
    if not isinstance(value, bool):
        raise TypeError("answerable must be a boolean")
    return value


class AnswerCheck:
    def __init__(self, chat: ChatModel) -> None:
        self._chat = chat

    def answerable(self, question: str, hits: Sequence[Hit]) -> bool:
        """Raises StructuredOutputError (or the model's KimasError) on failure; the caller keeps the
        lexical decision."""
        return ask_json(self._chat, check_messages(question, hits), CHECK_SCHEMA, _parse, max_tokens=12)
