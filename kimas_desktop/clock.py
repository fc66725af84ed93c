"""``Clock``: the milliseconds a step took, as the trace records them."""

from __future__ import annotations

import time

from kimas_desktop.trace import elapsed_ms

__all__ = ["Clock"]


class Clock:
    """Milliseconds since it was made (``time.perf_counter``), rounded as the trace records them."""

    def __init__(self) -> None:
        self.start = time.perf_counter()

    def ms(self) -> float:
        return elapsed_ms(self.start)
