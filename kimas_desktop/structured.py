"""JSON-schema constrained LLM calls, parsed and validated (no magic strings parsed from replies)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from kimas_desktop.errors import StructuredOutputError
from kimas_desktop.protocols import ChatModel
from kimas_desktop.types import Message

__all__ = ["ask_json", "int_list_field", "string_field"]

T = TypeVar("T")


def ask_json(
    chat: ChatModel,
    messages: Sequence[Message],
    schema: Mapping[str, Any],
    parse: Callable[[dict[str, Any]], T],
    *,
    max_tokens: int = 256,
) -> T:
    """Ask for JSON matching ``schema`` and turn it into ``T`` with ``parse``.

    Raises StructuredOutputError when the reply is not a JSON object or ``parse`` rejects it
    (``parse`` raises ValueError/KeyError/TypeError for invalid content).
    """
    raw = chat.complete(messages, max_tokens=max_tokens, temperature=0.0, json_schema=schema)
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as err:
        raise StructuredOutputError(f"model reply is not JSON: {raw[:200]!r}") from err
    if not isinstance(data, dict):
        raise StructuredOutputError(f"model reply is not a JSON object: {raw[:200]!r}")
    try:
        return parse(data)
    except (ValueError, KeyError, TypeError) as err:
        raise StructuredOutputError(f"model reply does not fit the schema: {err}") from err


def string_field(data: Mapping[str, Any], key: str, *, max_len: int = 2000) -> str:
    value = data[key]
    if not isinstance(value, str):
        raise TypeError(f"{key} must be a string")
    value = " ".join(value.split())
    if len(value) > max_len:
        raise ValueError(f"{key} is too long")
    return value


def int_list_field(data: Mapping[str, Any], key: str) -> list[int]:
    value = data[key]
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise TypeError(f"{key} must be a list of integers")
    return list(value)
