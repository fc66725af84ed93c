"""Evaluation tab handlers (issue 26, "How good is it on my documents?"): plain functions of the app and the
widgets' values; ``ui/evaluation/layout.py`` binds them. No Gradio here: tables and chart data are pandas
frames.

The tab shows the latest test set and its runs (runs are comparable on the same set only). Complete runs
are plotted: their figures side by side and recall@5 over time, and the latest one's recall@5 per
collection and failed questions. A cancelled or interrupted run is plotted too, named "(partial)": its
figures are those of the questions it ran. A failed run is listed with its status only. A chart with
nothing to draw says so ("No data yet: …") instead of showing empty axes.
"""

from __future__ import annotations

import html
import time
from dataclasses import dataclass
from typing import Any

import pandas as pd

from app.desktop import ActionResult, DesktopApp, EvalJob
from app.evaluation.evaluation import DEFAULT_ANSWERS, DEFAULT_QUESTIONS
from app.evaluation.questions import EASINESS, TestSet
from app.evaluation.run import EvalRun, QuestionResult, time_left_text
from kimas_desktop.config import PRESETS
from kimas_desktop.errors import KimasError
from ui.markup import esc

__all__ = [
    "CHARTED",
    "COLLECTION_COLUMNS",
    "FAILED_HEADERS",
    "FIGURE_COLUMNS",
    "PRESET_CHOICES",
    "RUN_HEADERS",
    "TIME_COLUMNS",
    "EvalPoll",
    "EvalView",
    "answered",
    "cancel",
    "chart_note",
    "eval_view",
    "failed_rows",
    "frame",
    "make_set",
    "poll",
    "progress_html",
    "run_names",
    "set_line",
    "start_run",
]

PRESET_CHOICES = ("configured", *PRESETS)
DECLINED = ("declined", "nothing found")
# The figures compared side by side: metric key ("@5" becomes the run's k), name on the chart.
CHARTED = (
    ("recall@5", "recall@5 (passage in top 5)"),
    ("mrr", "MRR (1 / rank of passage)"),
    ("quote_has_answer", "Quote holds the answer"),
    ("declined_controls", "Controls declined"),
)
# Why a chart has nothing to draw yet (metric key, or "by_collection", "over_time").
NO_DATA = {
    "recall@5": "no run has finished a question yet",
    "mrr": "no run has finished a question yet",
    "quote_has_answer": "none of the questions the model answered was an answerable one yet (raise "
    "'Questions also answered' for more)",
    "declined_controls": "none of the questions the model answered was an unanswerable control yet (raise "
    "'Questions also answered' for more)",
    "by_collection": "no run has finished a question yet",
    "over_time": "no run has finished a question yet",
}
# The runs table's figure columns: metric key, column header.
COLUMNS = (
    ("recall@5", "recall@5"),
    ("mrr", "MRR"),
    ("routing", "routing"),
    ("quote_has_answer", "quote has answer"),
    ("declined_controls", "controls declined"),
    ("falsely_declined", "answerable declined"),
    ("supported", "sentences supported"),
    ("first_grounded_ms_median", "grounded words (ms)"),
    ("first_token_ms_median", "first answer word (ms)"),
)
SIDE_BY_SIDE = 8  # complete runs in the side-by-side charts (the latest ones; the table lists all)
# Column types of the chart data, fixed even when empty: a plot takes its axes' types from its first data.
FIGURE_COLUMNS = {"run": "str", "value": "float64"}
COLLECTION_COLUMNS = {"collection": "str", "recall@5": "float64"}
TIME_COLUMNS = {"started": "str", "recall@5": "float64", "run": "str"}  # "YYYY-MM-DD hh:mm:ss": in order
RUN_HEADERS = ["#", "run", "status", "started", "questions", *(name for _, name in COLUMNS)]
FAILED_HEADERS = ["question", "what went wrong", "expected passage", "found instead", "answer"]


@dataclass(frozen=True)
class EvalView:
    set_line: str  # Markdown: the latest test set, or how to make one
    figures: dict[str, pd.DataFrame]  # per charted figure: run, value (the latest runs with figures)
    by_collection: pd.DataFrame  # collection, recall@5 of the latest run with figures
    over_time: pd.DataFrame  # started, recall@5, run
    runs: pd.DataFrame  # every run of the set, with its status
    failed: pd.DataFrame  # the latest run's failed questions
    failed_title: str
    notes: dict[str, str]  # per chart (CHARTED keys, "by_collection", "over_time"): "" when it draws
    easiness: str = ""  # Markdown next to the figures: how hard the set's questions are
    size: int = 0  # questions in the latest test set (0: none yet)


@dataclass(frozen=True)
class EvalPoll:
    key: str  # what the page has drawn; a new one means redraw the view
    progress: str  # HTML
    view: EvalView | None  # None: unchanged since ``key``


def _k(key: str, run: EvalRun) -> str:
    return key.replace("@5", f"@{run.k}")


def _figure(run: EvalRun, key: str, scope: str = "all") -> float | int | None:
    return run.metrics.get(scope, {}).get(_k(key, run))


