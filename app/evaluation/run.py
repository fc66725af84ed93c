"""One evaluation run (issue 26): a test set through the product's own retrieval and answer paths.

Every question goes through ``Pipeline.retrieve`` (routing, recall@k and MRR of the expected passage);
a sample of them (``answers``: a third of them controls, the answerable ones from every collection) also through
``Pipeline.ask``, as a user would ask it: whether the grounded quote holds the answer, whether a control
is declined and an answerable question is not, the support check's share of supported sentences, and the
time to the first grounded words and to the first word of the model's answer. The run reads the
collections and never writes to them. A run that is cancelled or fails is saved as such, never as
complete; a cancelled one keeps the figures of the questions it ran (``EvalRun.partial``).

How long it takes is measured as it goes: each question's seconds (``QuestionResult.seconds``), and
from them the time left (``TimeLeft``): the questions still to retrieve times the measured seconds of a
retrieval-only question, plus those still to answer times the measured seconds of an answered one. The
answered sample starts with the set's first question, so both speeds are known after a few questions.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.evaluation.questions import EvalQuestion, TestSet, finds
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import Cancelled
from kimas_desktop.events import AnswerDelta, Done, QuoteReady, SupportReady
from kimas_desktop.pipeline import Pipeline

DEPTH = 10  # ranks looked at for MRR
FAILED_AT = 5  # a question whose evidence is not in the top 5 is listed as failed


@dataclass
class QuestionResult:
    qid: str
    question: str
    answerable: bool
    collection: str
    rank: int | None = None  # of the expected evidence among the hits (1 = first), None: not in the top 10
    routed: bool | None = None  # its collection was among those searched
    top_route: str = ""
    found: list[str] = field(default_factory=list)  # the top three hits, "file: text…"
    expected: str = ""  # "file: evidence"
    # Answer path (only for the sampled questions)
    asked: bool = False
    outcome: str = ""
    quote_has_answer: bool | None = None
    supported: float | None = None
    first_grounded_ms: float | None = None
    first_token_ms: float | None = None
    seconds: float | None = None  # how long the question took (retrieval, and the answer when asked)


@dataclass
class EvalRun:
    run_id: str
    set_id: str
    label: str  # what the user compares by: the preset and models
    config: dict[str, Any]
    started: float
    status: str = "running"  # running, complete, cancelled, failed
    finished: float | None = None
    error: str = ""
    k: int = 5
    results: list[QuestionResult] = field(default_factory=list)
    metrics: dict[str, dict[str, float | int | None]] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return self.status == "complete"

    @property
    def partial(self) -> bool:
        """Stopped before its end (cancelled, or its process gone) with some questions measured: its
        figures are those questions' only."""
        return self.status in ("cancelled", "interrupted") and bool(self.results)

    @property
    def shown(self) -> bool:
        """Has figures to show: complete, or partial."""
        return self.complete or self.partial


def _rate(flags: Iterable[bool | None]) -> float | None:
    xs = [bool(f) for f in flags if f is not None]
    return round(sum(xs) / len(xs), 3) if xs else None


def _pct(values: Sequence[float], q: float) -> float | None:
    xs = sorted(values)
    if not xs:
        return None
    return round(xs[min(len(xs) - 1, round(q * (len(xs) - 1)))], 1)


def metrics(results: Sequence[QuestionResult], k: int) -> dict[str, float | int | None]:
    answerable = [r for r in results if r.answerable]
    controls = [r for r in results if not r.answerable]
    asked_ans = [r for r in answerable if r.asked]
    asked_ctl = [r for r in controls if r.asked]
    grounded = [r.first_grounded_ms for r in results if r.first_grounded_ms is not None]
    first = [r.first_token_ms for r in results if r.first_token_ms is not None]
    return {
        "questions": len(answerable),
        "controls": len(controls),
        "routing": _rate(r.routed for r in answerable),
        f"recall@{k}": _rate(r.rank is not None and r.rank <= k for r in answerable),
        "mrr": round(sum(1 / r.rank for r in answerable if r.rank) / len(answerable), 3)
        if answerable
        else None,
        "quote_has_answer": _rate(r.quote_has_answer for r in asked_ans),
        "declined_controls": _rate(r.outcome in ("declined", "nothing found") for r in asked_ctl),
        "falsely_declined": _rate(r.outcome in ("declined", "nothing found") for r in asked_ans),
        "supported": round(statistics.fmean(s), 3)
        if (s := [r.supported for r in results if r.supported is not None])
        else None,
        "first_grounded_ms_median": round(statistics.median(grounded), 1) if grounded else None,
        "first_grounded_ms_p90": _pct(grounded, 0.9),
        "first_token_ms_median": round(statistics.median(first), 1) if first else None,
        "first_token_ms_p90": _pct(first, 0.9),
    }


