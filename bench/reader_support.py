"""The embedded reader as the support check (issue 68, use 4), tuned on one half, measured on the other.

    nice -n 10 .venv/bin/python -m bench.reader_support --tune BATCH[@tune] ... --holdout BATCH[@holdout] ...
        [--labels any|beyond-question] [--cache bench/.cache/answers]

A batch is `kimas ask --json` output on SQuAD-Shifts questions, as kept by ``bench.support_marks``
(``marks-MODEL-SPLIT-SKIP-PRESET.json``), ``bench.answers`` (``ask-squad-….json``) or ``bench.answer_loops``
(``asked-en-REF.jsonl``, one answer a line). ``PATH@tune`` / ``PATH@holdout``: ``devkit.split``'s half of
that batch's answers in file order (even / odd positions), for a batch asked of one set of questions.
The checker reads with the embedder of the batch folder's data dir (``squad`` beside the batch).

For every sentence the model wrote (``support``), as ``bench.support_check`` does (its helpers are copied
here: a bench module with ``main`` imports none):
- **today**: this tree's ``SupportChecker`` re-run in process on the batch's evidence and quote: marked or
  passed;
- **reader, claim**: the embedded reader (``local_models/reader``) reads the sentence, as its question,
  against the source sentence the check points its citation at (``SentenceSupport.source`` and
  ``evidence_start/end``): the probability that this source sentence backs it;
- **reader, question**: the reader reads the question against the sentence: does this sentence answer it?
- **reader, both**: the lower of the two.
Labels as ``bench.support_check``: **right** when the sentence holds a gold string (``--labels
beyond-question``: one the question does not hold), **wrong** otherwise.

Rules: the reader alone marks a sentence whose probability is below t; ``today OR reader`` marks what
either marks, ``today AND reader`` what both mark. Every t is chosen on the tune sentences alone: the t
with the most wrong sentences marked at right ones marked <= 0.15; where no t reaches 0.15 on tune, the
t with the largest (wrong marked - right marked), and the table says so. Every figure in the table is on
the holdout sentences, with its counts. A held-out question of ``bench/answers.py``'s tune half (where the
support check itself was tuned) is left out of the holdout, and a held-out question out of the tune
sentences; both are counted.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from bench.devkit import (
    DEVKIT,
    SQUAD,
    Question,
    contains_answer,
    normalize,
    read_jsonl,
    split,
    write_squad_holdout,
)
from bench.support_batches import hits_of, make_checker, model_text, quotes_of
from kimas_desktop.answer.signals.answer_slot import MARKER
from kimas_desktop.answer.writing.support import SupportChecker
from kimas_desktop.types import Hit, SentenceSupport
from local_models.reader.onnx_reader import EmbeddedReader

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "bench" / ".cache" / "answers"
GOAL_RIGHT = 0.15  # issue 68: right sentences marked <= 0.15 (and wrong ones >= 0.8)


@dataclass(frozen=True)
class Gold:
    question: str
    answers: tuple[str, ...]


@dataclass(frozen=True)
class Row:
    """One model-written sentence: its label, today's mark and the reader's two readings."""

    qid: str
    right: bool
    today: bool  # marked by today's check
    claim: float  # P(the cited source sentence backs the sentence)
    asked: float  # P(the sentence answers the question)


def golds() -> dict[str, Gold]:
    """Every SQuAD-Shifts question of the dev kit with its gold strings, by id."""
    out: dict[str, Gold] = {}
    for name in SQUAD:
        answers = {r["_id"]: tuple(r["answers"]) for r in read_jsonl(DEVKIT / name / "answers.jsonl")}
        for q in read_jsonl(DEVKIT / name / "queries.jsonl"):
            if answers.get(q["_id"]):
                out[q["_id"]] = Gold(q["text"], answers[q["_id"]])
    return out


def check_tuned(cache: Path) -> set[str]:
    """The questions the support check was tuned on: bench/answers.py's 300 answerable, tune half."""
    answerable: list[Question] = []
    for name in SQUAD:
        answerable += write_squad_holdout(name, cache / "docs" / name, 25, 75).answerable
    return {q.qid for q in split(answerable[:300], "tune")}


