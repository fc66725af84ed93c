"""``kimas eval``: how good the answers are on your own documents (issue 26).

kimas eval [--preset P] [--answers N] [--new-set] [--size N] [--json]   run (a test set is made once)
kimas eval --list                                                       the saved runs, side by side

The progress line on stderr says the questions done and the time left at the measured speed; Ctrl-C
stops the run, which keeps (and prints) the figures of the questions it finished, marked partial.
"""

from __future__ import annotations

import argparse
import signal
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from app.evaluation.evaluation import DEFAULT_ANSWERS, DEFAULT_QUESTIONS, Evaluation
from app.evaluation.questions import EASINESS
from app.evaluation.retrieval_test import RetrievalTest
from app.evaluation.run import EvalRun, RunProgress, time_left_text
from app.paths import read_config, resolve_paths
from app.runtime import Runtime
from cli.render import Progress, dumps
from cli.terminal import redraw, say
from kimas_desktop.config import PRESETS
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import KimasError
from kimas_desktop.text.visible import visible_name

FIGURES = (
    ("routing", "routing accuracy"),
    ("recall@5", "expected passage in the top 5"),
    ("mrr", "MRR"),
    ("quote_has_answer", "grounded quote holds the answer"),
    ("declined_controls", "unanswerable questions declined"),
    ("falsely_declined", "answerable questions declined"),
    ("supported", "answer sentences supported"),
    ("first_grounded_ms_median", "first grounded words, median ms"),
    ("first_grounded_ms_p90", "first grounded words, p90 ms"),
    ("first_token_ms_median", "first word of the answer, median ms"),
    ("first_token_ms_p90", "first word of the answer, p90 ms"),
)


def add_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "eval",
        parents=[common],
        help="measure retrieval and answers on a test set made from your collections",
    )
    p.add_argument("--preset", choices=PRESETS, help="run under this preset (default: the configured one)")
    p.add_argument(
        "--answers",
        type=int,
        default=DEFAULT_ANSWERS,
        help=f"questions also answered by the chat model (default {DEFAULT_ANSWERS}: about two minutes "
        f"with {DEFAULT_QUESTIONS} questions on a quiet 2-core laptop)",
    )
    p.add_argument("--size", type=int, default=DEFAULT_QUESTIONS, help="questions in a new test set")
    p.add_argument("--new-set", action="store_true", help="make a new test set from the collections")
    p.add_argument(
        "--with-model", action="store_true", help="with --new-set: the chat model writes the questions"
    )
    p.add_argument("--collection", action="append", default=[], help="only this collection (repeatable)")
    p.add_argument("--list", action="store_true", help="print the saved runs of the latest test set")
    p.add_argument("--add", metavar="QUESTION", help="add your own question to the latest test set")
    p.add_argument("--file", help="with --add: the indexed file that answers it")
    p.add_argument("--answer", default="", help="with --add: words the answer must contain")
    p.add_argument("--query", help="retrieval testing: each passage's score in every stage for this question")
    p.add_argument("--json", action="store_true", help="print the run as JSON")
    p.set_defaults(run=run_eval)


def _status(run: EvalRun) -> str:
    n = len(run.results)
    return f"{run.status}, partial: {n} question{'s' if n != 1 else ''}" if run.partial else run.status


def _table(runs: list[EvalRun]) -> str:
    head = "| figure | " + " | ".join(f"{r.label} ({_status(r)})" for r in runs) + " |"
    lines = [head, "|---" * (len(runs) + 1) + "|"]
    for key, name in FIGURES:
        cells = []
        for r in runs:
            v = r.metrics.get("all", {}).get(key.replace("@5", f"@{r.k}")) if r.shown else None
            cells.append("—" if v is None else f"{v:g}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _per_collection(run: EvalRun) -> str:
    rows = [
        f"  {name}: recall@{run.k} {m.get(f'recall@{run.k}')}, routing {m.get('routing')}, MRR {m.get('mrr')}"
        for name, m in run.metrics.items()
        if name != "all"
    ]
    return "\n".join(rows)


def _progress_line(p: RunProgress) -> None:
    """The run's progress on stderr: questions done, the time left, the last question."""
    width = 30
    filled = int(width * p.done / max(p.total, 1))
    left = time_left_text(p.seconds_left) if p.done < p.total else "done"
    bar = "#" * filled + "-" * (width - filled)
    redraw(f"evaluating [{bar}] {p.done}/{p.total} · {left:<22} · {p.question[:40]:<40}")


def _inspection(t: RetrievalTest, as_json: bool) -> str:
    if as_json:
        return dumps(asdict(t))

    routes = ", ".join(f"{r.collection} {r.score:.3f}" for r in t.routes)
    lines = [
        f"Question: {t.question}",
        f"Rewrite: {t.rewrite}",
        f"Routing: {routes}; searched: {', '.join(t.searched) or 'none'}",
        "Each stage's rank is within the passage's collection; final is the order the answer sees.",
        "",
        "| final | dense | full text | fused | passage |",
        "|---|---|---|---|---|",
    ]
    for p in t.passages:
        text = " ".join(p.chunk.text.split())[:90]
        lines.append(f"| {' | '.join(p.stages())} | {visible_name(Path(p.chunk.source).name)}: {text} |")
    return "\n".join(lines)


def run_eval(args: argparse.Namespace) -> int:
    paths = resolve_paths(args.data_dir, args.config)
    runtime = Runtime(paths, read_config(paths))
    evaluation = Evaluation(runtime, lambda: read_config(paths), paths.config_file)
    try:
        if args.query:
            say(_inspection(evaluation.inspect(args.query, args.preset), args.json))
            return 0
        test_set = None if args.new_set else evaluation.latest_set()
        if args.add:
            if test_set is None or not args.file:
                raise KimasError("--add needs --file and a test set (run `kimas eval` once first)")
            test_set = evaluation.add_question(test_set.set_id, args.add, args.file, args.answer)
            say(f"Added to test set {test_set.set_id} ({len(test_set.questions)} questions).")
            return 0
        if args.list:
            runs = evaluation.store.runs(test_set.set_id) if test_set else []
            say(_table(runs) if runs else "No evaluation run yet: `kimas eval` makes one.")
            return 0
        if test_set is None:
            bar = Progress(args.size, "making the test set")
            test_set = evaluation.build_set(
                args.size, args.collection, with_model=args.with_model, progress=lambda d, n: bar.update(d)
            )
        cancel = CancelToken()
        previous = signal.signal(signal.SIGINT, lambda *_: cancel.cancel())  # Ctrl-C stops it, saved as such
        try:
            run = evaluation.run(
                test_set.set_id, args.preset, answers=args.answers, cancel=cancel, progress=_progress_line
            )
        finally:
            signal.signal(signal.SIGINT, previous)
            say(file=sys.stderr)  # the progress line ends
        if args.json:
            out: dict[str, Any] = asdict(run)
            say(dumps(out))
        else:
            say(
                f"Test set {test_set.set_id}: {test_set.answerable} questions and "
                f"{len(test_set.questions) - test_set.answerable} unanswerable controls; run {run.run_id}."
            )
            if run.partial:
                say(
                    f"Stopped after {len(run.results)} of {len(test_set.questions)} questions: partial figures."
                )
            if test_set.method.startswith("known-item"):
                say(EASINESS)
            say(_table(evaluation.store.runs(test_set.set_id)[-4:]))
            say(_per_collection(run))
        return 0 if run.complete else 1
    finally:
        runtime.close()
