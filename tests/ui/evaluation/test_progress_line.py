"""The Evaluation tab's progress line says the time left (issue 46): measured from the run's speed,
counted down between questions, and never a time already past."""

from __future__ import annotations

import time

from app.evaluation.job import EvalJob
from ui.evaluation import handlers as eh


def test_the_time_left_counts_down_and_is_never_past() -> None:
    now = time.monotonic()
    unknown = EvalJob("run", 1, 100, "q?", seconds_left=None, measured_at=now)
    assert "Running the test set: 1 / 100 questions · measuring the speed… · last: “q?”" in eh.progress_html(
        unknown
    )
    fresh = EvalJob("run", 10, 100, "q?", seconds_left=100.0, measured_at=now)
    assert "10 / 100 questions · about 1 min 40 s left" in eh.progress_html(fresh)
    later = EvalJob("run", 10, 100, "q?", seconds_left=100.0, measured_at=now - 30)
    assert "about 1 min 10 s left" in eh.progress_html(later)
    over = EvalJob("run", 10, 100, "q?", seconds_left=100.0, measured_at=now - 200)
    assert "taking longer than measured so far…" in eh.progress_html(over)
    stopping = EvalJob("run", 10, 100, "q?", seconds_left=100.0, measured_at=now, stopping=True)
    assert "left" not in eh.progress_html(
        stopping
    ) and "figures measured so far are kept" in eh.progress_html(stopping)