def load(spec: str) -> tuple[Path, dict[str, dict[str, Any]]]:
    """A batch's answers by id; ``PATH@tune`` / ``PATH@holdout``: that half of them, in file order."""
    path_text, _, half = spec.partition("@")
    path = Path(path_text)
    if path.suffix == ".jsonl":
        rows = [json.loads(ln) for ln in path.read_text("utf-8").splitlines() if ln.strip()]
        results = {r["id"]: r for r in rows}
    else:
        data = json.loads(path.read_text("utf-8"))
        results = data[0] if isinstance(data, list) else data  # bench.answers keeps [results, seconds]
    if half:
        results = dict(split(list(results.items()), half))
    return path, results


def telling(gold: Gold) -> tuple[str, ...]:
    """``--labels beyond-question``: the gold strings the question does not already hold."""
    asked = normalize(gold.question)
    return tuple(a for a in gold.answers if normalize(a) and normalize(a) not in asked)


def cited(s: SentenceSupport, hits: Sequence[Hit]) -> str:
    """The source sentence the check points the sentence's citation at ("" when none comes close)."""
    if s.source is None or s.evidence_start is None or s.evidence_end is None:
        return ""
    return hits[s.source - 1].chunk.text[s.evidence_start : s.evidence_end]


def rows_of(
    results: dict[str, dict[str, Any]],
    gold: dict[str, Gold],
    checker: SupportChecker,
    reader: EmbeddedReader,
    labels: str,
) -> list[Row]:
    """Every model-written sentence of the batch's labelled questions, checked and read."""
    rows: list[Row] = []
    for qid, r in results.items():
        g = gold.get(qid)
        wanted = (g.answers if labels == "any" else telling(g)) if g else ()
        if not r.get("support") or not wanted or g is None:
            continue
        hits = hits_of(r)
        report = checker.check(model_text(r["support"]), hits, g.question, quotes_of(r, hits))
        for s in report.sentences:
            said = MARKER.sub(" ", s.text).strip()
            source = cited(s, hits)
            claim = reader.read(said, [source])[0] if source else 0.0
            asked = reader.read(g.question, [said])[0]
            rows.append(Row(qid, contains_answer(s.text, wanted), not s.supported, claim, asked))
    return rows


READINGS: dict[str, Callable[[Row], float]] = {
    "claim": lambda r: r.claim,
    "question": lambda r: r.asked,
    "both": lambda r: min(r.claim, r.asked),  # backed by its cited sentence and answering the question
}
JOINS = ("alone", "OR", "AND")  # the reader alone, or joined with today's mark


@dataclass(frozen=True)
class Rule:
    """Marks a sentence whose reading is below t, alone or joined with today's mark."""

    join: str
    reading: str

    @property
    def name(self) -> str:
        reader = f"reader ({self.reading}) < t"
        return reader if self.join == "alone" else f"today {self.join} {reader}"

    def marks(self, row: Row, t: float) -> bool:
        low = READINGS[self.reading](row) < t
        if self.join == "OR":
            return row.today or low
        if self.join == "AND":
            return row.today and low
        return low


def rules() -> list[Rule]:
    return [Rule(join, reading) for reading in READINGS for join in JOINS]


def marked_rates(rows: Sequence[Row], marks: Sequence[bool]) -> tuple[list[int], list[int]]:
    """[marked, n] among wrong sentences and among right ones."""
    wrong = [m for r, m in zip(rows, marks, strict=True) if not r.right]
    right = [m for r, m in zip(rows, marks, strict=True) if r.right]
    return [sum(wrong), len(wrong)], [sum(right), len(right)]


def _share(pair: list[int]) -> float:
    return pair[0] / pair[1] if pair[1] else float("nan")


def choose(rows: Sequence[Row], rule: Rule) -> tuple[float, bool]:
    """The threshold chosen on ``rows`` (the tune half), and whether right-marked <= 0.15 was reached
    there (else: the largest wrong marked - right marked)."""
    values = sorted({READINGS[rule.reading](r) for r in rows})
    candidates = [0.0, *((a + b) / 2 for a, b in pairwise(values)), 1.0 + 1e-9]
    best: tuple[float, float, float] | None = None  # (wrong marked, -right marked, t) within the goal
    fallback: tuple[float, float] = (-2.0, 0.0)  # (wrong - right, t)
    for t in candidates:
        wrong, right = marked_rates(rows, [rule.marks(r, t) for r in rows])
        w, rt = _share(wrong), _share(right)
        if rt <= GOAL_RIGHT and (best is None or (w, -rt) > best[:2]):
            best = (w, -rt, t)
        if w - rt > fallback[0]:
            fallback = (w - rt, t)
    return (best[2], True) if best is not None else (fallback[1], False)


