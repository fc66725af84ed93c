"""The Evaluation tab's two tables (runs, failed questions) are hidden until a run exists (issue 47): a new
user saw two boxes of column names and nothing else. A real ``EvalStore`` in tmp_path, read through
``eval_view`` and ``layout.view_outputs`` as the tab reads them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.evaluation.run import QuestionResult
from tests.ui.evaluation.test_no_data import desk_over, saved_run
from ui.evaluation import handlers as eh
from ui.evaluation import layout


def _tables(view: eh.EvalView) -> tuple[dict[str, Any], dict[str, Any]]:
    runs, failed = layout.view_outputs(view)[-2:]
    return runs, failed


def test_the_tables_wait_for_the_first_run(tmp_path: Path) -> None:
    desk, store = desk_over(tmp_path)
    runs, failed = _tables(eh.eval_view(desk))
    assert runs["visible"] is False and failed["visible"] is False
    found = QuestionResult("k1", "q?", True, "docs", rank=1, asked=False, outcome="")
    saved_run(store, "r1", 10.0, [found])
    runs, failed = _tables(eh.eval_view(desk))
    assert runs["visible"] is True and failed["visible"] is True
    assert len(runs["value"]) == 1
