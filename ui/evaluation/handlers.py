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

from app.desktop import ActionResult, DesktopApp
from app.evaluation.evaluation import DEFAULT_ANSWERS, DEFAULT_QUESTIONS
from app.evaluation.questions import EASINESS, TestSet
from app.evaluation.run import EvalRun, QuestionResult
from kimas_desktop.config import PRESETS
from kimas_desktop.errors import KimasError
from ui.evaluation.progress import progress_html
from ui.evaluation.words import EVALUATION as EVAL_WORDS
from ui.i18n import Language, told, word
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
# The figures compared side by side: metric key ("@5" becomes the run's k), name on the chart (a key of
# ``ui.words``: the words of the tab are ``ui/evaluation/words.py``'s).
CHARTED = (
    ("recall@5", "ev_chart_recall"),
    ("mrr", "ev_chart_mrr"),
    ("quote_has_answer", "ev_chart_quote"),
    ("declined_controls", "ev_chart_declined"),
)
# Why a chart has nothing to draw yet (metric key, or "by_collection", "over_time"): a word key.
NO_DATA = {
    "recall@5": "ev_no_run_yet",
    "mrr": "ev_no_run_yet",
    "quote_has_answer": "ev_no_answerable",
    "declined_controls": "ev_no_control",
    "by_collection": "ev_no_run_yet",
    "over_time": "ev_no_run_yet",
}
# The runs table's figure columns: metric key, column header (a word key; None: the key itself, code).
COLUMNS = (
    ("recall@5", None),
    ("mrr", "MRR"),
    ("routing", "ev_col_routing"),
    ("quote_has_answer", "ev_col_quote"),
    ("declined_controls", "ev_col_declined"),
    ("falsely_declined", "ev_col_falsely"),
    ("supported", "ev_col_supported"),
    ("first_grounded_ms_median", "ev_col_grounded"),
    ("first_token_ms_median", "ev_col_first"),
)
SIDE_BY_SIDE = 8  # complete runs in the side-by-side charts (the latest ones; the table lists all)
# Column types of the chart data, fixed even when empty: a plot takes its axes' types from its first data.
FIGURE_COLUMNS = {"run": "str", "value": "float64"}
COLLECTION_COLUMNS = {"collection": "str", "recall@5": "float64"}
TIME_COLUMNS = {"started": "str", "recall@5": "float64", "run": "str"}  # "YYYY-MM-DD hh:mm:ss": in order
_RUN_KEYS = ["#", "ev_col_run", "ev_col_status", "ev_col_started", "ev_col_questions"]
_FAILED_KEYS = ["ev_col_question", "ev_col_wrong", "ev_col_expected", "ev_col_found", "ev_col_answer"]


def _said(key: str | None, language: Language, fallback: str = "") -> str:
    """A column's or a chart's name: a word key in ``language``; a key that is not one is code."""
    return word(key, language) if key and key.startswith("ev_") else (key or fallback)


def run_headers(language: Language = "en") -> list[str]:
    return [_said(k, language) for k in _RUN_KEYS] + [_said(n, language, m) for m, n in COLUMNS]


def failed_headers(language: Language = "en") -> list[str]:
    return [word(k, language) for k in _FAILED_KEYS]


RUN_HEADERS = run_headers()
FAILED_HEADERS = failed_headers()


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


def run_names(runs: list[EvalRun], language: Language = "en") -> dict[str, str]:
    """What the charts call each run: its number in the set (as wide as the largest, so that the charts'
    alphabetical order is the runs' order), its preset, and "(partial)" for a run stopped early."""
    width, partial = len(str(len(runs))), word("ev_partial", language)
    return {
        r.run_id: f"#{i:0{width}d} {r.config.get('preset', '')}".strip() + (partial if r.partial else "")
        for i, r in enumerate(runs, 1)
    }