def auc(rows: Sequence[Row], reading: str) -> float:
    """The chance that a right sentence reads higher than a wrong one (ties count half)."""
    right = np.array([READINGS[reading](r) for r in rows if r.right])
    wrong = np.array([READINGS[reading](r) for r in rows if not r.right])
    if not len(right) or not len(wrong):
        return float("nan")
    gt = (right[:, None] > wrong[None, :]).mean()
    eq = (right[:, None] == wrong[None, :]).mean()
    return float(gt + eq / 2)


def table(tune: Sequence[Row], holdout: Sequence[Row]) -> list[str]:
    """The markdown table: each rule's threshold (chosen on tune) and its held-out figures."""
    lines = [
        "| rule | t (chosen on tune) | wrong marked (held out) | right marked (held out) |",
        "|---|---|---|---|",
    ]
    today = marked_rates(holdout, [r.today for r in holdout])
    lines.append(_line("today's check", "—", *today))
    for rule in rules():
        t, reached = choose(tune, rule)
        note = f"{t:.3f}" + ("" if reached else " (0.15 out of reach on tune: max wrong − right)")
        lines.append(_line(rule.name, note, *marked_rates(holdout, [rule.marks(r, t) for r in holdout])))
    return lines


def _line(name: str, note: str, wrong: list[int], right: list[int]) -> str:
    return (
        f"| {name} | {note} | {_share(wrong):.3f} ({wrong[0]}/{wrong[1]}) "
        f"| {_share(right):.3f} ({right[0]}/{right[1]}) |"
    )


def gather(
    specs: Sequence[str], gold: dict[str, Gold], reader: EmbeddedReader, labels: str, skip: set[str]
) -> tuple[list[Row], int]:
    """The rows of every batch, and how many answers were left out (questions in ``skip``)."""
    checkers: dict[Path, SupportChecker] = {}
    rows: list[Row] = []
    left = 0
    for spec in specs:
        path, results = load(spec)
        kept = {q: r for q, r in results.items() if q not in skip}
        left += sum(1 for q, r in results.items() if q in skip and r.get("support"))
        data = path.resolve().parent / "squad"
        if data not in checkers:
            checkers[data] = make_checker(data)
        rows += rows_of(kept, gold, checkers[data], reader, labels)
        print(f"{spec}: {len(rows)} sentences so far", file=sys.stderr, flush=True)
    return rows, left


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tune", nargs="+", required=True, help="batches whose sentences choose the thresholds")
    p.add_argument("--holdout", nargs="+", required=True, help="batches whose sentences are reported")
    p.add_argument("--labels", choices=["any", "beyond-question"], default="any")
    p.add_argument("--cache", type=Path, default=CACHE, help="bench/answers.py's cache (its tune half)")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    gold, reader = golds(), EmbeddedReader(threads=args.threads)
    holdout, left = gather(args.holdout, gold, reader, args.labels, check_tuned(args.cache))
    tune, shared = gather(args.tune, gold, reader, args.labels, {r.qid for r in holdout})
    print(
        f"tune: {sum(r.right for r in tune)} right / {sum(not r.right for r in tune)} wrong sentences "
        f"({shared} answers left out: their question is held out); held out: {sum(r.right for r in holdout)} "
        f"right / {sum(not r.right for r in holdout)} wrong ({left} answers left out: their question tuned "
        f"the support check); labels {args.labels}"
    )
    print(
        "reader AUC, right above wrong (held out): "
        + ", ".join(f"{k} {auc(holdout, k):.3f}" for k in READINGS)
    )
    print()
    print("\n".join(table(tune, holdout)))
    print()
    print("    nice -n 10 .venv/bin/python -m bench.reader_support " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()
