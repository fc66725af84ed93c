"""The trace's stage records, one frozen dataclass per stage (``kimas_desktop.trace`` says how they are
read). A sentence a record holds is English; ``<field>_said`` is the same sentence as a ``Reason`` (a code
and plain values) that the UI says in the page's language; a record stored before it had one has None.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from kimas_desktop.trace.reasons import Reason

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
    "ReembedStage",
    "RerankStage",
    "RetrieveErrorStage",
    "RetrieveStage",
    "RewriteStage",
    "RouteStage",
    "StageRecord",
    "SupportStage",
    "TotalStage",
    "stage_fields",
]


@dataclass(frozen=True)
class RewriteStage:
    """The context manager's rewrite of the question into a standalone search query."""

    stage: ClassVar[str] = "rewrite"
    ms: float
    method: str
    query: str
    note: str = ""  # why it fell back, when it did
    depends: str = "self-contained"  # the turn's decision: self-contained, topic or previous
    turns: tuple[int, ...] = ()  # the earlier messages it used (indices into the history)
    reason: str = ""  # why the decision was taken
    earlier: tuple[str, ...] = ()  # the earlier questions among those messages, as the user asked them
    also_as_asked: bool = False  # a follow-up: the question as asked was searched too, and the two fused
    within: tuple[str, ...] = ()  # the files of the conversation's answers, also searched as asked
    reason_said: Reason | None = None  # ``reason`` as a code
    note_said: Reason | None = None  # ``note`` as a code


@dataclass(frozen=True)
class RouteStage:
    """The router's scores, on the question (``route``) or again on the rewritten query (``reroute``)."""

    ms: float
    on: Literal["question", "query"]
    scores: Mapping[str, float] = field(default_factory=dict, hash=False)

    @property
    def stage(self) -> str:
        return "route" if self.on == "question" else "reroute"


@dataclass(frozen=True)
class ReembedStage:
    """Collections built with another embedding model than the configured one: routed by their words
    only, and their search fails until they are re-embedded (``kimas reindex``, or Re-embed)."""

    stage: ClassVar[str] = "needs_reembedding"
    ms: float
    collections: tuple[str, ...]


@dataclass(frozen=True)
class RetrieveStage:
    stage: ClassVar[str] = "retrieve"
    ms: float
    agents: Mapping[str, float] = field(default_factory=dict, hash=False)  # ms per collection's agent


@dataclass(frozen=True)
class RetrieveErrorStage:
    stage: ClassVar[str] = "retrieve_error"
    ms: float
    collection: str
    error: str


@dataclass(frozen=True)
class ContextStage:
    """The context manager's analysis: which earlier messages the answer needs."""

    stage: ClassVar[str] = "context_analysis"
    ms: float
    method: str
    analysis: str
    related: tuple[int, ...]


@dataclass(frozen=True)
class RerankStage:
    stage: ClassVar[str] = "rerank"
    ms: float
    candidates: int
    kept: int


@dataclass(frozen=True)
class PackStage:
    stage: ClassVar[str] = "pack"
    ms: float
    sources: int
    tokens: int
    budget: int | None = None
    round: int = 1  # 2: packed again after the agentic round; 3: made room for the key sentences


@dataclass(frozen=True)
class HopStage:
    """One hop of the multi-hop retrieval (``retrieval/hops.py``): the bridge ``query`` of ``round`` and
    the passages it added (chunk ids); a record with round 0 says why no (further) hop was made."""

    stage: ClassVar[str] = "hop"
    ms: float
    round: int
    query: str = ""
    added: tuple[str, ...] = ()
    why: str = ""
    why_said: Reason | None = None


@dataclass(frozen=True)
class DocumentStage:
    """A question about a whole document or one of its chapters (``retrieval/documents.py``): the
    document, the chapter's heading (empty for the whole document), and why."""

    stage: ClassVar[str] = "document"
    ms: float
    source: str
    section: str = ""
    passages: int = 0  # the chapter's passages put first (the card is one passage)
    why: str = ""
    why_said: Reason | None = None


@dataclass(frozen=True)
class ComputeStage:
    """A comparison answered in code (``answer/signals/compare.py``): the two things, the values read from the
    sources numbered ``sources``, and the order asked for."""

    stage: ClassVar[str] = "compute"
    ms: float
    order: str
    items: tuple[str, ...]
    values: tuple[str, ...]
    sources: tuple[int, ...]


@dataclass(frozen=True)
class BudgetStage:
    """The answer prompt planned so the first word comes within ``target_s`` of the question
    (``answer/writing/budget.py``): ``allowed`` prompt tokens at the model's prompt speed (None: no limit), the
    ``prompt`` tokens given and the ``cut`` sources left out for time; ``over``: the quoted sources alone
    need more than the budget (they stay)."""

    stage: ClassVar[str] = "budget"
    ms: float
    target_s: float
    elapsed_s: float
    tokens_per_s: float | None
    speed_from: str
    allowed: int | None
    prompt: int
    sources: int
    cut: int = 0
    over: bool = False


