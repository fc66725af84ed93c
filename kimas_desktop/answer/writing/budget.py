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
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

__all__ = ["Budget", "PromptSpeed", "plan"]

# An answer's observed speed moves the estimate this far (the rest is the earlier estimate).
OBSERVED_WEIGHT = 0.5
# Observations outside this range around the load-time measurement are not prompt processing alone: a
# prompt whose prefix the cache already held (far faster), or a stall (far slower; still counted, bounded).
FASTEST, SLOWEST = 2.0, 0.2
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
