"""How long a browser test waits for a step: until it happens. Every wait in the browser tests is on the
page's state (``expect``), never a fixed sleep; its timeout only tells a hung app from a slow one.

A step's own time is not the test's business: a 2-core laptop or CI runner with other work (load 7-12)
made the first word of an answer come at 6-15 s and a whole answer take over a minute, so 30 s budgets
failed on a machine that worked (issue 46). ``HANG_MS`` is far beyond any step on such a machine.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

__all__ = ["HANG_MS", "open_until_visible"]

HANG_MS = 900_000  # 15 minutes: a step that has not happened by then is hung, not slow


def open_until_visible(header: Any, shown: Any) -> None:
    """Click ``header`` (a collapsed part of a message) until ``shown`` is visible. A streamed update may
    redraw the part closed after a click; each try waits twice as long as the one before for the click
    to show, so a busy machine's slow redraw is not clicked closed again."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    deadline = time.monotonic() + HANG_MS / 1000
    wait_ms = 1_000
    while not shown.is_visible():
        assert time.monotonic() < deadline, "the panel never opened"
        header.click()
        with contextlib.suppress(PlaywrightTimeout):
            shown.wait_for(state="visible", timeout=wait_ms)
        wait_ms *= 2
