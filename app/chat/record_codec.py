"""Typed values ↔ JSON, for what the app keeps on disk (stored conversations).

A dataclass of ``kimas_desktop`` or of ``app.chat.conversation`` is written as ``{"@": "module.Class",
field: value, ...}``; tuples as ``{"@t": [...]}`` (frozen dataclasses hold tuples, and must read back
equal); mappings as ``{"@m": [[key, value], ...]}`` (keys need not be strings); a non-finite float as
``{"@f": "-inf"}`` (JSON has none). Reading rebuilds only dataclasses defined there (never an arbitrary
import), ignores fields the class no longer has and lets fields it gained since take their defaults: that
is how a record written by an older version still reads. A class that moved since is found through
``RENAMED`` (the old ``module.Class`` → where it lives now).

``DROP`` lists fields not worth keeping (a hit's stored embedding).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
from typing import Any

from kimas_desktop.errors import KimasError

__all__ = ["RecordError", "dumps", "loads"]

DROP = {("kimas_desktop.types", "Hit", "vector")}
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


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, bool | str | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"@f": str(value)}  # JSON has no inf/nan
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        out: dict[str, Any] = {"@": f"{cls.__module__}.{cls.__qualname__}"}
        for f in dataclasses.fields(value):
            if f.init and (cls.__module__, cls.__qualname__, f.name) not in DROP:
                out[f.name] = _encode(getattr(value, f.name))
        return out
    if isinstance(value, tuple):
        return {"@t": [_encode(v) for v in value]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {"@m": [[_encode(k), _encode(v)] for k, v in value.items()]}
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item):
        return _encode(item())
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
