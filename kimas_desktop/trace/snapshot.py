"""``Trace``: how an answer was made, every stage's record in order (``stages``). The pipeline fills a
``TraceBuilder``; what leaves it (``TraceReady``, a retrieval result) is a frozen ``Trace`` snapshot, so a
reader never sees a record that is still growing."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from kimas_desktop.trace.stages import StageRecord
from kimas_desktop.types import Hit, Route

__all__ = ["Trace", "TraceBuilder"]

R = TypeVar("R", bound=StageRecord)


@dataclass(frozen=True)
class Trace:
    """How an answer was made: every stage's record, in order (a frozen snapshot)."""

    question: str = ""
    query: str = ""
    routes: tuple[Route, ...] = ()
    agent_queries: Mapping[str, tuple[str, ...]] = field(default_factory=dict, hash=False)
    evidence: tuple[Hit, ...] = ()
    stages: tuple[StageRecord, ...] = ()

    def __post_init__(self) -> None:
        # Records written before traces were frozen hold lists: read them back as tuples.
        for name in ("routes", "evidence", "stages"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "agent_queries", {k: tuple(v) for k, v in self.agent_queries.items()})

    def find(self, kind: type[R]) -> R | None:
        """The first record of ``kind`` (None: that stage did not run)."""
        for record in self.stages:
            if isinstance(record, kind):
                return record
        return None

    @property
    def timings_ms(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for s in self.stages:
            out[s.stage] = round(out.get(s.stage, 0.0) + s.ms, 1)
        return out


@dataclass
class TraceBuilder:
    """The trace while the pipeline makes an answer; ``snapshot()`` is what leaves the pipeline."""

    question: str = ""
    query: str = ""
    routes: list[Route] = field(default_factory=list)
    agent_queries: dict[str, tuple[str, ...]] = field(default_factory=dict)
    evidence: list[Hit] = field(default_factory=list)
    stages: list[StageRecord] = field(default_factory=list)

    def add(self, record: StageRecord) -> None:
        self.stages.append(record)

    def snapshot(self) -> Trace:
        return Trace(
            self.question,
            self.query,
            tuple(self.routes),
            dict(self.agent_queries),
            tuple(self.evidence),
            tuple(self.stages),
        )
