"""The Evaluation tab's charts say "No data yet" instead of drawing nothing (issue 46): before any run,
when no control was answered ("Controls declined" had no bar), when every value is 0 (bars of no
height), and "recall@5 over time" with one run (a line needs two points). Runs saved in a real
``EvalStore`` in tmp_path, read through ``eval_view`` and ``layout.view_outputs`` as the tab reads them."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from app.desktop import DesktopApp
from app.evaluation.questions import EASINESS, EvalQuestion
from app.evaluation.questions import TestSet as QuestionSet
from app.evaluation.run import EvalRun, QuestionResult, summarize
from app.evaluation.store import EvalStore
from ui.evaluation import handlers as eh
from ui.evaluation import layout

SET = QuestionSet(
    "s1",
    1.0,
    "known-item questions without an LLM",
    ("docs",),
    (EvalQuestion("k1", "What do the documents say about the signal box?", True, "docs", "/d/a.md", "x"),),
)


def desk_over(tmp_path: Path) -> tuple[DesktopApp, EvalStore]:
    store = EvalStore(tmp_path)
    store.save_set(SET)
    evaluation = SimpleNamespace(store=store, latest_set=lambda: store.sets()[0])
    return cast(DesktopApp, SimpleNamespace(evaluation=evaluation, explain=str)), store


def saved_run(store: EvalStore, run_id: str, started: float, results: list[QuestionResult]) -> EvalRun:
    run = EvalRun(run_id, "s1", "turbo · model", {"preset": "turbo"}, started, status="complete")
    run.results = results
    run.metrics = summarize(run)
    store.save_run(run)
    return run


def drawn(view: eh.EvalView) -> dict[str, Any]:
    """Whether each chart is shown (``gr.update`` visibility) and each note, as the tab gets them."""
    out = layout.view_outputs(view)
    n = len(eh.CHARTED)
    plots = dict(
        zip([*(k for k, _ in eh.CHARTED), "by_collection", "over_time"], out[2 : n + 4], strict=True)
    )
    notes = dict(zip(layout.NOTED, out[n + 4 : 2 * n + 6], strict=True))
    return {"visible": {k: p["visible"] for k, p in plots.items()}, "notes": notes}


def test_before_any_run_every_chart_says_no_data_yet(tmp_path: Path) -> None:
    desk, _ = desk_over(tmp_path)
    shown = drawn(eh.eval_view(desk))
    assert not any(shown["visible"].values())
    assert all("No data yet" in note for note in shown["notes"].values())
    assert shown["notes"]["declined_controls"].startswith("**Controls declined** · No data yet")


def test_no_control_answered_zero_values_and_a_single_run(tmp_path: Path) -> None:
    desk, store = desk_over(tmp_path)
    answered = QuestionResult("k1", "q?", True, "docs", rank=None, asked=True, outcome="answered")
    answered.quote_has_answer = False
    saved_run(store, "r1", 10.0, [answered])  # recall 0, quote 0, no control asked
    view = eh.eval_view(desk)
    shown = drawn(view)
    assert shown["visible"]["recall@5"] and shown["notes"]["recall@5"] == "#1 turbo: 0 (bars of no height)"
    assert not shown["visible"]["declined_controls"]
    assert (
        "No data yet: none of the questions the model answered was an unanswerable control"
        in shown["notes"]["declined_controls"]
    )
    assert not shown["visible"]["over_time"]  # one point: no line to draw
    assert "One run so far (#1 turbo: recall@5 0)" in shown["notes"]["over_time"]
    assert view.easiness == f"**Note:** {EASINESS}" and "easier than real questions" in EASINESS

    found = QuestionResult("k1", "q?", True, "docs", rank=1)
    saved_run(store, "r2", 20.0, [found])
    shown = drawn(eh.eval_view(desk))
    assert shown["visible"]["over_time"] and shown["notes"]["over_time"] == ""  # two runs: a line
    assert shown["notes"]["recall@5"] == ""  # a bar of 1 beside the 0
