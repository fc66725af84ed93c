"""Typed values ↔ JSON, for what the app keeps on disk (stored conversations).

A dataclass of ``kimas_desktop`` or of ``app.chat.conversation`` is written as ``{"@": "module.Class",
field: value, ...}``; tuples as ``{"@t": [...]}`` (frozen dataclasses hold tuples, and must read back
equal); mappings as ``{"@m": [[key, value], ...]}`` (keys need not be strings); a non-finite float as
``{"@f": "-inf"}`` (JSON has none). Reading rebuilds only dataclasses defined there (never an arbitrary
import), ignores fields the class no longer has and lets fields it gained since take their defaults: that
is how a record written by an older version still reads. A class that moved since is found through
``RENAMED`` (the old ``module.Class`` → where it lives now).

``DROP`` lists fields not worth keeping (a hit's stored embedding). A trace is kept capped: each text of
its own (the question as asked, the rewritten query, the agents' and the stages' queries and notes) is cut
to ``TRACE_TEXT_CHARS`` characters, so a trace no longer grows with its question (the turn keeps the
question whole); its evidence (passages and their files) stays whole, each passage bounded by the
indexer's chunk size.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
from typing import Any

from kimas_desktop.errors import KimasError
from kimas_desktop.trace import Trace

__all__ = ["RecordError", "dumps", "loads"]

DROP = {("kimas_desktop.types", "Hit", "vector")}
TRACE_TEXT_CHARS = 400
_CAPPED = (Trace.__module__, Trace.__qualname__)  # a trace stored as kimas_desktop.trace.Trace reads too
_WHOLE = {(*_CAPPED, "evidence")}
_HOMES = ("kimas_desktop", "app.chat.conversation")

# Where the record types written by earlier releases live now (issue 22 moved the core into stage folders
# and the conversation into the application layer; issue 41 moved it into ``app/chat/``). Keep every
# entry: old files must keep opening.
RENAMED = {
    "kimas_desktop.conversation.Turn": "app.chat.conversation.Turn",
    "app.conversation.Turn": "app.chat.conversation.Turn",
    "kimas_desktop.quote.Quote": "kimas_desktop.types.Quote",
    "kimas_desktop.support.SentenceSupport": "kimas_desktop.types.SentenceSupport",
    "kimas_desktop.answerability.Answerability": "kimas_desktop.types.Answerability",
    "kimas_desktop.answerability.Evidence": "kimas_desktop.types.Evidence",
}


class RecordError(KimasError):
    """A stored record cannot be read back."""


def _encode(value: Any, cap: int | None = None) -> Any:
    """``value`` as JSON values; with ``cap``, each text cut to that many characters (inside a trace)."""
    if isinstance(value, str):
        return value if cap is None or len(value) <= cap else value[: cap - 1] + "…"
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"@f": str(value)}  # JSON has no inf/nan
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        kind = (cls.__module__, cls.__qualname__)
        inner = TRACE_TEXT_CHARS if kind == _CAPPED else cap
        out: dict[str, Any] = {"@": f"{cls.__module__}.{cls.__qualname__}"}
        for f in dataclasses.fields(value):
            if f.init and (*kind, f.name) not in DROP:
                out[f.name] = _encode(getattr(value, f.name), None if (*kind, f.name) in _WHOLE else inner)
        return out
    if isinstance(value, tuple):
        return {"@t": [_encode(v, cap) for v in value]}
    if isinstance(value, list):
        return [_encode(v, cap) for v in value]
    if isinstance(value, dict):
        return {"@m": [[_encode(k, cap), _encode(v, cap)] for k, v in value.items()]}
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item):
        return _encode(item(), cap)
    return str(value)


def _record_class(tag: str) -> type:
    module, _, name = RENAMED.get(tag, tag).rpartition(".")
    if not any(module == home or module.startswith(home + ".") for home in _HOMES):
        raise RecordError(f"a stored record names a type outside {', '.join(_HOMES)}: {tag}")
    try:
        cls = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as err:
        raise RecordError(f"a stored record names a type this version does not have: {tag}") from err
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise RecordError(f"a stored record names something that is not a record type: {tag}")
    return cls


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "@f" in value:
        return float(value["@f"])
    if "@t" in value:
        return tuple(_decode(v) for v in value["@t"])
    if "@m" in value:
        return {_hashable(_decode(k)): _decode(v) for k, v in value["@m"]}
    if "@" not in value:
        raise RecordError(f"a stored value is not a record: {str(value)[:80]}")
    cls = _record_class(str(value["@"]))
    known = {f.name for f in dataclasses.fields(cls) if f.init}
    kwargs = {k: _decode(v) for k, v in value.items() if k in known}
    try:
        return cls(**kwargs)
    except TypeError as err:  # a field this version requires is missing
        raise RecordError(f"a stored {cls.__name__} cannot be read: {err}") from err


def _hashable(key: Any) -> Any:
    return tuple(key) if isinstance(key, list) else key


def dumps(value: Any) -> str:
    return json.dumps(_encode(value), ensure_ascii=False, separators=(",", ":"))


def loads(text: str) -> Any:
    try:
        data = json.loads(text)
    except ValueError as err:
        raise RecordError(f"a stored record is not valid JSON: {err}") from err
    return _decode(data)
