"""What a person is shown by `kimas ask --json`, read back for the loop benchmark (issue 69,
``bench.answer_loops``): a loop detector written apart from the product's stream guard
(``kimas_desktop/answer/writing/guard.py``), one typed record per answer (``Shown``), and the tallies per
language (``tally``). Pure functions; a library, not a benchmark.

A **loop** (``loop_kind``), on the text with its whitespace collapsed:
- ``span``: a span of ``SPAN`` or more characters (a letter or digit among them) that comes three times
  or more, the copies not overlapping;
- ``line``: a line of ``SPAN`` or more characters written twice;
- ``markers``: three citation markers in a row with nothing but spaces or punctuation between them, or an
  answer that is markers alone.
A span or line counts only when the text holds more copies of it than ``sources`` do (the quote and the
evidence the model was given): a quoted table's "设备文件: /dev/…" rows or a passage that names "Red Bull"
three times are the documents' own words, not a loop.

**Gold** is ``bench.devkit.contains_answer`` (case and punctuation folded), in both languages.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.devkit import contains_answer, rate

__all__ = ["SPAN", "Shown", "loop_kind", "percentile", "tally"]

SPAN = 10
_MARKER = re.compile(r"\[\d+(?:\s*[,;]\s*\d+)*\]|【\d+】")
_MARKER_RUN = re.compile(r"(?:(?:\[\d+(?:\s*[,;]\s*\d+)*\]|【\d+】)[\s,;.:，、；。]*){3,}")


def _span_repeats(flat: str, sources: str = "", size: int = SPAN, times: int = 3) -> str:
    """The first span of ``size`` characters that comes ``times`` times without overlapping, and more
    often than in ``sources``; or ""."""
    seen: dict[str, list[int]] = {}
    for i in range(len(flat) - size + 1):
        span = flat[i : i + size]
        if not any(ch.isalnum() for ch in span):
            continue
        at = seen.setdefault(span, [])
        if not at or i - at[-1] >= size:
            at.append(i)
            if len(at) >= times and len(at) > sources.count(span):
                return span
    return ""


def loop_kind(text: str, sources: str = "") -> str:
    """Why ``text`` shows a loop ("span", "line", "markers"), or "" when it does not; ``sources``: the
    documents' text it may repeat as often as they do."""
    flat, said = " ".join(text.split()), " ".join(sources.split())
    lines = [" ".join(ln.split()) for ln in text.splitlines()]
    long = [ln for ln in lines if len(ln) >= SPAN]
    if any(long.count(ln) >= 2 and long.count(ln) > said.count(ln) for ln in set(long)):
        return "line"
    if _span_repeats(flat, said):
        return "span"
    if _MARKER_RUN.search(flat) or (
        _MARKER.search(flat) and not any(c.isalnum() for c in _MARKER.sub("", flat))
    ):
        return "markers"
    return ""


def _stage(result: dict[str, Any], name: str) -> dict[str, Any]:
    return next((s for s in result.get("trace", {}).get("stages", []) if s.get("stage") == name), {})