def chart_note(data: pd.DataFrame, value: str, label: str, why: str, language: Language = "en") -> str:
    """What a chart says besides its drawing: "No data yet: …" when it has nothing to draw, the values
    in words when they are all 0 (bars of no height), and nothing otherwise."""
    if data.empty:
        return word("ev_no_data", language, why=why)
    if (data[value] == 0).all():
        return " · ".join(f"{name}: 0" for name in data[label]) + word("ev_no_height", language)
    return ""


def set_line(test_set: TestSet | None, language: Language = "en") -> str:
    if test_set is None:
        return word("ev_no_set", language)
    n, m = len(test_set.questions), len(test_set.collections)
    values = {"n": n, "answerable": test_set.answerable, "controls": n - test_set.answerable, "m": m}
    return word("ev_set", language, **values, s="s" if m != 1 else "", when=_when(test_set.created))


def easiness(test_set: TestSet | None, language: Language = "en") -> str:
    """How hard the set's questions are, shown next to the figures."""
    if test_set is None or not test_set.method.startswith("known-item"):
        return ""
    return f"**Note:** {EASINESS}" if language != "zh" else word("ev_easiness", language)


def _problems(r: QuestionResult, k: int, language: Language) -> list[str]:
    out = []
    if r.answerable and r.rank is None:
        out.append(word("ev_not_in_top", language))
    elif r.answerable and r.rank is not None and r.rank > k:
        out.append(word("ev_at_rank", language, rank=r.rank))
    if r.asked and r.answerable and r.outcome in DECLINED:
        out.append(word("ev_falsely_declined", language))
    if r.asked and not r.answerable and r.outcome and r.outcome not in (*DECLINED, "stopped"):
        out.append(word("ev_falsely_answered", language))
    return out


def _outcome(outcome: str, language: Language) -> str:
    """An answer's outcome ("declined", …) in ``language``; one the table does not know as it is."""
    key = "ev_outcome_" + outcome.replace(" ", "_")
    return word(key, language) if outcome and key in EVAL_WORDS else outcome or word("ev_not_asked", language)


def failed_rows(run: EvalRun, language: Language = "en") -> pd.DataFrame:
    """Answerable questions whose expected passage is not in the top k, and asked ones with a wrong
    outcome."""
    rows = []
    for r in run.results:
        problems = _problems(r, run.k, language)
        if problems:
            rows.append(
                [
                    r.question,
                    "; ".join(problems),
                    r.expected or word("ev_a_control", language),
                    "\n".join(f"{i}. {hit}" for i, hit in enumerate(r.found, 1))
                    or word("ev_nothing", language),
                    _outcome(r.outcome, language),
                ]
            )
    return pd.DataFrame(rows, columns=failed_headers(language))


def _status(run: EvalRun, language: Language) -> str:
    key = f"ev_status_{run.status}"
    status = word(key, language) if key in EVAL_WORDS else run.status
    return (
        status
        + (f": {run.error}" if run.error else "")
        + (word("ev_status_partial", language) if run.partial else "")
    )


def _runs_table(runs: list[EvalRun], size: int, language: Language) -> pd.DataFrame:
    rows = []
    for i, run in enumerate(runs, 1):
        figures = [_cell(_figure(run, key)) if run.shown else "—" for key, _ in COLUMNS]
        count = word("ev_of", language, n=len(run.results), total=size)
        rows.append([str(i), run.label, _status(run, language), _when(run.started), count, *figures])
    return pd.DataFrame(rows, columns=run_headers(language))