def _cell(value: float | int | None) -> str:
    return "—" if value is None else f"{value:g}"


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))


def frame(rows: list[tuple[Any, ...]], columns: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(columns)).astype(columns)


def run_names(runs: list[EvalRun]) -> dict[str, str]:
    """What the charts call each run: its number in the set (as wide as the largest, so that the charts'
    alphabetical order is the runs' order), its preset, and "(partial)" for a run stopped early."""
    width = len(str(len(runs)))
    return {
        r.run_id: f"#{i:0{width}d} {r.config.get('preset', '')}".strip() + (" (partial)" if r.partial else "")
        for i, r in enumerate(runs, 1)
    }


def chart_note(data: pd.DataFrame, value: str, label: str, why: str) -> str:
    """What a chart says besides its drawing: "No data yet: …" when it has nothing to draw, the values
    in words when they are all 0 (bars of no height), and nothing otherwise."""
    if data.empty:
        return f"No data yet: {why}."
    if (data[value] == 0).all():
        return " · ".join(f"{name}: 0" for name in data[label]) + " (bars of no height)"
    return ""


def set_line(test_set: TestSet | None) -> str:
    if test_set is None:
        return "No test set yet: make one from your collections (no model is needed for that)."
    n = len(test_set.questions)
    controls = n - test_set.answerable
    m = len(test_set.collections)
    return (
        f"**{n} questions** ({test_set.answerable} answerable, {controls} unanswerable controls) "
        f"from {m} collection{'s' if m != 1 else ''} · made {_when(test_set.created)}"
    )


def easiness(test_set: TestSet | None) -> str:
    """How hard the set's questions are, shown next to the figures."""
    if test_set is None or not test_set.method.startswith("known-item"):
        return ""
    return f"**Note:** {EASINESS}"


def _problems(r: QuestionResult, k: int) -> list[str]:
    out = []
    if r.answerable and r.rank is None:
        out.append("expected passage not in the top 10")
    elif r.answerable and r.rank is not None and r.rank > k:
        out.append(f"expected passage at rank {r.rank}")
    if r.asked and r.answerable and r.outcome in DECLINED:
        out.append("answerable, but declined")
    if r.asked and not r.answerable and r.outcome and r.outcome not in (*DECLINED, "stopped"):
        out.append("unanswerable, but answered")
    return out


def failed_rows(run: EvalRun) -> pd.DataFrame:
    """Answerable questions whose expected passage is not in the top k, and asked ones with a wrong
    outcome."""
    rows = []
    for r in run.results:
        problems = _problems(r, run.k)
        if problems:
            rows.append(
                [
                    r.question,
                    "; ".join(problems),
                    r.expected or "— (unanswerable control)",
                    "\n".join(f"{i}. {hit}" for i, hit in enumerate(r.found, 1)) or "nothing",
                    r.outcome or "not asked",
                ]
            )
    return pd.DataFrame(rows, columns=FAILED_HEADERS)


def _runs_table(runs: list[EvalRun], size: int) -> pd.DataFrame:
    rows = []
    for i, run in enumerate(runs, 1):
        figures = [_cell(_figure(run, key)) if run.shown else "—" for key, _ in COLUMNS]
        status = run.status + (f": {run.error}" if run.error else "") + (" · partial" if run.partial else "")
        rows.append(
            [str(i), run.label, status, _when(run.started), f"{len(run.results)} of {size}", *figures]
        )
    return pd.DataFrame(rows, columns=RUN_HEADERS)


def _charts(runs: list[EvalRun]) -> tuple[dict[str, pd.DataFrame], pd.DataFrame, pd.DataFrame]:
    """The side-by-side figures, recall@5 over time and the latest run's recall@5 per collection, of
    the runs with figures (complete or partial)."""
    names = run_names(runs)
    shown = [r for r in runs if r.shown]
    figures = {
        key: frame(
            [(names[r.run_id], v) for r in shown[-SIDE_BY_SIDE:] if (v := _figure(r, key)) is not None],
            FIGURE_COLUMNS,
        )
        for key, _ in CHARTED
    }
    over_time = frame(
        [(_when(r.started), v, names[r.run_id]) for r in shown if (v := _figure(r, "recall@5")) is not None],
        TIME_COLUMNS,
    )
    latest = shown[-1] if shown else None
    per_collection = frame(
        [
            (name, v)
            for name in (latest.metrics if latest else {})
            if name != "all" and latest and (v := _figure(latest, "recall@5", name)) is not None
        ],
        COLLECTION_COLUMNS,
    )
    return figures, per_collection, over_time


