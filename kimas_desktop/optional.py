"""``optional``: the one way to run a step the answer can do without (a rewrite, a digest, citations, the
agentic round). Such a step that fails or runs out of time degrades: the failure is logged and the
caller's fallback gets the reason (which goes into the trace). Only our own errors count as a failure
(adapters raise nothing else: see ``kimas_desktop.errors``); ``Cancelled`` is the user stopping the
answer, so it goes on up, as does anything unexpected (a bug is not a degraded answer).
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
from collections.abc import Callable
from typing import TypeVar

from kimas_desktop.errors import Cancelled, KimasError

__all__ = ["optional", "run_with_timeout"]

log = logging.getLogger(__name__)

T = TypeVar("T")


def run_with_timeout(step: Callable[[], T], timeout_s: float) -> T:
    """Run ``step`` in a thread of its own; give up waiting after ``timeout_s`` (``TimeoutError``; the
    step finishes in the background)."""
    pool = cf.ThreadPoolExecutor(max_workers=1)
    try:
        return pool.submit(step).result(timeout=timeout_s)
    finally:
        pool.shutdown(wait=False)


def optional(what: str, step: Callable[[], T], fallback: Callable[[str], T]) -> T:
    """``step()``, or ``fallback(reason)`` when it raised a ``KimasError`` (not ``Cancelled``) or a
    ``TimeoutError`` (a timeout the step imposed on itself). ``what`` names the step in the log."""
    try:
        return step()
    except Cancelled:
        raise
    except (KimasError, TimeoutError) as err:
        reason = str(err) or ("timed out" if isinstance(err, TimeoutError) else type(err).__name__)
        log.warning("%s failed: %s", what, reason)
        return fallback(reason)
