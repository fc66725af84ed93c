"""``Clock`` and ``elapsed_ms``: the milliseconds a step took, as the trace records them."""

from __future__ import annotations

import time

__all__ = ["Clock", "elapsed_ms"]


def elapsed_ms(start: float) -> float:
    """Milliseconds since ``start`` (a ``time.perf_counter()`` reading), as the stages record them."""
    return round((time.perf_counter() - start) * 1000, 1)


class Clock:
    """Milliseconds since it was made (``time.perf_counter``), rounded as the trace records them."""

    def __init__(self) -> None:
        self.start = time.perf_counter()

    def ms(self) -> float:
        return elapsed_ms(self.start)
