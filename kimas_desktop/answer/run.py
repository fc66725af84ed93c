"""One answer in the making: the typed state that the steps of ``Pipeline.ask`` hand each other.

``Run`` is created by ``Pipeline.ask`` and passed to each step in turn (the turn search, the decider, the
evidence planner, the writer); each step writes its own trace records into ``Run.trace``. ``LlmStages``
holds the stages that call the chat model, all bound to the one chat of this answer (cancellable).
"""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Callable
from dataclasses import dataclass, field

from kimas_desktop.answer.policy import AnswerPolicy
from kimas_desktop.answer.signals.agentic import SufficiencyJudge
from kimas_desktop.answer.signals.compare import Computed
from kimas_desktop.answer.signals.verify import AnswerCheck
from kimas_desktop.answer.tables.answer import TableAnswer
from kimas_desktop.answer.writing.summarizer import Summarizer
from kimas_desktop.clock import Clock
from kimas_desktop.context.manager import ContextAnalysis, ContextAnalyzer, QueryContextualizer
from kimas_desktop.control import CancelToken
from kimas_desktop.protocols import ChatModel
from kimas_desktop.retrieval.documents import DocumentFocus
from kimas_desktop.trace import TraceBuilder
from kimas_desktop.types import ChatModelDescription, Hit, Message

__all__ = ["AnalysisJob", "AskOptions", "LlmStages", "PackedEvidence", "Run"]


@dataclass(frozen=True)
class AskOptions:
    """What one answer asks for, beyond the pipeline's config."""

    temperature: float | None = None  # sample the answer warmer (Regenerate), else the configured one
    try_anyway: bool = False  # let the model answer even when the evidence was judged not to
    sources: tuple[str, ...] = ()  # online sources the user asks for this question (beyond their `use`)


@dataclass(frozen=True)
class PackedEvidence:
    """The filter's hits packed into the answer prompt's budget, numbered [1]… in this order."""

    hits: tuple[Hit, ...]
    tokens: int
    budget: int
    related: tuple[Message, ...]  # the earlier messages the summarizer sees


@dataclass(frozen=True)
class LlmStages:
    """The stages that call the chat model, all bound to one chat (cancellable for one answer).
    ``described``: the chat model's one description (whether it judges evidence, whether it writes),
    asked of the model once per pipeline (``Pipeline.describe_chat``; the first asking loads it)."""

    chat: ChatModel
    contextualizer: QueryContextualizer
    analyzer: ContextAnalyzer
    summarizer: Summarizer
    judge: SufficiencyJudge
    checker: AnswerCheck
    described: Callable[[], ChatModelDescription]


@dataclass
class AnalysisJob:
    """The context analysis in progress, and what it found once collected."""

    future: cf.Future[ContextAnalysis]
    clock: Clock
    done: ContextAnalysis | None = None


@dataclass
class Run:
    """One answer in the making."""

    question: str
    history: list[Message]
    stages: LlmStages
    options: AskOptions
    cancel: CancelToken | None = None
    clock: Clock = field(default_factory=Clock)
    trace: TraceBuilder = field(default_factory=TraceBuilder)
    checked: bool = False  # the chat model's check read the sources first (its state is in the cache)
    prompt_tokens: int = 0  # the answer prompt's, as planned
    computed: Computed | None = None  # a comparison the evidence answers in code
    table: TableAnswer | None = None  # a question computed over a table of the evidence's files
    focus: DocumentFocus | None = None  # a question about a whole document or one of its chapters
    analysis: AnalysisJob | None = None  # the context analysis, running until the answer prompt needs it
    policy: AnswerPolicy | None = None  # made at the first decision (knowing the chat model loads it)
