"""What an action of the UI returns (``ActionResult``), how an action becomes one (``attempt``), what the
app says without words (``Said``: a code and its values, which the UI words in the page's language), and
the models' loading state (``ModelState``).

``ActionResult`` is the app's word for "how a button press went"; the answer's ``Outcome``
(``kimas_desktop.answer.outcome``) is another thing: how a question was answered."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from app.knowledge.indexing import describe_damage
from kimas_desktop.errors import IndexDamagedError, KimasError

__all__ = ["ActionResult", "ModelState", "Said", "attempt", "explained", "explained_said"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Said:
    """A sentence of the app as a ``code`` and its ``values`` (the UI's table, ``ui.words``, holds the
    sentence in each language), with ``english``: the same sentence for the log, the CLI and a UI that
    does not know the code."""

    english: str
    code: str
    values: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class ActionResult:
    ok: bool
    message: str  # English
    said: Said | None = None  # the message as a code, when the app gives one


def _result(ok: bool, message: str | Said) -> ActionResult:
    if isinstance(message, Said):
        return ActionResult(ok, message.english, message)
    return ActionResult(ok, message)


@dataclass(frozen=True)
class ModelState:
    phase: Literal["loading", "ready", "failed"]
    message: str  # English
    said: Said | None = None  # the message as a code (its values may be a ``Config``: the models named)


def attempt(
    explain: Callable[[BaseException, str], str | Said], doing: str, action: Callable[[], str | Said]
) -> ActionResult:
    """Run ``action``: its sentence when it works, else ``explain``'s sentence for the error (which logs it),
    with a code when it gives one (``explained_said``; a ``KimasError``'s own ``code``)."""
    try:
        return _result(True, action())
    except Exception as err:
        said = explain(err, doing)
        if isinstance(said, Said):
            return ActionResult(False, said.english, said if said.code else None)
        if isinstance(err, KimasError) and err.code and said == str(err):
            return ActionResult(False, said, Said(said, err.code, err.values))
        return ActionResult(False, said)


def explained_said(
    err: BaseException, doing: str, *, repair: Callable[[str], object], log_file: Path
) -> Said:
    """The sentence the UI shows for ``err`` while ``doing``, logged, with its code ("" : none): a damaged
    index is ``repair``-ed now (not left to the user), a ``KimasError`` is its sentence (and its code),
    anything else is "unexpected" and points at ``log_file``."""
    if isinstance(err, IndexDamagedError) and err.collection:
        log.warning("%s: %s", doing, err)
        repair(err.collection)
        return Said(describe_damage(err), "")
    if isinstance(err, KimasError):  # expected: the sentence is enough on screen, details in the log
        log.info("%s: %s", doing, err, exc_info=err)
        return Said(str(err), err.code, err.values)
    log.error("%s failed unexpectedly", doing, exc_info=err)
    error = f"{type(err).__name__}: {err}"
    english = f"Something went wrong while {doing} ({error}). Details are in {log_file}."
    return Said(english, "unexpected", {"doing": doing, "error": error, "log": log_file})


def explained(err: BaseException, doing: str, *, repair: Callable[[str], object], log_file: Path) -> str:
    """``explained_said``'s English sentence."""
    return explained_said(err, doing, repair=repair, log_file=log_file).english
