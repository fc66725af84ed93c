"""The Evaluation tab's job in the background: one at a time, its progress and how it ended on the tab's
line, an error as a sentence, Cancel only while a run goes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import cast

from app.evaluation import questions
from app.evaluation.evaluation import Evaluation
from app.evaluation.job import EvaluationJob


class Sets:
    """Stands in for ``Evaluation``: ``build_set`` reports progress, then waits until released."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()
        self.fail: Exception | None = None

    def build_set(self, size: int, *, progress: Callable[[int, int], None]) -> questions.TestSet:
        progress(1, size)
        self.started.set()
        self.release.wait(10)
        if self.fail is not None:
            raise self.fail
        question = questions.EvalQuestion("q1", "What?", True, "c", "a.txt", "evidence")
        return questions.TestSet("s1", 0.0, "sentences", ("c",), (question,) * size)

    def latest_set(self) -> questions.TestSet | None:
        return None


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def job_of(sets: Sets) -> EvaluationJob:
    return EvaluationJob(cast(Evaluation, sets), lambda err, doing: f"{doing} failed: {err}")


def test_one_job_at_a_time_with_its_progress_then_how_it_ended() -> None:
    sets = Sets()
    job = job_of(sets)
    started = job.make_set(3)
    assert started.ok and started.message == "Making a test set…"
    assert sets.started.wait(10)
    assert job.state().kind == "set" and (job.state().done, job.state().total) == (1, 3)
    again = job.make_set(3)
    assert not again.ok and "already going" in again.message
    refused = job.cancel()  # only a run can be cancelled
    assert not refused.ok and refused.message == "No evaluation is running."
    sets.release.set()
    assert wait_for(lambda: not job.state().kind)
    ended = job.state()
    assert ended.ok and ended.message == "A test set of 3 questions was made." and ended.ended == 1


def test_an_error_ends_the_job_with_a_sentence_and_a_run_needs_a_set() -> None:
    sets = Sets()
    sets.fail = RuntimeError("disk full")
    sets.release.set()
    job = job_of(sets)
    assert job.make_set(2).ok
    assert wait_for(lambda: job.state().ended == 1)
    assert not job.state().ok and job.state().message == "making the test set failed: disk full"
    refused = job.run("turbo", 4)
    assert not refused.ok and "Make a test set first" in refused.message
    assert job.state().message == refused.message  # kept on the tab's progress line