def _notes(
    figures: dict[str, pd.DataFrame], per_collection: pd.DataFrame, over_time: pd.DataFrame
) -> dict[str, str]:
    """Each chart's note; one with nothing to draw is hidden, so its note names it."""
    notes = {key: chart_note(figures[key], "value", "run", NO_DATA[key]) for key, _ in CHARTED}
    notes["by_collection"] = chart_note(per_collection, "recall@5", "collection", NO_DATA["by_collection"])
    notes["over_time"] = chart_note(over_time, "recall@5", "run", NO_DATA["over_time"])
    if len(over_time) == 1:  # a line needs two points
        run, value = over_time["run"].iloc[0], over_time["recall@5"].iloc[0]
        notes["over_time"] = f"One run so far ({run}: recall@5 {value:g}); the line starts with the second."
    titles = {**dict(CHARTED), "by_collection": "recall@5 per collection", "over_time": "recall@5 over time"}
    drawn = {key: not figures[key].empty for key, _ in CHARTED}
    drawn |= {"by_collection": not per_collection.empty, "over_time": len(over_time) > 1}
    return {key: note if drawn[key] else f"**{titles[key]}** · {note}" for key, note in notes.items()}


def eval_view(desk: DesktopApp) -> EvalView:
    """Everything the tab shows about the latest test set and its runs."""
    try:
        test_set = desk.evaluation.latest_set()
        runs = desk.evaluation.store.runs(test_set.set_id) if test_set else []
    except KimasError as err:
        test_set, runs = None, []
        line = "⚠ " + esc(desk.explain(err, "reading the evaluation runs"))
    else:
        line = set_line(test_set)
    figures, per_collection, over_time = _charts(runs)
    shown = [r for r in runs if r.shown]
    latest = shown[-1] if shown else None
    failed = failed_rows(latest) if latest else pd.DataFrame(columns=FAILED_HEADERS)
    title = run_names(runs)[latest.run_id] if latest else ""
    return EvalView(
        line,
        figures,
        per_collection,
        over_time,
        _runs_table(runs, len(test_set.questions) if test_set else 0),
        failed,
        f"Failed questions of run {title} ({len(failed)})" if latest else "Failed questions (no run yet)",
        _notes(figures, per_collection, over_time),
        easiness(test_set),
        len(test_set.questions) if test_set else 0,
    )


def answered(size: int, asked: float | None) -> int:
    """'Questions also answered' for a test set of ``size`` questions: the number in the field (the
    default when it is empty), never more than the set holds (issue 46: 20 of a 10-question set)."""
    wanted = DEFAULT_ANSWERS if asked is None else max(0, int(asked))
    return min(wanted, size) if size else wanted


def _time_left(job: EvalJob) -> str:
    """The time left, counted down since it was measured; past it, said so rather than a time gone by."""
    if job.seconds_left is None:
        return time_left_text(None)
    left = job.seconds_left - (time.monotonic() - job.measured_at)
    return time_left_text(left) if left > 0 else "taking longer than measured so far…"


def progress_html(job: EvalJob) -> str:
    """The line under the buttons: what is going, or how the last one ended."""
    if not job.kind:
        if not job.message:
            return "<div class='kimas-progress idle' data-state='idle'></div>"
        text = ("" if job.ok else "⚠ ") + html.escape(job.message, quote=False)
        return f"<div class='kimas-progress idle' data-state='ended'>{text}</div>"
    pct = round(100 * job.done / job.total) if job.total else 0
    if job.kind == "set":
        what = f"Making a test set: {job.done} / {job.total} questions"
    else:
        left = f" · {_time_left(job)}" if job.done < job.total else ""
        now = f" · last: “{html.escape(job.question, quote=False)}”" if job.question else ""
        if job.stopping:
            left, now = "", " · stopping; the figures measured so far are kept…"
        what = f"Running the test set: {job.done} / {job.total} questions{left}{now}"
    return (
        f"<div class='kimas-progress' data-state='{job.kind}'><div>{what}</div>"
        f"<div class='kimas-bar'><div style='width:{pct}%'></div></div></div>"
    )


def _started(desk: DesktopApp, outcome: ActionResult) -> str:
    """The progress line after a button: the job as it is now, or why nothing started."""
    if outcome.ok:
        return progress_html(desk.evaluation_job.state())
    text = html.escape(outcome.message, quote=False)
    return f"<div class='kimas-progress idle' data-state='refused'>⚠ {text}</div>"


def make_set(desk: DesktopApp, size: float | None) -> str:
    """Start making a test set of ``size`` questions (the progress line)."""
    return _started(desk, desk.evaluation_job.make_set(int(size or DEFAULT_QUESTIONS)))


def start_run(desk: DesktopApp, preset: str | None, answers: float | None) -> str:
    """Start a run of the latest test set under ``preset`` (the progress line)."""
    return _started(desk, desk.evaluation_job.run(preset or "configured", max(0, int(answers or 0))))


def cancel(desk: DesktopApp) -> str:
    """Stop the run (it is saved as cancelled, with the figures of the questions it finished)."""
    return _started(desk, desk.evaluation_job.cancel())


def poll(desk: DesktopApp, seen: str | None) -> EvalPoll:
    """The progress line, and the whole view when a set or run started or ended since ``seen``."""
    job = desk.evaluation_job.state()
    key = f"{job.ended}:{job.kind}"
    return EvalPoll(key, progress_html(job), None if key == seen else eval_view(desk))
