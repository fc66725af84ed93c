"""The Evaluation tab's progress line (issue 26): what the job in the background is doing, or how the last
one ended, in the page's language (issue 60: the job says it with a code, ``app.outcomes.Said``)."""

from __future__ import annotations

import html
import time
from dataclasses import replace

from app.desktop import EvalJob
from ui.evaluation.words import EVALUATION
from ui.i18n import Language, told, word

__all__ = ["progress_html", "time_left_text"]


def time_left_text(seconds: float | None, language: Language = "en") -> str:
    """The time left in words, to the nearest 5 s (10 s past a minute): "about 1 min 20 s left"."""
    if seconds is None:
        return word("ev_measuring", language)
    if seconds < 60:
        return word("ev_left_s", language, s=max(5, 5 * round(seconds / 5)))
    minutes, rest = divmod(10 * round(seconds / 10), 60)
    if rest:
        return word("ev_left_min_s", language, min=minutes, s=rest)
    return word("ev_left_min", language, min=minutes)


def _time_left(job: EvalJob, language: Language) -> str:
    """The time left, counted down since it was measured; past it, said so rather than a time gone by."""
    if job.seconds_left is None:
        return time_left_text(None, language)
    left = job.seconds_left - (time.monotonic() - job.measured_at)
    return time_left_text(left, language) if left > 0 else word("ev_longer", language)


def _job_said(job: EvalJob, language: Language) -> str:
    """How the last job ended, in ``language`` (a run's status in its words too)."""
    said = job.said
    if said is not None and "status" in said.values and language == "zh":
        status = str(said.values["status"])
        key = f"ev_status_{status}"
        said = replace(
            said, values={**said.values, "status": word(key, language) if key in EVALUATION else status}
        )
    return told(said, job.message, language)


def progress_html(job: EvalJob, language: Language = "en") -> str:
    """The line under the buttons: what is going, or how the last one ended."""
    if not job.kind:
        if not job.message:
            return "<div class='kimas-progress idle' data-state='idle'></div>"
        text = ("" if job.ok else "⚠ ") + html.escape(_job_said(job, language), quote=False)
        return f"<div class='kimas-progress idle' data-state='ended'>{text}</div>"
    pct = round(100 * job.done / job.total) if job.total else 0
    if job.kind == "set":
        what = word("ev_making", language, done=job.done, total=job.total)
    else:
        left = f" · {_time_left(job, language)}" if job.done < job.total else ""
        question = html.escape(job.question, quote=False)
        now = word("ev_last", language, question=question) if job.question else ""
        if job.stopping:
            left, now = "", word("ev_stopping", language)
        what = word("ev_running", language, done=job.done, total=job.total) + left + now
    return (
        f"<div class='kimas-progress' data-state='{job.kind}'><div>{what}</div>"
        f"<div class='kimas-bar'><div style='width:{pct}%'></div></div></div>"
    )
