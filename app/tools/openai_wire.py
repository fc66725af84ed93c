"""The OpenAI wire format of ``/v1``: the requests it reads and the JSON it answers with.

An answer's citations come **both** ways: as numbered sources at the end of the content (``SOURCES_HEAD``
then one ``[n] file, p. 3`` line each, matching the ``[n]`` marks of the text, numbered as a reader meets
them), which any chat front end shows, and as a ``sources`` field (each a ``CitedPassage``: number, cited
words, passage with its file, page or lines, text and id) beside ``choices``, for a client that reads
them. A streamed answer sends
``sources`` with its last chunk. ``decision`` says how the answer ended (answered, declined, nothing found).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from app.tools.results import CitedPassage, Passage
from kimas_desktop.answer.writing.markers import insert_markers, place_markers
from kimas_desktop.answer.writing.reading_order import StreamNumbering, in_reading_order
from kimas_desktop.errors import KimasError
from kimas_desktop.events import AnswerDelta, CitationsReady, Done, Event, QuoteReady, SupportReady
from kimas_desktop.types import Citation, Message, Quote, Role, SentenceSupport

__all__ = [
    "SOURCES_HEAD",
    "BadRequest",
    "ChatRequest",
    "EmbeddingRequest",
    "Reply",
    "chunk",
    "completion",
    "conversation",
    "embeddings",
    "sources_block",
]

SOURCES_HEAD = "\n\nSources:\n"
_TURNS: dict[str, Role] = {"user": "user", "assistant": "assistant"}


class BadRequest(KimasError):
    """A request the API cannot answer as sent (the sentence says why)."""


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")  # OpenAI clients send more settings than these


class ContentPart(_Lenient):
    type: str
    text: str = ""


class ChatMessage(_Lenient):
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[ContentPart] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):
            return "\n".join(p.text for p in self.content if p.type == "text")
        return self.content or ""


class ChatRequest(_Lenient):
    model: str
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    temperature: float | None = Field(None, ge=0)


class EmbeddingRequest(_Lenient):
    model: str
    input: str | list[str]
    encoding_format: Literal["float", "base64"] = "float"


def conversation(messages: Sequence[ChatMessage]) -> tuple[str, list[Message]]:
    """The question (the last message, the user's) and the conversation's turns before it, as the context
    manager sees them (as in the Chat tab: the user's and the assistant's messages). Left out: an earlier
    answer's sources block (this API's own), system and developer messages (the answer's instructions are
    the pipeline's own, as in the app) and tool calls."""
    turns = [Message(_TURNS[m.role], _without_sources(m.text())) for m in messages if m.role in _TURNS]
    if not messages or messages[-1].role != "user" or not turns[-1].content.strip():
        raise BadRequest("the last message must be the user's question")
    return turns[-1].content, turns[:-1]


def _without_sources(text: str) -> str:
    body, head, _ = text.rpartition(SOURCES_HEAD)
    return body if head else text


def cited(c: Citation) -> CitedPassage:
    return CitedPassage(c.n, c.sentence or c.snippet, Passage.of(c.chunk))


def _where(p: Passage) -> str:
    if p.page:
        return f", p. {p.page}"
    return f", lines {p.lines[0]}-{p.lines[-1]}" if p.lines else ""


def sources_block(sources: Sequence[CitedPassage]) -> str:
    """The numbered sources that end an answer's content ("" when it has none)."""
    lines = [f"[{s.n}] {s.passage.file}{_where(s.passage)}" for s in sources]
    return SOURCES_HEAD + "\n".join(lines) if lines else ""


@dataclass
class Reply:
    """What the events of one answer add up to. Its sources are numbered 1, 2, … in the order a reader of
    the content meets them, as the chat numbers them (``reading_order``, issue 69; the content shows no
    quote above the answer, so its markers come first): ``sources`` holds them in the numbers of the text
    ``content`` or ``tail`` gave last."""

    streamed: list[str] = field(default_factory=list)
    sources: list[CitedPassage] = field(default_factory=list)
    citations: tuple[Citation, ...] = ()
    quotes: tuple[Quote, ...] = ()
    support: tuple[SentenceSupport, ...] = ()
    final: str | None = None
    decision: str = "stopped"
    numbering: StreamNumbering = field(default_factory=lambda: StreamNumbering(quote_first=False))

    def take(self, event: Event) -> str:
        """Note ``event``; the text it adds to a streamed answer ("" for none), its markers renumbered."""
        if isinstance(event, AnswerDelta):
            self.streamed.append(event.text)
            return self.numbering.add(event.text)
        if isinstance(event, QuoteReady):
            self.quotes = event.quotes
            self.numbering.quoted(event.quotes)
        elif isinstance(event, CitationsReady):
            self.citations = event.citations
            self.sources = [cited(c) for c in event.citations]
        elif isinstance(event, SupportReady):
            self.support = event.sentences
        elif isinstance(event, Done):
            self.final, self.decision = event.answer, event.outcome.kind
        return ""

    def tail(self) -> str:
        """What a stream still owes once the answer is done: the rest of the final text (or all of it,
        after a break, when the final text is not what streamed: an answer set aside for the quote), then
        the numbered sources (those its markers named first, by the numbers they were sent with)."""
        rest, order = self.numbering.end(self.final, (), self.citations)
        self.sources = [cited(c) for c in order.citations]
        return rest + sources_block(self.sources)

    def content(self) -> str:
        """The whole answer: an ``[n]`` after each sentence source n backs (the support check's), then the
        numbered sources. (A stream cannot go back to mark what it sent: its text is as written.)"""
        text = "".join(self.streamed) if self.final is None else self.final
        order = in_reading_order(text, self.support, self.citations, self.quotes, quote_first=False)
        markers = place_markers(order.answer, order.support, {c.n for c in order.citations})
        self.sources = [cited(c) for c in order.citations]
        return insert_markers(order.answer, markers, lambda n: f" [{n}]") + sources_block(self.sources)


def completion(
    id: str, model: str, created: int, content: str, sources: Sequence[CitedPassage], decision: str
) -> dict[str, Any]:
    """A whole ``chat.completion``."""
    message = {"role": "assistant", "content": content}
    return {
        "id": id, "object": "chat.completion", "created": created, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
        "sources": [asdict(s) for s in sources], "decision": decision,
    }  # fmt: skip


def chunk(
    id: str,
    model: str,
    created: int,
    delta: dict[str, str],
    end: tuple[Sequence[CitedPassage], str] | None = None,
) -> dict[str, Any]:
    """One ``chat.completion.chunk``; the last (``end``: the sources and the decision) finishes it."""
    choice = {"index": 0, "delta": delta, "finish_reason": "stop" if end else None, "logprobs": None}
    out = {
        "id": id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": [choice],
    }
    if end is not None:
        out["sources"], out["decision"] = [asdict(s) for s in end[0]], end[1]
    return out


def embeddings(
    batches: Iterable[Any], model: str, encoding: Literal["float", "base64"], tokens: int = 0
) -> bytes:
    """The ``/v1/embeddings`` answer as JSON: one unit vector per input, as floats or base64 of float32.
    Each batch of vectors is written out as it comes (the caller embeds batch by batch), so no more than one
    batch is held as numbers; ``tokens``: the inputs' tokens, for ``usage``."""
    items: list[bytes] = []
    for batch in batches:
        for row in np.asarray(batch, dtype="<f4"):
            item = {"object": "embedding", "index": len(items), "embedding": _encoded(row, encoding)}
            items.append(json.dumps(item).encode())
    usage = json.dumps({"prompt_tokens": tokens, "total_tokens": tokens})
    head = b'{"object": "list", "data": ['
    tail = f'], "model": {json.dumps(model)}, "usage": {usage}}}'.encode()
    return head + b", ".join(items) + tail


def _encoded(row: Any, encoding: Literal["float", "base64"]) -> list[float] | str:
    if encoding == "base64":
        return base64.b64encode(row.tobytes()).decode("ascii")
    floats: list[float] = row.tolist()
    return floats
