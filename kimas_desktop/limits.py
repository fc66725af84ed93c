"""What one request may ask of the app, checked before any work: the same ``[limits]`` (``LimitsConfig``)
whichever way the request comes in (the Chat tab, the OpenAI-compatible API, MCP over HTTP and on stdio).

Characters are counted first, for free; tokens only for a text within its character limit, so counting
never reads more than that allows. A text whose UTF-8 bytes cannot exceed the token limit is not counted
at all (a token covers at least one byte in byte-level, WordPiece and SentencePiece tokenizers, and a
SentencePiece text may gain one word-start piece): a short question never waits for the chat model.
A request over a limit is refused with ``OverLimitError``, whose sentence names the limit and its setting.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from kimas_desktop.errors import OverLimitError
from kimas_desktop.types import Message

__all__ = ["MESSAGE_BYTES", "LimitsConfig", "check_embedding_inputs", "check_history", "check_question"]

# One message, checked before it is read: an HTTP request body to the API (413, ``ui.server.api_server``)
# and a line of MCP on stdio (a JSON-RPC error, ``app.tools.mcp_stdio``). A question within question_chars
# is under 50 KB however its characters are written; a conversation within history_chars under 3.2 MB.
MESSAGE_BYTES = 4_000_000


class LimitsConfig(BaseModel):
    """What one request may ask of the app, the same whichever way it comes in (the Chat tab, the
    OpenAI-compatible API, MCP over HTTP and on stdio), checked before any work (below).
    Characters are checked first; tokens (the chat model's, the embedder's for embeddings) only then. The
    ``[limits]`` section of ``Config`` (``kimas_desktop.config``), kept here beside its checks."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # A question: 1,024 chat-model tokens leave room in the default 4,096-token window for the evidence
    # (summarizer.context_tokens) and the answer (max_answer_tokens); 4,000 characters are ~1,000 English
    # tokens (a Chinese character is about one token: the token limit comes first there).
    question_chars: int = Field(4000, ge=1)
    question_tokens: int = Field(1024, ge=16)
    # The conversation an API client sends before its question (the app reads its last context.history_turns
    # turns; a chat front end sends all of them).
    history_messages: int = Field(256, ge=0)
    history_chars: int = Field(262_144, ge=0)
    history_tokens: int = Field(65_536, ge=0)
    # /v1/embeddings: inputs and their text per request (OpenAI's own limits: 2,048 inputs, 300,000 tokens),
    # embedded this many at a time so the app's memory stays flat.
    embedding_inputs: int = Field(2048, ge=1)
    embedding_chars: int = Field(1_000_000, ge=1)
    embedding_tokens: int = Field(300_000, ge=1)
    embedding_batch: int = Field(64, ge=1)


Count = Callable[[str], int]


def _refuse(what: str, size: int, limit: int, unit: str, setting: str) -> OverLimitError:
    return OverLimitError(
        f"{what} has {size:,} {unit}; the limit is {limit:,} ([limits] {setting} in config.toml).",
        setting,
        size,
        limit,
    )


def _tokens(text: str, limit: int, count: Count) -> int | None:
    """``text``'s tokens, or None when its bytes show it is within ``limit`` without counting."""
    if len(text.encode("utf-8")) + 1 <= limit:
        return None
    return count(text)


def check_question(question: str, limits: LimitsConfig, count_tokens: Count) -> None:
    """Refuse ``question`` over ``question_chars`` or (in the chat model's ``count_tokens``)
    ``question_tokens``."""
    if len(question) > limits.question_chars:
        raise _refuse("The question", len(question), limits.question_chars, "characters", "question_chars")
    tokens = _tokens(question, limits.question_tokens, count_tokens)
    if tokens is not None and tokens > limits.question_tokens:
        raise _refuse("The question", tokens, limits.question_tokens, "tokens", "question_tokens")


def check_history(history: Sequence[Message], limits: LimitsConfig, count_tokens: Count) -> None:
    """Refuse a conversation (the messages before the question) over ``history_messages``,
    ``history_chars`` or ``history_tokens`` (all its messages together, in the chat model's tokens)."""
    what = "The conversation before the question"
    if len(history) > limits.history_messages:
        raise _refuse(what, len(history), limits.history_messages, "messages", "history_messages")
    chars = sum(len(m.content) for m in history)
    if chars > limits.history_chars:
        raise _refuse(what, chars, limits.history_chars, "characters", "history_chars")
    tokens = _tokens("\n".join(m.content for m in history), limits.history_tokens, count_tokens)
    if tokens is not None and tokens > limits.history_tokens:
        raise _refuse(what, tokens, limits.history_tokens, "tokens", "history_tokens")


def check_embedding_inputs(texts: Sequence[str], limits: LimitsConfig, count_tokens: Count) -> int:
    """Refuse texts to embed over ``embedding_inputs``, ``embedding_chars`` or (in the embedder's
    ``count_tokens``) ``embedding_tokens``, all inputs together; their tokens when within."""
    if len(texts) > limits.embedding_inputs:
        raise _refuse("The input", len(texts), limits.embedding_inputs, "texts", "embedding_inputs")
    chars = sum(len(t) for t in texts)
    if chars > limits.embedding_chars:
        raise _refuse("The input", chars, limits.embedding_chars, "characters", "embedding_chars")
    tokens = sum(count_tokens(t) for t in texts)
    if tokens > limits.embedding_tokens:
        raise _refuse("The input", tokens, limits.embedding_tokens, "tokens", "embedding_tokens")
    return tokens
