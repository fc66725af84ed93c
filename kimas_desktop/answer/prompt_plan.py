"""The answer prompt, planned for the time budget (``budget.py``): the sources the model can read before
its first word is due, with the grounded quote's sentences in place of the sources ranked below every
quoted one (so the key sentences do not make the prompt grow). The quoted sources always stay: the key
sentences and the citations refer to them. A source that speaks to the assistant is withheld (``_withhold``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from kimas_desktop.answer.filter import pack
from kimas_desktop.answer.run import PackedEvidence, Run
from kimas_desktop.answer.signals.grounding import Grounding
from kimas_desktop.answer.signals.instructions import steering
from kimas_desktop.answer.signals.quote import renumber_quotes
from kimas_desktop.answer.writing.budget import Budget, PromptSpeed, plan
from kimas_desktop.answer.writing.summarizer import SYSTEM, answer_messages, key_sentences_block
from kimas_desktop.config import SummarizerConfig
from kimas_desktop.text.sentences import chunk_sentences
from kimas_desktop.text.words import stems
from kimas_desktop.trace import BudgetStage, PackStage
from kimas_desktop.types import Message

__all__ = ["PromptPlanner"]


class PromptPlanner:
    def __init__(
        self, config: SummarizerConfig, count_tokens: Callable[[str], int], speed: PromptSpeed
    ) -> None:
        self._config = config
        self._count = count_tokens
        self._speed = speed

    def plan(
        self, run: Run, evidence: PackedEvidence, grounding: Grounding
    ) -> tuple[PackedEvidence, list[Message]]:
        """The evidence the model is given (fewer sources when the budget is short) and its messages."""
        evidence = _withhold(run, evidence, grounding)
        quotes = renumber_quotes(grounding.quotes, evidence.hits)
        count = self._count
        keep = max((q.n for q in quotes), default=1)
        room = evidence.tokens - count(key_sentences_block(quotes)) if quotes else evidence.tokens
        fitting, tokens = pack(evidence.hits, room, count, keep=keep)
        frame = answer_messages(run.question, (), evidence.related, key_sentences=quotes)
        fixed = count(SYSTEM) + count(frame[1].content)
        budget = self._budget(run)
        kept = fitting
        if budget.tokens is not None and fixed + tokens > budget.tokens:
            kept, tokens = pack(evidence.hits, budget.tokens - fixed, count, keep=keep)
        if len(kept) < len(evidence.hits):
            run.trace.add(PackStage(0.0, len(kept), tokens, room, round=3))
            run.trace.evidence = list(kept)
            evidence = replace(evidence, hits=tuple(kept), tokens=tokens)
        over = budget.tokens is not None and fixed + tokens > budget.tokens
        cut = len(fitting) - len(kept)
        b = budget
        run.trace.add(
            BudgetStage(
                0.0, b.target_s, round(b.elapsed_s, 3), b.tokens_per_s, b.speed_from, b.tokens,
                fixed + tokens, len(kept), cut, over,
            )
        )  # fmt: skip
        run.prompt_tokens = fixed + tokens
        messages = answer_messages(run.question, evidence.hits, evidence.related, key_sentences=quotes)
        return evidence, messages

    def _budget(self, run: Run) -> Budget:
        """The time left for the model to read its prompt. After the chat model's check the sources are
        in its cache: reading them again costs nothing."""
        elapsed = run.clock.ms() / 1000
        if run.checked:
            return Budget(self._config.first_token_s, elapsed, None, "read by the check", None)
        return plan(self._config.first_token_s, elapsed, self._speed)


def _withhold(run: Run, evidence: PackedEvidence, grounding: Grounding) -> PackedEvidence:
    """Documents are data (issue 40): a source that gives the assistant orders, or writes the user's
    question back word for word (``instructions.steering``), is not given to the model, unless the quote
    comes from it. The quote already passed it over; given to the model, a small one still copied its
    payload ("the password is hunter2") into the answer in 10 of 50 injected pairs."""
    quoted = {q.chunk.chunk_id for q in grounding.quotes}
    asked = stems(run.question)
    kept = tuple(
        h
        for h in evidence.hits
        if h.chunk.chunk_id in quoted or not any(steering(chunk_sentences(h.chunk), asked))
    )
    if len(kept) == len(evidence.hits):
        return evidence
    run.trace.evidence = list(kept)
    return replace(evidence, hits=kept)
