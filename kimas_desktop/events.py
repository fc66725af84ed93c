"""What the pipeline yields while it answers. Only ``ui/`` and ``cli/`` turn these into output."""

from __future__ import annotations

from dataclasses import dataclass, field

from kimas_desktop.types import Citation, Hit, Route, StageTrace


@dataclass(frozen=True)
class Status:
    """A stage started (for 'routing…', 'searching 2 collections…')."""

    stage: str
    message: str


@dataclass(frozen=True)
class AnswerDelta:
    text: str


@dataclass(frozen=True)
class CitationsReady:
    citations: tuple[Citation, ...]
    available: bool = True  # False: the look-back step failed; the answer stands without citations
    note: str = ""


@dataclass
class Trace:
    """How an answer was made: every stage's record, in order. Mutable only while the pipeline runs."""

    question: str = ""
    query: str = ""
    routes: list[Route] = field(default_factory=list)
    agent_queries: dict[str, list[str]] = field(default_factory=dict)
    evidence: list[Hit] = field(default_factory=list)
    stages: list[StageTrace] = field(default_factory=list)

    def add(self, stage: str, ms: float, **detail: object) -> None:
        self.stages.append(StageTrace(stage=stage, ms=ms, detail=dict(detail)))

    @property
    def timings_ms(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for s in self.stages:
            out[s.stage] = round(out.get(s.stage, 0.0) + s.ms, 1)
        return out

    def detail(self, stage: str) -> dict[str, object]:
        for s in self.stages:
            if s.stage == stage:
                return s.detail
        return {}


@dataclass(frozen=True)
class TraceReady:
    trace: Trace


@dataclass(frozen=True)
class Done:
    answer: str
    answered_from_sources: bool = True


Event = Status | AnswerDelta | CitationsReady | TraceReady | Done
