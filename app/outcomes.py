"""What an action of the UI returns (``Outcome``), and the models' loading state (``ModelState``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["ModelState", "Outcome"]


@dataclass(frozen=True)
class Outcome:
    ok: bool
    message: str


@dataclass(frozen=True)
class ModelState:
    phase: Literal["loading", "ready", "failed"]
    message: str
