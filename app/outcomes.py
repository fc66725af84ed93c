"""What an action of the UI returns (``ActionResult``), how an action becomes one (``attempt``), and the
models' loading state (``ModelState``).

``ActionResult`` is the app's word for "how a button press went"; the answer's ``Outcome``
(``kimas_desktop.answer.outcome``) is another thing: how a question was answered."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

__all__ = ["ActionResult", "ModelState", "attempt"]


@dataclass(frozen=True)
class ActionResult:
    ok: bool
    message: str


@dataclass(frozen=True)
class ModelState:
    phase: Literal["loading", "ready", "failed"]
    message: str


def attempt(
    explain: Callable[[BaseException, str], str], doing: str, action: Callable[[], str]
) -> ActionResult:
    """Run ``action``: its sentence when it works, else ``explain``'s sentence for the error (which logs it)."""
    try:
        return ActionResult(True, action())
    except Exception as err:
        return ActionResult(False, explain(err, doing))
