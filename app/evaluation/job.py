"""``EvaluationJob``: the Evaluation tab's work in the background (issue 26), one job at a time: making a
test set, or running one (which Cancel stops after its current question). What the tab shows of it is an
``EvalJob``, read with ``state()``."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from app.evaluation.evaluation import Evaluation
from app.evaluation.run import RunProgress
from app.outcomes import ActionResult, Said, attempt
from kimas_desktop.control import CancelToken

__all__ = ["EvalJob", "EvaluationJob"]


@dataclass(frozen=True)
class EvalJob:
    """The Evaluation tab's work in the background: a test set being made or a run going (``kind``), or
    idle (``kind`` ""), with how the last one ended; ``ended`` counts the ended ones (the tab redraws)."""

    kind: Literal["", "set", "run"] = ""  # a test set being made, a run going, or idle
    done: int = 0
    total: int = 0
    question: str = ""  # the last one run
    message: str = ""  # how the last one ended (English)
    said: Said | None = None  # the same as a code and values (the UI words it)
    ok: bool = True
    ended: int = 0
    stopping: bool = False  # Cancel was pressed; the question under way is left out, the rest kept
    seconds_left: float | None = None  # a run's time left at its measured speed (None: not known yet)
    measured_at: float = 0.0  # time.monotonic() when ``seconds_left`` was measured


class EvaluationJob:
    """Starts, follows and cancels the one evaluation job; errors become sentences through ``explain``."""

    def __init__(self, evaluation: Evaluation, explain: Callable[[BaseException, str], str]) -> None:
        self._evaluation = evaluation
        self._explain = explain
        self._lock = threading.Lock()
        self._job = EvalJob()
        self._cancel = CancelToken()

    def state(self) -> EvalJob:
        return self._job

    def make_set(self, size: int) -> ActionResult:
        """Make a new test set from every collection with chunks, in the background."""

        def work(cancel: CancelToken) -> Said:
            made = self._evaluation.build_set(size, progress=lambda done, total: self._at(done, total))
            n = len(made.questions)
            return Said(f"A test set of {n} questions was made.", "eval_set_made", {"n": n})

        return self._start(
            "set", size, work, "making the test set", Said("Making a test set…", "eval_making")
        )

    def run(self, preset: str, answers: int) -> ActionResult:
        """Run the latest test set under ``preset`` ("configured": the settings in use), in the
        background; ``answers`` of its questions are also answered by the chat model."""
        test_set = self._evaluation.latest_set()
        if test_set is None:
            return self._refuse(Said("Make a test set first: there is nothing to run yet.", "eval_no_set"))

        def work(cancel: CancelToken) -> Said:
            run = self._evaluation.run(
                test_set.set_id,
                preset,
                answers=answers,
                cancel=cancel,
                progress=self._ran,
            )
            values: dict[str, str | int | float] = {"run": run.label, "status": run.status}
            values |= {"done": len(run.results), "total": len(test_set.questions)}
            if run.complete:
                return Said(f"Run '{run.label}' is complete.", "eval_run_complete", values)
            done = f"{len(run.results)} of {len(test_set.questions)} questions"
            if run.partial:
                english = f"Run '{run.label}' was {run.status} after {done}; its partial figures are shown."
                return Said(english, "eval_run_partial", values)
            english = f"Run '{run.label}' was {run.status} after {done}; it has no figures."
            return Said(english, "eval_run_no_figures", values)

        total = len(test_set.questions)
        running = Said(f"Running {total} questions…", "eval_running", {"n": total})
        return self._start("run", total, work, "running the evaluation", running)

    def cancel(self) -> ActionResult:
        if self._job.kind != "run":
            return self._refuse(Said("No evaluation is running.", "eval_not_running"))
        with self._lock:
            self._job = replace(self._job, stopping=True)
        self._cancel.cancel()
        stopping = "Stopping the run; the figures measured so far are kept…"
        return ActionResult(True, stopping, Said(stopping, "eval_stopping"))

    def close(self) -> None:
        self._cancel.cancel()

    def _refuse(self, said: Said) -> ActionResult:
        """Say why nothing started (kept on the tab's progress line until the next start)."""
        with self._lock:
            if not self._job.kind:
                self._job = replace(self._job, message=said.english, said=said, ok=False)
        return ActionResult(False, said.english, said)

    def _at(self, done: int, total: int, question: str = "") -> None:
        with self._lock:
            self._job = replace(self._job, done=done, total=total, question=question)

    def _ran(self, p: RunProgress) -> None:
        with self._lock:
            self._job = replace(
                self._job,
                done=p.done,
                total=p.total,
                question=p.question,
                seconds_left=p.seconds_left,
                measured_at=time.monotonic(),
            )

    def _start(
        self,
        kind: Literal["set", "run"],
        total: int,
        work: Callable[[CancelToken], Said],
        doing: str,
        started: Said,
    ) -> ActionResult:
        with self._lock:
            if self._job.kind:
                busy = "An evaluation is already going: wait for it or cancel it."
                return ActionResult(False, busy, Said(busy, "eval_busy"))
            cancel = self._cancel = CancelToken()
            self._job = EvalJob(kind, 0, total, ended=self._job.ended)

        def go() -> None:
            result = attempt(self._explain, doing, lambda: work(cancel))
            with self._lock:
                ended = self._job.ended + 1
                self._job = EvalJob(message=result.message, said=result.said, ok=result.ok, ended=ended)

        threading.Thread(target=go, name=f"kimas-eval-{kind}", daemon=True).start()
        return ActionResult(True, started.english, started)
