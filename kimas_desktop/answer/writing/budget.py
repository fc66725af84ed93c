"""The answer's latency budget: how much prompt the chat model can read before the first word is due.

The time to the first token is almost all prompt processing (the sources), at a speed that depends on the
model and the machine: the embedded 135M model reads 250-300 prompt tokens/s on two laptop cores, a 0.5B
model about 200, a 3B model several times fewer. A fixed evidence budget therefore makes a bigger model, or
a busy laptop, keep the user waiting for sources it rarely needs (bench/RESULTS.md, issue 28).

``PromptSpeed`` knows the loaded model's prompt speed: measured when the model loads
(``ChatModelDescription.prompt_tokens_per_s``), then from each answer's own first token, so a machine
slowed by other work is planned for as it is now. ``plan`` turns the configured first-token target into a
number of prompt tokens; the summarizer's prompt keeps the sources that fit (the quoted ones always stay,
as the key sentences and citations refer to them). The trace shows the budget and what was cut.

The estimate is an exponentially weighted mean (``OBSERVED_WEIGHT``) of the recent answers' speeds, so a
machine that becomes busy gets smaller budgets within an answer or two; a slow answer counts down to a
twentieth of the load-time speed (a laptop at load 7-12 read its prompt six times slower, issue 46).

``PaceMeter`` tells the status line how the answer goes while it runs (``Pace``): before the first word,
the prompt the model reads and at what speed; once it writes, its words per second (the text layer's
words, so Chinese and Hindi count as they read). The UI shows a step and a speed, never a due time that
the machine may already have missed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from kimas_desktop.text.words import words

__all__ = ["Budget", "Pace", "PaceMeter", "PromptSpeed", "first_word_s", "plan"]

# An answer's observed speed moves the estimate this far (the rest is the earlier estimate).
OBSERVED_WEIGHT = 0.5
# Observations outside this range around the load-time measurement are not prompt processing alone: a
# prompt whose prefix the cache already held (far faster), or a stall (far slower; still counted, bounded).
FASTEST, SLOWEST = 2.0, 0.05
# What the first token costs beyond reading the prompt (the chat template, one decode step, the pipe).
OVERHEAD_S = 0.15


@dataclass(frozen=True)
class Budget:
    """The prompt allowed for the answer to start within ``target_s`` of the question.
    ``tokens`` None: no limit (no target set, or the model's speed is not known yet)."""

    target_s: float
    elapsed_s: float  # spent before the prompt was planned (retrieval, the quote, a check)
    tokens_per_s: float | None
    speed_from: str  # "measured at load", "recent answers", "unknown"
    tokens: int | None


def first_word_s(elapsed_s: float, prompt_tokens: int, tokens_per_s: float | None) -> float | None:
    """When the first word should come, in seconds since the question, for a prompt of ``prompt_tokens``
    planned ``elapsed_s`` after the question (None: the speed is not known)."""
    if not tokens_per_s or tokens_per_s <= 0:
        return None
    return elapsed_s + OVERHEAD_S + prompt_tokens / tokens_per_s


class PromptSpeed:
    """The chat model's prompt speed, in tokens per second; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._measured: float | None = None  # at load
        self._estimate: float | None = None
        self._observed = 0

    def loaded(self, tokens_per_s: float | None) -> None:
        """The model (re)loaded and measured itself."""
        with self._lock:
            if tokens_per_s and tokens_per_s > 0 and tokens_per_s != self._measured:
                self._measured = self._estimate = float(tokens_per_s)
                self._observed = 0

    def observe(self, tokens: int, seconds: float) -> None:
        """An answer's prompt of ``tokens`` gave its first token after ``seconds``."""
        if tokens <= 0 or seconds <= 0:
            return
        seen = tokens / seconds
        with self._lock:
            if self._measured is None:
                self._estimate = seen if self._estimate is None else self._mix(seen)
            elif seen <= FASTEST * self._measured:  # faster: the cache held the prompt's start
                self._estimate = self._mix(max(seen, SLOWEST * self._measured))
            else:
                return
            self._observed += 1

    def _mix(self, seen: float) -> float:
        assert self._estimate is not None
        return (1 - OBSERVED_WEIGHT) * self._estimate + OBSERVED_WEIGHT * seen

    def current(self) -> tuple[float | None, str]:
        with self._lock:
            if self._estimate is None:
                return None, "unknown"
            return self._estimate, "recent answers" if self._observed else "measured at load"


def plan(target_s: float, elapsed_s: float, speed: PromptSpeed) -> Budget:
    """The whole answer prompt's allowance (system, sources, key sentences, question), in tokens."""
    tokens_per_s, source = speed.current()
    if target_s <= 0 or tokens_per_s is None:
        return Budget(target_s, elapsed_s, tokens_per_s, source, None)
    left = max(target_s - elapsed_s - OVERHEAD_S, 0.0)
    return Budget(target_s, elapsed_s, tokens_per_s, source, int(left * tokens_per_s))


@dataclass(frozen=True)
class Pace:
    """How the answer goes, for the status line. ``step``: "reading" (the model reads its prompt:
    ``prompt_tokens`` at ``tokens_per_s``, from ``speed_from``) or "writing" (``words`` so far at
    ``words_per_s``)."""

    step: str
    prompt_tokens: int = 0
    tokens_per_s: float | None = None
    speed_from: str = "unknown"
    words: int = 0
    words_per_s: float | None = None


class PaceMeter:
    """The model's pace through one answer: ``reading`` once its prompt is planned, then ``wrote`` after
    each streamed piece, which gives a new ``Pace`` at most every ``every_s`` seconds (a status line that
    redraws on every token would cost the UI more than the answer). ``now``: a clock in seconds."""

    def __init__(
        self, speed: PromptSpeed, now: Callable[[], float] = time.monotonic, every_s: float = 1.0
    ) -> None:
        self._speed = speed
        self._now = now
        self._every_s = every_s
        self._text: list[str] = []
        self._first: float | None = None  # when the first piece came
        self._shown = 0.0  # when a pace was last given

    def reading(self, prompt_tokens: int) -> Pace:
        tokens_per_s, source = self._speed.current()
        return Pace("reading", prompt_tokens, tokens_per_s, source)

    def wrote(self, piece: str) -> Pace | None:
        now = self._now()
        self._text.append(piece)
        if self._first is None:
            self._first = self._shown = now
            return None
        if now - self._shown < self._every_s:
            return None
        self._shown = now
        n = len(words("".join(self._text)))
        return Pace("writing", words=n, words_per_s=n / (now - self._first) if now > self._first else None)