def summarize(run: EvalRun) -> dict[str, dict[str, float | int | None]]:
    """Figures overall and per collection (controls belong to no collection: they count overall only)."""
    out = {"all": metrics(run.results, run.k)}
    for name in sorted({r.collection for r in run.results if r.collection}):
        out[name] = metrics([r for r in run.results if r.collection == name], run.k)
    return out


def _sample(questions: Sequence[EvalQuestion], n: int) -> set[str]:
    """``n`` question ids to ask, spread over the set: a third of them (at least their share of the
    set) unanswerable controls, so that "controls declined" rests on more than one or two; the
    answerable ones taken in turn from each collection, the set's first question among them."""
    if n <= 0:
        return set()
    answerable = [q for q in questions if q.answerable]
    controls = [q for q in questions if not q.answerable]
    n_controls = min(len(controls), max(round(n * len(controls) / max(1, len(questions))), n // 3))
    if len(answerable) < n - n_controls:
        n_controls = min(len(controls), n - len(answerable))
    out = set(_spread_ids(controls, n_controls))
    by_collection: dict[str, list[EvalQuestion]] = {}
    for q in answerable:
        by_collection.setdefault(q.collection, []).append(q)
    shares = _shares({c: len(qs) for c, qs in by_collection.items()}, n - n_controls)
    for c, qs in by_collection.items():
        out |= set(_spread_ids(qs, shares[c]))
    return out


def _spread_ids(group: Sequence[EvalQuestion], n: int) -> list[str]:
    """``n`` ids of ``group`` at even steps, its first one first."""
    n = min(n, len(group))
    step = len(group) / n if n else 0
    return [group[int(i * step)].qid for i in range(n)]


def _shares(sizes: dict[str, int], n: int) -> dict[str, int]:
    """``n`` split over the groups in proportion to their sizes, every group one before any has two."""
    out = dict.fromkeys(sizes, 0)
    for _ in range(min(n, sum(sizes.values()))):
        open_ = [c for c in sizes if out[c] < sizes[c]]
        best = min(open_, key=lambda c: (out[c] / sizes[c], -sizes[c]))
        out[best] += 1
    return out


def _excerpt(path: str, text: str, n: int = 160) -> str:
    flat = " ".join(text.split())
    return f"{Path(path).name}: {flat[:n]}{'…' if len(flat) > n else ''}"


def _retrieve(pipeline: Pipeline, q: EvalQuestion, r: QuestionResult) -> None:
    found = pipeline.retrieve(q.question)
    r.top_route = found.routes[0].collection if found.routes else ""
    r.routed = q.collection in found.active if q.answerable else None
    r.found = [_excerpt(h.chunk.source, h.chunk.text) for h in found.hits[:3]]
    if q.answerable:
        r.expected = _excerpt(q.source, q.evidence, 240)
        r.rank = next(
            (i for i, h in enumerate(found.hits[:DEPTH], 1) if finds(q.evidence, q.source, h.chunk)), None
        )


def _ask(pipeline: Pipeline, q: EvalQuestion, r: QuestionResult, cancel: CancelToken) -> None:
    start = time.perf_counter()
    r.asked = True
    for event in pipeline.ask(q.question, cancel=cancel):
        ms = round((time.perf_counter() - start) * 1000, 1)
        if isinstance(event, QuoteReady):
            if event.quotes:
                r.first_grounded_ms = ms
            text = " ".join(x.text for x in event.quotes).lower()
            r.quote_has_answer = bool(q.answer) and q.answer.lower() in text if q.answerable else None
        elif isinstance(event, AnswerDelta) and r.first_token_ms is None and event.text.strip():
            r.first_token_ms = ms
        elif isinstance(event, SupportReady) and event.sentences:
            r.supported = round(1 - event.unsupported / len(event.sentences), 3)
        elif isinstance(event, Done):
            r.outcome = event.outcome.kind


@dataclass(frozen=True)
class RunProgress:
    """Where a run is: ``done`` of ``total`` questions, the last one, and the seconds left as the
    measured speed predicts them (None until a question of each kind still to come was measured)."""

    done: int
    total: int
    question: str
    seconds_left: float | None


Progress = Callable[[RunProgress], None]


class TimeLeft:
    """The time a run has left, from the seconds its questions took so far: retrieval-only ones and
    answered ones apart (an answer costs many retrievals). The latest questions weigh most, so that
    the estimate follows the machine when it gets busier or quieter."""

    RECENT = 8  # questions of each kind the speed is taken from

    def __init__(self, total: int, asked: int) -> None:
        self._left = {False: total - asked, True: asked}
        self._seconds: dict[bool, list[float]] = {False: [], True: []}

    def measured(self, asked: bool, seconds: float) -> None:
        self._left[asked] -= 1
        self._seconds[asked].append(seconds)

    def seconds(self) -> float | None:
        total = 0.0
        for kind, left in self._left.items():
            if left <= 0:
                continue
            recent = self._seconds[kind][-self.RECENT :]
            if not recent:
                return None
            total += left * statistics.fmean(recent)
        return round(total, 1)


def _one(pipeline: Pipeline, q: EvalQuestion, asked: bool, cancel: CancelToken) -> QuestionResult:
    start = time.perf_counter()
    r = QuestionResult(q.qid, q.question, q.answerable, q.collection)
    _retrieve(pipeline, q, r)
    if asked:
        _ask(pipeline, q, r, cancel)
    r.seconds = round(time.perf_counter() - start, 3)
    return r


def run_evaluation(
    pipeline: Pipeline,
    test_set: TestSet,
    run: EvalRun,
    *,
    answers: int = 40,
    cancel: CancelToken | None = None,
    progress: Progress | None = None,
    save: Callable[[EvalRun], None] = lambda run: None,
) -> EvalRun:
    """Fill ``run`` with a result per question and its figures; ``save`` is called as it goes (the run
    stays ``running``) and at the end (``complete``, ``cancelled`` or ``failed``). A cancelled run
    keeps the questions it finished and their figures."""
    cancel = cancel or CancelToken()
    asked = _sample(test_set.questions, answers)
    total = len(test_set.questions)
    clock = TimeLeft(total, len(asked))
    try:
        for i, q in enumerate(test_set.questions, 1):
            if cancel.cancelled:
                raise Cancelled("the evaluation was stopped")
            r = _one(pipeline, q, q.qid in asked, cancel)
            run.results.append(r)
            clock.measured(r.asked, r.seconds or 0.0)
            if progress:
                progress(RunProgress(i, total, q.question, clock.seconds()))
            if i % 20 == 0:
                run.metrics = summarize(run)
                save(run)
        run.status = "complete"
    except Cancelled:
        run.status = "cancelled"
    except Exception as err:  # a failed run is saved as failed, with the reason, then re-raised
        run.status, run.error = "failed", str(err)
        raise
    finally:
        run.finished = time.time()
        run.metrics = summarize(run)
        save(run)
    return run


def time_left_text(seconds: float | None) -> str:
    """The time left in words, to the nearest 5 s (10 s past a minute): "about 1 min 20 s left"."""
    if seconds is None:
        return "measuring the speed…"
    if seconds < 60:
        return f"about {max(5, 5 * round(seconds / 5))} s left"
    minutes, rest = divmod(10 * round(seconds / 10), 60)
    return f"about {minutes} min {rest} s left" if rest else f"about {minutes} min left"