@dataclass(frozen=True)
class Shown:
    """One answer as the user was shown it: ``quote`` above, ``answer`` below (the model's text, or the
    quote in its place when ``set_aside``); ``written``: the model's own text (its checked sentences, also
    when set aside; "" when no model wrote); ``unsupported``: its sentences the support check did not back."""

    qid: str
    gold: tuple[str, ...]
    outcome: str
    quote: str
    sources: str  # the quote and the evidence the model was given: what an answer may repeat
    answer: str
    written: str
    unsupported: tuple[str, ...]
    set_aside: bool
    why: str  # the citations note when set aside: "(markers only)", "(another language)" or none
    stopped: str  # the stream guard's reason ("repetition", "transcript") or ""
    total_ms: float
    quote_ms: float | None

    @classmethod
    def of(cls, qid: str, gold: Sequence[str], result: dict[str, Any]) -> Shown:
        support = result.get("support") or []
        answer_stage, quote_stage = _stage(result, "answer"), _stage(result, "quote")
        quote = result.get("quote")
        return cls(
            qid=qid,
            gold=tuple(gold),
            outcome=str(result.get("outcome") or ("error" if "error" in result else "")),
            quote=quote.get("text", "") if isinstance(quote, dict) else "",
            sources="\n".join(
                [quote.get("text", "") if isinstance(quote, dict) else ""]
                + [h.get("text", "") for h in result.get("trace", {}).get("evidence", [])]
            ),
            answer=str(result.get("answer") or ""),
            written=" ".join(s["text"] for s in support) if answer_stage else "",
            unsupported=tuple(s["text"] for s in support if not s.get("supported")),
            set_aside=bool(_stage(result, "support").get("set_aside")),
            why=str(_stage(result, "citations").get("note", "")).partition("set aside")[2].strip(),
            stopped=str(answer_stage.get("stopped", "")),
            total_ms=float(result.get("timings_ms", {}).get("total", 0.0)),
            quote_ms=quote_stage.get("at_ms"),
        )

    @property
    def by_model(self) -> bool:
        """The model's answer is what the user reads below the quote."""
        return self.outcome == "answered" and bool(self.written) and not self.set_aside

    def loop(self, text: str) -> str:
        """``loop_kind`` of ``text``, beyond what the sources repeat."""
        return loop_kind(text, self.sources)

    def holds(self, text: str) -> bool:
        return contains_answer(text, self.gold)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The nearest-rank ``q`` percentile (0-100); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = math.ceil(len(ordered) * q / 100)
    return ordered[max(0, min(len(ordered), rank) - 1)]


def _seconds(ms: float | None) -> float | None:
    return None if ms is None else round(ms / 1000, 1)


def tally(rows: Sequence[Shown]) -> dict[str, Any]:
    """One language's figures: loops shown, the guard's and the shape check's stops, time to a finished
    answer, the sound answers set aside, and what the model's writing adds over the quote and costs."""
    rows = [r for r in rows if r.outcome != "error"]
    model = [r for r in rows if r.by_model]
    aside = [r for r in rows if r.set_aside]
    sound_aside = [r for r in aside if r.holds(r.written) and not r.loop(r.written)]
    adds = [r for r in model if r.holds(r.answer) and not r.holds(r.quote)]
    costs = [r for r in model if not r.holds(r.answer) and r.unsupported]
    totals = [r.total_ms for r in rows]
    quoted = [r.quote_ms for r in rows if r.quote_ms is not None]
    return {
        "questions": len(rows),
        "loops shown": sum(bool(r.loop(r.answer)) for r in rows),
        "loops shown, examples": [r.answer[:160] for r in rows if r.loop(r.answer)][:3],
        "loops in the model's text (shown or not)": sum(bool(r.loop(r.written)) for r in rows),
        "repeats of the documents' own words shown (not loops)": sum(
            bool(loop_kind(r.answer)) and not r.loop(r.answer) for r in rows
        ),
        "guard stops": sum(bool(r.stopped) for r in rows),
        "set aside": len(aside),
        "set aside by shape": sum(bool(r.why) for r in aside),
        "sound answers set aside": len(sound_aside),
        "sound answers set aside, quote without gold": sum(not r.holds(r.quote) for r in sound_aside),
        "finished answer s p50": _seconds(percentile(totals, 50)),
        "finished answer s p95": _seconds(percentile(totals, 95)),
        "finished answer s max": _seconds(max(totals, default=None)),
        "quote s p50": _seconds(percentile(quoted, 50)),
        "quote s p95": _seconds(percentile(quoted, 95)),
        "outcomes": {k: sum(r.outcome == k for r in rows) for k in sorted({r.outcome for r in rows})},
        "gold in quote": rate([r.holds(r.quote) for r in rows]),
        "gold in quote or answer": rate([r.holds(r.quote + " " + r.answer) for r in rows]),
        "model answers shown": len(model),
        "gold in the model's answer": len([r for r in model if r.holds(r.answer)]),
        "adds: gold in answer, not in quote": len(adds),
        "costs: no gold, unsupported sentences shown": len(costs),
        "no gold in a shown model answer": sum(not r.holds(r.answer) for r in model),
        "unsupported sentences shown": sum(len(r.unsupported) for r in model),
        "adds, examples": [r.answer[:120] for r in adds][:3],
        "costs, examples": [r.answer[:120] for r in costs][:3],
        "fence tag in a shown answer": sum("documents>" in r.answer for r in rows),
        "mean characters of a shown model answer": round(statistics.mean(len(r.answer) for r in model))
        if model
        else None,
    }
