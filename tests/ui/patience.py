"""How long a browser test waits for a step: until it happens. Every wait in the browser tests is on the
page's state (``expect``), never a fixed sleep; its timeout only tells a hung app from a slow one.

A step's own time is not the test's business: a 2-core laptop or CI runner with other work (load 7-12)
made the first word of an answer come at 6-15 s and a whole answer take over a minute, so 30 s budgets
failed on a machine that worked (issue 46). ``HANG_MS`` is far beyond any step on such a machine.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

import pytest

__all__ = ["GRADIO_ERROR", "HANG_MS", "open_until_visible", "shows_or_fails", "wait_for_page"]

HANG_MS = 900_000  # 15 minutes: a step that has not happened by then is hung, not slow
# What Gradio draws when a handler raises: "Error" in the output's status tracker, or an error toast.
GRADIO_ERROR = "[data-testid=status-tracker] .error, .toast-body.error"


def wait_for_page(proc: Any, url: str, log: Path) -> None:
    """Wait until the app started as ``proc`` serves ``url``, however busy the machine; fail at once, with
    its log, when it exits, and after ``HANG_MS`` when it never comes up."""
    import urllib.request

    deadline = time.monotonic() + HANG_MS / 1000
    while True:
        if proc.poll() is not None:
            pytest.fail(f"the app exited with {proc.returncode}:\n{log.read_text()}")
        with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=2) as r:
            if r.status == 200:
                return
        if time.monotonic() > deadline:
            pytest.fail(f"the app did not come up in {HANG_MS // 1000} s:\n{log.read_text()}")
        time.sleep(0.3)


def shows_or_fails(page: Any, target: Any, text: str, log: Path) -> None:
    """Wait until ``target`` shows ``text``; fail at once, with the server's log, when Gradio shows that a
    handler raised instead (issue 72: "Error" in the collections box under load was seen only after the
    15-minute wait, and without the exception)."""
    deadline = time.monotonic() + HANG_MS / 1000
    errors = page.locator(GRADIO_ERROR)
    while text not in (target.inner_text() if target.count() else ""):
        shown = [e.inner_text().strip() for e in errors.all() if e.is_visible()]
        if any(shown):
            told = log.read_text("utf-8", errors="replace")[-6000:] if log.is_file() else "(no log)"
            pytest.fail(f"the page showed an error ({'; '.join(shown)}) instead of {text!r}:\n{told}")
        assert time.monotonic() < deadline, f"{text!r} never showed"
        page.wait_for_timeout(250)


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
