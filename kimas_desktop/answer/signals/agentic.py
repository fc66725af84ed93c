"""The agentic second round: judge the first round's evidence, and if it falls short, search again.

After the first retrieval the model judges whether the top evidence suffices (``is_sufficient``,
``missing_info``) and, if not, writes 2–3 complementary queries. The caller retrieves them in parallel,
fuses everything with reciprocal rank fusion, deduplicates and reranks. Any failure keeps the first round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kimas_desktop.answer.writing.summarizer import SYSTEM, sources_block
from kimas_desktop.protocols import ChatModel
from kimas_desktop.structured import ask_json, string_field
from kimas_desktop.types import Hit, Message

__all__ = ["JUDGE_SCHEMA", "Judgement", "SufficiencyJudge", "judge_messages"]

JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "is_sufficient": {"type": "boolean"},
        # Tight bounds: the grammar enforces them, so a rambling small model cannot run out of tokens
        # mid-JSON (which would waste the whole judgement).
        "missing_info": {"type": "string", "maxLength": 120},
        "queries": {"type": "array", "items": {"type": "string", "maxLength": 80}, "maxItems": 3},
    },
    "required": ["is_sufficient", "missing_info", "queries"],
}


@dataclass(frozen=True)
class Judgement:
    is_sufficient: bool
    missing_info: str
    queries: tuple[str, ...]


def judge_messages(question: str, hits: Sequence[Hit]) -> list[Message]:
    """Same system prompt and sources block as the answer prompt, so the answer reuses the cache."""
    body = (
        f"{sources_block(hits)}\n\nQuestion: {question}\n\n"
        "Before answering: do these sources contain what is needed to answer the question? "
        "If not, say what is missing and write 2 or 3 short search queries that would find it. "
        'Reply as JSON: {"is_sufficient": true|false, "missing_info": "...", "queries": ["..."]}'
    )
    return [Message("system", SYSTEM), Message("user", body)]


class SufficiencyJudge:
    def __init__(self, chat: ChatModel, max_queries: int) -> None:
        self._chat = chat
        self._max_queries = max_queries

    def judge(self, question: str, hits: Sequence[Hit]) -> Judgement:
        """Raises StructuredOutputError (or the model's error) on failure; the caller falls back."""

        def parse(d: dict[str, Any]) -> Judgement:
            ok = d["is_sufficient"]
            if not isinstance(ok, bool):
                raise TypeError("is_sufficient must be a boolean")
            raw = d["queries"]
            if not isinstance(raw, list):
                raise TypeError("queries must be a list")
            seen = {question.strip().lower()}
            queries: list[str] = []
            for q in raw:
                q = " ".join(str(q).split())
                if q and q.lower() not in seen:
                    seen.add(q.lower())
                    queries.append(q)
            return Judgement(
                ok, string_field(d, "missing_info", max_len=600), tuple(queries[: self._max_queries])
            )

        return ask_json(self._chat, judge_messages(question, hits), JUDGE_SCHEMA, parse, max_tokens=160)
