"""The KIMAs *context manager* (the paper's name; nothing to do with Python's ``with``).

Two jobs, as in the paper (§3.2), after one decision (``dependence.TurnDependence``): does this turn need
the conversation at all, and which earlier turns?
- ``QueryContextualizer`` rewrites the latest question into a self-contained retrieval query using the
  conversation (resolve references, carry omitted keywords, merge a rephrased earlier question).
- ``ContextAnalyzer`` picks which earlier messages matter for the answer (``analysis`` +
  ``indices_of_related_messages``), so only those reach the summarizer.

Both degrade safely: a failed or slow LLM step falls back to an LLM-free result that is never worse than
the raw question (rewrite) or the last few turns (analysis).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from kimas_desktop.config import ContextConfig
from kimas_desktop.context.dependence import FIRST_QUESTION, Dependence, TurnDecision, TurnDependence
from kimas_desktop.optional import optional, run_with_timeout
from kimas_desktop.protocols import ChatModel, Vector
from kimas_desktop.structured import ask_json, int_list_field, string_field
from kimas_desktop.text.words import content_words, salient_terms, truncate
from kimas_desktop.trace import Reason
from kimas_desktop.types import Message

__all__ = [
    "ANALYSIS_SCHEMA",
    "ANALYSIS_SYSTEM",
    "FOLLOW_UP_TERMS",
    "REWRITE_SCHEMA",
    "REWRITE_SYSTEM",
    "SUBJECT_TERMS",
    "ContextAnalysis",
    "ContextAnalyzer",
    "QueryContextualizer",
    "Rewrite",
    "RewriteMethod",
    "heuristic_rewrite",
]

RewriteMethod = Literal["first-turn", "none", "as-asked", "heuristic", "llm", "llm-fallback"]


@dataclass(frozen=True)
class Rewrite:
    query: str
    method: RewriteMethod
    note: str = ""  # why it fell back or kept the conversation's subject (English)
    decision: TurnDecision = FIRST_QUESTION
    note_said: Reason | None = None  # ``note`` as a code (the trace says it in the page's language)


@dataclass(frozen=True)
class ContextAnalysis:
    analysis: str
    related: tuple[int, ...]  # indices into the history passed in
    method: Literal["none", "llm", "fallback", "disabled"]
    messages: tuple[Message, ...] = field(default=())  # the related messages themselves


def _transcript(history: Sequence[Message], max_chars: int = 600) -> str:
    return "\n".join(f"[{i}] {m.role}: {truncate(m.content, max_chars)}" for i, m in enumerate(history))


# Terms a follow-up takes from the turns it depends on, and a self-contained question on the
# conversation's subject from that subject's exchanges. Chosen on the tuning half of bench/topic_shift.py
# (QuAC follow-ups and self-contained questions after an unrelated conversation): 24 follow-up terms and
# none for the subject gave 0.94 / 0.927 there; 10 and 3 give 0.96 / 0.927 (bench/RESULTS.md, issue 23).
FOLLOW_UP_TERMS = 10
SUBJECT_TERMS = 3


def heuristic_rewrite(question: str, history: Sequence[Message], *, max_terms: int = 24) -> str:
    """The LLM-free rewrite: the question plus salient terms of the earlier turns it does not mention.

    Earlier user questions carry the topic (the latest counts twice); earlier answers carry the names a
    follow-up refers to. Measured on QuAC follow-ups with every turn appended (bench/quality.py): 16 terms
    from the user turns and the last answer reached recall@5 0.93; 24 terms from every answer 0.98.
    """
    users = [m.content for m in history if m.role == "user"]
    answers = [m.content[:600] for m in history if m.role == "assistant"]
    have = content_words(question)
    terms = salient_terms([*users, *users[-1:], *answers], exclude=have, limit=max_terms)
    return f"{question.strip()} {' '.join(terms)}".strip()


_NEEDS: dict[str, Dependence] = {"no": "self-contained", "topic": "topic", "previous": "previous"}
_JUDGED = {
    "no": Reason("the chat model found it makes sense on its own", "judged_alone"),
    "topic": Reason("the chat model found it omits the conversation's subject", "judged_topic"),
    "previous": Reason(
        "the chat model found it refers to the previous question or answer", "judged_previous"
    ),
}

REWRITE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "needs_history": {"type": "string", "enum": list(_NEEDS)},
        "query": {"type": "string", "maxLength": 300},
    },
    "required": ["needs_history", "query"],
}

REWRITE_SYSTEM = (
    "You decide whether the user's latest question needs the conversation, then rewrite it into one "
    'self-contained search query. needs_history is "no" when the question makes sense on its own (also '
    'when it changes the subject), "topic" when it omits the subject the conversation is about, and '
    '"previous" when it refers to the previous question or answer. Replace pronouns and vague references '
    "(it, they, that, the code) with what they refer to, keep every keyword of the question, and add the "
    "topic from earlier turns only when the question needs it. If the user is rephrasing an earlier "
    "question, merge both into one query. Do not answer the question. "
    'Reply as JSON: {"needs_history": "no" | "topic" | "previous", "query": "..."}'
)


def _kept(judged: Reason, decision: TurnDecision) -> Reason:
    """The chat model's judgement that a question stands alone, set aside: the rules' ``decision`` stays."""
    english = f"{judged.english}; kept: {decision.reason}"
    return Reason(
        english, "judged_kept", {"judged": judged, "reason": decision.reason_said or decision.reason}
    )


class QueryContextualizer:
    """Context manager, job 1: conversation-contextual query rewrite for the retrieval agents."""

    def __init__(
        self,
        chat: ChatModel,
        config: ContextConfig,
        dependence: TurnDependence,
        *,
        small_model: bool | Callable[[], bool] = False,
    ) -> None:
        """``small_model``: whether the chat model is too small to rewrite (measured on QuAC: the tiny
        embedded model rewrites worse than the heuristic); a function is asked only when a follow-up
        needs a rewrite, so a first question never loads the model to learn it."""
        self._chat = chat
        self._config = config
        self._dependence = dependence
        self._small_model = small_model
        self._fixed_mode = config.rewrite if config.enabled else "none"

    @property
    def _mode(self) -> str:
        if self._fixed_mode != "auto":
            return self._fixed_mode
        small = self._small_model() if callable(self._small_model) else self._small_model
        return "heuristic" if small else "llm"

    @property
    def uses_llm(self) -> bool:
        return self._mode == "llm"

    def rewrite(
        self, question: str, history: Sequence[Message], question_vec: Vector | None = None
    ) -> Rewrite:
        """The query the retrieval agents search: the question as asked when it stands alone, else the
        question with what it needs from the turns it depends on (``Rewrite.decision`` says which)."""
        whole = list(history)
        history = whole[-2 * self._config.history_turns :] if self._config.history_turns else []
        if not history:
            return Rewrite(question, "first-turn")
        rewrite = self._rewrite(question, history, question_vec)
        return replace(rewrite, decision=rewrite.decision.shifted(len(whole) - len(history)))

    def _rewrite(self, question: str, history: list[Message], question_vec: Vector | None) -> Rewrite:
        if self._mode == "none":
            off = Reason("context manager off", "context_off")
            everything = TurnDecision(
                "topic", tuple(range(len(history))), "rules", off.english, reason_said=off
            )
            return Rewrite(question, "none", decision=everything)
        decision = self._dependence.decide(question, history, question_vec)
        by_rules = self._by_rules(question, history, decision)
        if self._mode == "heuristic":
            return by_rules

        def fallback(reason: str) -> Rewrite:
            return fell_back(Reason(reason, "rewrite_failed", {"error": reason}))

        def fell_back(why: Reason) -> Rewrite:
            return replace(by_rules, method="llm-fallback", note=why.english, note_said=why)

        def by_model() -> Rewrite:
            needs, query = run_with_timeout(lambda: self._ask(question, history), self._config.timeout_s)
            judged = decision.relabelled(_NEEDS[needs], history, _JUDGED[needs])
            if not judged.uses_history:
                # The model may add the history to a question the rules let stand alone, never take it
                # away: the 0.5B benchmark model answered "no" for all of 80 CAsT follow-ups
                # (bench/RESULTS.md, "Topic changes (issue 23)").
                if decision.uses_history:
                    kept = _kept(_JUDGED[needs], decision)
                    return replace(by_rules, note=kept.english, note_said=kept)
                return self._by_rules(question, history, judged)
            if not query or len(query) > 4 * len(question) + 300:
                return fell_back(Reason("rewrite was empty or too long", "rewrite_too_long"))
            # Never lose the user's own words: keep the question's content words the rewrite dropped.
            missing = [w for w in content_words(question) if w not in content_words(query)]
            return Rewrite(f"{query} {' '.join(missing)}".strip(), "llm", decision=judged)

        return optional("the query rewrite (the heuristic one instead)", by_model, fallback)

    @staticmethod
    def _by_rules(question: str, history: Sequence[Message], decision: TurnDecision) -> Rewrite:
        if decision.uses_history:
            used = [history[i] for i in decision.turns]
            return Rewrite(
                heuristic_rewrite(question, used, max_terms=FOLLOW_UP_TERMS), "heuristic", decision=decision
            )
        if not decision.subject:
            return Rewrite(question, "as-asked", decision=decision)
        subject = [history[i] for i in decision.subject]
        query = heuristic_rewrite(question, subject, max_terms=SUBJECT_TERMS)
        kept = query[len(question.strip()) :].strip()
        if not kept:
            return Rewrite(query, "as-asked", decision=decision)
        note = Reason(f"kept the conversation's subject: {kept}", "kept_subject", {"kept": kept})
        return Rewrite(query, "as-asked", note=note.english, decision=decision, note_said=note)

    def _ask(self, question: str, history: Sequence[Message]) -> tuple[str, str]:
        messages = [
            Message("system", REWRITE_SYSTEM),
            Message("user", f"Conversation:\n{_transcript(history)}\n\nLatest question: {question}"),
        ]

        def parse(d: dict[str, Any]) -> tuple[str, str]:
            needs = string_field(d, "needs_history", max_len=20)
            if needs not in _NEEDS:
                raise ValueError(f"needs_history is {needs!r}")
            return needs, string_field(d, "query", max_len=600)

        return ask_json(self._chat, messages, REWRITE_SCHEMA, parse, max_tokens=110)


ANALYSIS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "analysis": {"type": "string", "maxLength": 300},
        "indices_of_related_messages": {"type": "array", "items": {"type": "integer"}, "maxItems": 12},
    },
    "required": ["analysis", "indices_of_related_messages"],
}

ANALYSIS_SYSTEM = (
    "You read a numbered conversation and the user's new question. First write a short analysis of how "
    "the new question relates to the earlier messages, then list the numbers of the earlier messages that "
    "are needed to answer it (an empty list if none). Reply as JSON with the keys analysis and "
    "indices_of_related_messages."
)


class ContextAnalyzer:
    """Context manager, job 2: which earlier messages the summarizer should see."""

    def __init__(self, chat: ChatModel, config: ContextConfig, *, fallback_turns: int = 2) -> None:
        self._chat = chat
        self._config = config
        self._fallback_turns = fallback_turns

    @property
    def enabled(self) -> bool:
        return self._config.enabled and self._config.analysis

    def candidates(self, history: Sequence[Message], decision: TurnDecision | None = None) -> tuple[int, ...]:
        """The earlier messages ``analyze`` chooses from (it returns these or fewer): the turns ``decision``
        says the question depends on, none for a self-contained question, all of them when the analysis
        is off. Known before the model has read them, so the sources can be packed meanwhile."""
        if not history or (decision is not None and not decision.uses_history):
            return ()
        if not self.enabled:
            return tuple(range(len(history)))
        if decision is not None:
            return tuple(decision.turns)
        return tuple(range(max(0, len(history) - 2 * self._config.history_turns), len(history)))

    def analyze(
        self, question: str, history: Sequence[Message], decision: TurnDecision | None = None
    ) -> ContextAnalysis:
        """The earlier messages the summarizer sees: among the turns ``decision`` says the question
        depends on (none for a self-contained question), the ones the model finds related."""
        history = list(history)
        if not history:
            return ContextAnalysis("", (), "none")
        if decision is not None and not decision.uses_history:
            return ContextAnalysis(decision.reason, (), "none")
        candidates = list(self.candidates(history, decision))
        if not self.enabled:
            return ContextAnalysis("", tuple(candidates), "disabled", tuple(history))
        window = [history[i] for i in candidates]

        def fallback(reason: str) -> ContextAnalysis:
            keep = tuple(candidates if decision is not None else candidates[-2 * self._fallback_turns :])
            return ContextAnalysis(
                f"(analysis unavailable: {reason})", keep, "fallback", tuple(history[i] for i in keep)
            )

        def by_model() -> ContextAnalysis:
            analysis, indices = run_with_timeout(lambda: self._ask(question, window), self._config.timeout_s)
            related = tuple(candidates[i] for i in indices)
            return ContextAnalysis(analysis, related, "llm", tuple(history[i] for i in related))

        return optional("the context analysis (the last turns instead)", by_model, fallback)

    def _ask(self, question: str, window: Sequence[Message]) -> tuple[str, tuple[int, ...]]:
        messages = [
            Message("system", ANALYSIS_SYSTEM),
            Message("user", f"Conversation:\n{_transcript(window, 400)}\n\nNew question: {question}"),
        ]

        def parse(d: dict[str, Any]) -> tuple[str, tuple[int, ...]]:
            indices = int_list_field(d, "indices_of_related_messages")
            valid = sorted({i for i in indices if 0 <= i < len(window)})
            if len(valid) != len(set(indices)):
                raise ValueError(f"indices out of range: {indices}")
            return string_field(d, "analysis", max_len=1200), tuple(valid)

        return ask_json(self._chat, messages, ANALYSIS_SCHEMA, parse, max_tokens=160)