@dataclass(frozen=True)
class AgenticStage:
    """The agentic round: the sufficiency verdict and a second search, or why there was none."""

    stage: ClassVar[str] = "agentic"
    ms: float
    is_sufficient: bool | None = None
    missing_info: str = ""
    queries: tuple[str, ...] = ()
    fused: int | None = None  # hits after fusing the second search with the first
    fallback: str = ""  # the step failed: the first search's evidence stands
    skipped: str = ""
    fallback_said: Reason | None = None
    skipped_said: Reason | None = None


@dataclass(frozen=True)
class OnlineStage:
    """An online source asked for this question: with which query, what came back, or why nothing did."""

    stage: ClassVar[str] = "online"
    ms: float
    source: str
    query: str = ""  # what left the machine ("" when it was not asked)
    why: str = ""  # "always", "local knowledge was weak", "you asked for it"
    results: int = 0
    pages_read: int = 0
    passages: int = 0
    error: str = ""  # unreachable, time limit, refused address: the local answer stands
    skipped: str = ""  # not asked, and why
    why_said: Reason | None = None
    error_said: Reason | None = None
    skipped_said: Reason | None = None


@dataclass(frozen=True)
class QuoteStage:
    """The grounded quote and the answerability decision, right after reranking."""

    stage: ClassVar[str] = "quote"
    ms: float
    at_ms: float  # since the question, when the quote was ready
    quotes: tuple[int, ...]
    answerable: bool
    score: float
    threshold: float
    idf: str


@dataclass(frozen=True)
class AnswerCheckStage:
    """The chat model's answerability judgement (None: it failed, see ``fallback``): ``words`` it copied
    from the sources as the answer, ``reason`` why they did not count."""

    stage: ClassVar[str] = "answer_check"
    ms: float
    answerable: bool | None = None
    fallback: str = ""
    words: str = ""
    reason: str = ""
    fallback_said: Reason | None = None
    reason_said: Reason | None = None


@dataclass(frozen=True)
class DecisionStage:
    """The answer policy's decision (``answer/policy.py``): answer or decline, and the rule that made it."""

    stage: ClassVar[str] = "decision"
    ms: float
    answer: bool
    rule: str
    lexical_score: float
    verdict: str = ""  # what the chat model's check found, when it was asked ("verified", "none"…)


@dataclass(frozen=True)
class FirstTokenStage:
    stage: ClassVar[str] = "first_token"
    ms: float  # since the question


@dataclass(frozen=True)
class AnswerStage:
    stage: ClassVar[str] = "answer"
    ms: float
    tokens: int
    stopped: str = ""  # why the stream guard ended the answer early
    model: str = ""  # the chat model that wrote it (its model_id)


@dataclass(frozen=True)
class CitationsStage:
    """The answer's citations; ``quoted``: the answer is the quote and no model wrote it, and why (a code
    ``quote_only`` or ``model_not_ready``; ``note`` says it in English). None: a model wrote the answer, or
    nothing was quoted as the answer (a decline, a value computed in code)."""

    stage: ClassVar[str] = "citations"
    ms: float
    cited: tuple[int, ...]
    note: str = ""
    quoted: Reason | None = None


@dataclass(frozen=True)
class SupportStage:
    stage: ClassVar[str] = "support"
    ms: float
    sentences: int
    unsupported: int
    uses_quote: bool | None = None
    set_aside: bool = False  # no sentence was backed: the quote took the model's answer's place


@dataclass(frozen=True)
class TotalStage:
    stage: ClassVar[str] = "total"
    ms: float


StageRecord = (
    RewriteStage
    | RouteStage
    | ReembedStage
    | RetrieveStage
    | RetrieveErrorStage
    | ContextStage
    | RerankStage
    | PackStage
    | BudgetStage
    | ComputeStage
    | DocumentStage
    | HopStage
    | AgenticStage
    | OnlineStage
    | QuoteStage
    | AnswerCheckStage
    | DecisionStage
    | FirstTokenStage
    | AnswerStage
    | CitationsStage
    | SupportStage
    | TotalStage
)


def stage_fields(record: StageRecord) -> dict[str, object]:
    """The record's fields but ``ms`` (plain values: mappings as dicts, tuples as lists, a ``Reason`` as
    its code and values)."""
    out: dict[str, object] = {}
    for f in dataclasses.fields(record):
        if f.name == "ms":
            continue
        value = getattr(record, f.name)
        if isinstance(value, Reason):
            out[f.name] = value.plain()
            continue
        out[f.name] = (
            dict(value) if isinstance(value, Mapping) else list(value) if isinstance(value, tuple) else value
        )
    return out