def _charts(
    runs: list[EvalRun], language: Language
) -> tuple[dict[str, pd.DataFrame], pd.DataFrame, pd.DataFrame]:
    """The side-by-side figures, recall@5 over time and the latest run's recall@5 per collection, of
    the runs with figures (complete or partial)."""
    names = run_names(runs, language)
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
    figures: dict[str, pd.DataFrame],
    per_collection: pd.DataFrame,
    over_time: pd.DataFrame,
    language: Language = "en",
) -> dict[str, str]:
    """Each chart's note; one with nothing to draw is hidden, so its note names it."""
    why = {key: word(w, language) for key, w in NO_DATA.items()}
    notes = {key: chart_note(figures[key], "value", "run", why[key], language) for key, _ in CHARTED}
    notes["by_collection"] = chart_note(
        per_collection, "recall@5", "collection", why["by_collection"], language
    )
    notes["over_time"] = chart_note(over_time, "recall@5", "run", why["over_time"], language)
    if len(over_time) == 1:  # a line needs two points
        run, value = over_time["run"].iloc[0], over_time["recall@5"].iloc[0]
        notes["over_time"] = word("ev_one_run", language, run=run, value=f"{value:g}")
    titles = {key: word(name, language) for key, name in CHARTED}
    titles |= {"by_collection": word("ev_note_by_collection", language)}
    titles |= {"over_time": word("ev_chart_over_time", language)}
    drawn = {key: not figures[key].empty for key, _ in CHARTED}
    drawn |= {"by_collection": not per_collection.empty, "over_time": len(over_time) > 1}
    return {key: note if drawn[key] else f"**{titles[key]}** · {note}" for key, note in notes.items()}


def eval_view(desk: DesktopApp, language: Language = "en") -> EvalView:
    """Everything the tab shows about the latest test set and its runs, in ``language``."""
    try:
        test_set = desk.evaluation.latest_set()
        runs = desk.evaluation.store.runs(test_set.set_id) if test_set else []
    except KimasError as err:
        test_set, runs = None, []
        line = "⚠ " + esc(desk.explain(err, "reading the evaluation runs"))
    else:
        line = set_line(test_set, language)
    figures, per_collection, over_time = _charts(runs, language)
    shown = [r for r in runs if r.shown]
    latest = shown[-1] if shown else None
    failed = failed_rows(latest, language) if latest else pd.DataFrame(columns=failed_headers(language))
    title = run_names(runs, language)[latest.run_id] if latest else ""
    return EvalView(
        line,
        figures,
        per_collection,
        over_time,
        _runs_table(runs, len(test_set.questions) if test_set else 0, language),
        failed,
        word("ev_failed_of", language, run=title, n=len(failed))
        if latest
        else word("ev_failed_none", language),
        _notes(figures, per_collection, over_time, language),
        easiness(test_set, language),
        len(test_set.questions) if test_set else 0,
    )


def answered(size: int, asked: float | None) -> int:
    """'Questions also answered' for a test set of ``size`` questions: the number in the field (the
    default when it is empty), never more than the set holds (issue 46: 20 of a 10-question set)."""
    wanted = DEFAULT_ANSWERS if asked is None else max(0, int(asked))
    return min(wanted, size) if size else wanted


def _started(desk: DesktopApp, outcome: ActionResult, language: Language) -> str:
    """The progress line after a button: the job as it is now, or why nothing started."""
    if outcome.ok:
        return progress_html(desk.evaluation_job.state(), language)
    text = html.escape(told(outcome.said, outcome.message, language), quote=False)
    return f"<div class='kimas-progress idle' data-state='refused'>⚠ {text}</div>"


def make_set(desk: DesktopApp, size: float | None, language: Language = "en") -> str:
    """Start making a test set of ``size`` questions (the progress line)."""
    return _started(desk, desk.evaluation_job.make_set(int(size or DEFAULT_QUESTIONS)), language)


def start_run(desk: DesktopApp, preset: str | None, answers: float | None, language: Language = "en") -> str:
    """Start a run of the latest test set under ``preset`` (the progress line)."""
    started = desk.evaluation_job.run(preset or "configured", max(0, int(answers or 0)))
    return _started(desk, started, language)


def cancel(desk: DesktopApp, language: Language = "en") -> str:
    """Stop the run (it is saved as cancelled, with the figures of the questions it finished)."""
    return _started(desk, desk.evaluation_job.cancel(), language)


def poll(desk: DesktopApp, seen: str | None, language: Language = "en") -> EvalPoll:
    """The progress line, and the whole view when a set or run started or ended since ``seen``."""
    job = desk.evaluation_job.state()
    key = f"{job.ended}:{job.kind}"
    return EvalPoll(key, progress_html(job, language), None if key == seen else eval_view(desk, language))
