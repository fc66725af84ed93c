"""``Trace``: how an answer was made, as typed stage records (the UI and the CLI render them without
guessing at keys). The pipeline fills a ``TraceBuilder``; what leaves it (``TraceReady``, a retrieval
result) is a frozen ``Trace`` snapshot, so a reader never sees a record that is still growing.

Each record is a frozen dataclass with the stage's time in ``ms`` and a ``stage`` name (the key of
``Trace.timings_ms`` and of ``kimas ask --json``'s ``trace.stages[*].stage``). A stage that runs twice
(``pack`` after the agentic round) adds a record each time; ``Trace.find`` gives the first. A sentence a
record holds (``HopStage.why``, ``RewriteStage.reason``, …) is English, with its ``Reason`` (a code and
plain values, for the UI to say in the page's language) beside it in ``<field>_said``.

The roles: ``stages`` (the records), ``reasons`` (``Reason``), ``snapshot`` (``Trace``, ``TraceBuilder``).
"""

from kimas_desktop.trace.reasons import Reason, ReasonValue
from kimas_desktop.trace.snapshot import Trace, TraceBuilder
from kimas_desktop.trace.stages import (
    AgenticStage,
    AnswerCheckStage,
    AnswerStage,
    BudgetStage,
    CitationsStage,
    ComputeStage,
    ContextStage,
    DecisionStage,
    DocumentStage,
    FirstTokenStage,
    HopStage,
    OnlineStage,
    PackStage,
    QuoteStage,
    ReembedStage,
    RerankStage,
    RetrieveErrorStage,
    RetrieveStage,
    RewriteStage,
    RouteStage,
    StageRecord,
    SupportStage,
    TotalStage,
    stage_fields,
)

__all__ = [
    "AgenticStage",
    "AnswerCheckStage",
    "AnswerStage",
    "BudgetStage",
    "CitationsStage",
    "ComputeStage",
    "ContextStage",
    "DecisionStage",
    "DocumentStage",
    "FirstTokenStage",
    "HopStage",
    "OnlineStage",
    "PackStage",
    "QuoteStage",
    "Reason",
    "ReasonValue",
    "ReembedStage",
    "RerankStage",
    "RetrieveErrorStage",
    "RetrieveStage",
    "RewriteStage",
    "RouteStage",
    "StageRecord",
    "SupportStage",
    "TotalStage",
    "Trace",
    "TraceBuilder",
    "stage_fields",
]
