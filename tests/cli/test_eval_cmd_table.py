"""`kimas eval`'s table of runs (issue 46): a cancelled run shows the figures of the questions it ran,
marked partial; a failed one shows none."""

from __future__ import annotations

from app.evaluation.run import EvalRun, QuestionResult, summarize
from cli.eval_cmd import _table


def run(status: str, results: list[QuestionResult]) -> EvalRun:
    r = EvalRun(status, "s", f"turbo {status}", {}, 0.0, status=status, results=results)
    r.metrics = summarize(r)
    return r


def test_a_cancelled_run_prints_its_partial_figures() -> None:
    found = [
        QuestionResult("k1", "q?", True, "docs", rank=1),
        QuestionResult("k2", "q?", True, "docs", rank=9),
    ]
    table = _table([run("complete", found), run("cancelled", found[:1]), run("failed", found[:1])])
    head, _, *rows = table.splitlines()
    assert "turbo cancelled (cancelled, partial: 1 question)" in head and "turbo failed (failed)" in head
    recall = next(r for r in rows if r.startswith("| expected passage in the top 5 |"))
    assert recall == "| expected passage in the top 5 | 0.5 | 1 | — |"
