"""The support check against gold answers, re-run in process on kept `kimas ask --json` batches (issue 45).

    nice -n 10 .venv/bin/python -m bench.support_check BATCH.json [BATCH.json ...] [--split holdout]
        [--skip 0] [--questions 0]

A batch is what ``bench.support_marks`` (``marks-MODEL-SPLIT-SKIP-PRESET.json``) or ``bench.answers``
(``ask-squad-PRESET-MODEL-new-REF-N.json``) kept: the product's answers with their trace. For every answer
the model wrote, the model's own text (its sentences in ``support``, at their offsets), the evidence it
was given (the trace's ``evidence``: the numbered sources) and the grounded quote are put back together
and checked again by this tree's ``SupportChecker`` with the data dir's embedder, so a change to the check
is measured on the same model output without asking the model again (the model's text does not depend on
the check). ``--as-run``: the ``supported`` flags the batch holds, not re-checked.

Every sentence is **right** when it contains a gold answer string (bench.devkit.contains_answer) and
**wrong** when it does not: it misses or contradicts the gold. ``--labels beyond-question``: only gold
strings the question does not already hold count (a question whose every gold string it holds is left
unlabelled), so a restated question is not "right" by the gold's words that are the question's own.
``--labels faithful``: as ``beyond-question``, and a right sentence also states no number or capitalized
word (past its first) that neither the question nor the gold passage's file holds: "The Paz miño is a
branch … a small island in the Pacific Ocean." holds the gold "Paz Miño" and invents the rest. The gold
file is the dev kit's, not the sources the check was given, so the label does not follow the check.
Reported: the share of wrong sentences marked (target ≥ 0.8), of right ones marked (target ≤ 0.1), and
for answers whose every sentence is marked (the quote takes the model's place), how often the quote shown
holds the gold against the model's text set aside. ``--split``/``--skip``/``--questions`` keep only those answerable questions of the dev kit
(bench/answers.py's hold-out, split as ``devkit.split``), so a tuning slice is never scored as held out.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from bench.devkit import SQUAD, Question, contains_answer, normalize, rate, split, write_squad_holdout
from bench.support_batches import hits_of, make_checker, model_text, quotes_of
from kimas_desktop.answer.signals.answer_slot import MARKER
from kimas_desktop.answer.writing.support import SupportChecker

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "bench" / ".cache" / "answers"


def dev_questions(cache: Path) -> tuple[list[Question], list[Question]]:
    """bench/answers.py's 300 answerable and 100 unanswerable SQuAD-Shifts questions, in its order (as
    ``prepare_squad``)."""
    answerable: list[Question] = []
    unanswerable: list[Question] = []
    for name in SQUAD:
        h = write_squad_holdout(name, cache / "docs" / name, 25, 75)
        answerable += h.answerable
        unanswerable += h.unanswerable
    return answerable[:300], unanswerable[:100]


def declines(
    batches: list[dict[str, dict[str, Any]]],
    answerable: list[Question],
    unanswerable: list[Question],
    checker: SupportChecker | None,
) -> dict[str, Any]:
    """The answers benchmark's figures on the same batches: declines as run (the check decides none),
    and gold in the quote or the answer, the answer being the quote when this check marks every
    sentence of the model's (the rule ``quote instead``)."""
    false, correct, gold = [], [], []
    for results in batches:
        false += [not results[q.qid]["answered_from_sources"] for q in answerable if q.qid in results]
        correct += [not results[q.qid]["answered_from_sources"] for q in unanswerable if q.qid in results]
        for q in answerable:
            r = results.get(q.qid)
            if r is None:
                continue
            quote = (r.get("quote") or {}).get("text", "")
            sentences = checked(r, q.text, checker)
            aside = checker is not None and bool(sentences) and all(not s["supported"] for s in sentences)
            said = model_text(r["support"]) if checker is not None and sentences else r["answer"]
            gold.append(contains_answer(f"{quote} {quote if aside else said}", q.answers))
    return {
        "answerable falsely declined": rate(false),
        "unanswerable declined": rate(correct),
        "gold in quote or answer": rate(gold),
    }


def checked(result: dict[str, Any], question: str, checker: SupportChecker | None) -> list[dict[str, Any]]:
    """The answer's sentences with ``supported`` as this tree's check says (or as the batch held it)."""
    support = result.get("support") or []
    if checker is None or not support:
        return support
    hits = hits_of(result)
    report = checker.check(model_text(support), hits, question, quotes_of(result, hits))
    return [{"text": s.text, "supported": s.supported, "reason": s.reason} for s in report.sentences]


def show(question: Question, result: dict[str, Any], sentence: dict[str, Any], right: bool) -> None:
    """One sentence the check judged against the gold (``--show``): wrong but passed, or right but marked."""
    quote = (result.get("quote") or {}).get("text", "")
    verdict = "RIGHT marked" if right else "WRONG passed"
    print(
        f"{verdict} [{sentence.get('reason', '')}] {question.text!r} gold={question.answers[:3]!r}",
        file=sys.stderr,
    )
    print(f"    sentence: {sentence['text']!r}\n    quote: {quote[:300]!r}", file=sys.stderr)


def telling(question: Question) -> tuple[str, ...]:
    """The gold strings that say more than the question (``--labels beyond-question``): "days before
    refrigeration", asked "Where did pie safes … come into use in the days before refrigeration?", is in
    every sentence that restates the question, right or wrong ("In Australia, pie safes …")."""
    asked = normalize(question.text)
    return tuple(a for a in question.answers if normalize(a) and normalize(a) not in asked)


_STATED = re.compile(r"(?<![\w'’])(?:\d[\d.,]*\d|\d|[A-Z][\w'’-]*)")


def invents(sentence: str, question: Question, cache: Path) -> bool:
    """The sentence states a number or a capitalized word (not its first word) that neither the question
    nor the gold passage's file holds (``--labels faithful``)."""
    held = set(normalize(question.text + " " + _gold_text(cache, question)).split())
    text = MARKER.sub(" ", sentence).strip()
    stated = [m.group() for m in _STATED.finditer(text) if m.start() > 0 and m.group() != "I"]
    return any(not set(normalize(w).split()) <= held for w in stated)


def _gold_text(cache: Path, question: Question) -> str:
    return (cache / "docs" / question.collection / question.gold_file).read_text("utf-8")


def score(
    batches: list[dict[str, dict[str, Any]]],
    questions: list[Question],
    checker: SupportChecker | None,
    shown: bool = False,
    labels: str = "any",
    cache: Path = CACHE,
) -> dict[str, Any]:
    right: list[bool] = []  # marked?
    unlabelled = 0  # sentences of questions whose every gold string is in the question
    wrong: list[bool] = []
    reasons: dict[str, int] = {}
    right_reasons: dict[str, int] = {}  # why right sentences were marked
    aside = in_quote = model_gold = answered = 0
    for results in batches:
        for q in questions:
            r = results.get(q.qid)
            if r is None or not r.get("support"):
                continue
            answered += 1
            sentences = checked(r, q.text, checker)
            gold = q.answers if labels == "any" else telling(q)
            if not gold:
                unlabelled += len(sentences)
                continue
            for s in sentences:
                marked = not s["supported"]
                good = contains_answer(s["text"], gold)
                if good and labels == "faithful" and invents(s["text"], q, cache):
                    good = False
                (right if good else wrong).append(marked)
                if shown and good == marked:
                    show(q, r, s, good)
                if marked:
                    reasons[s.get("reason") or "?"] = reasons.get(s.get("reason") or "?", 0) + 1
                if marked and good:
                    right_reasons[s.get("reason") or "?"] = right_reasons.get(s.get("reason") or "?", 0) + 1
            if sentences and all(not s["supported"] for s in sentences):
                aside += 1
                in_quote += contains_answer((r.get("quote") or {}).get("text", ""), q.answers)
                model_gold += contains_answer(" ".join(s["text"] for s in sentences), q.answers)
    return {
        "answers": answered,
        "sentences right / wrong": [len(right), len(wrong)],
        "sentences not labelled (every gold string is in the question)": unlabelled,
        "wrong marked": rate(wrong),
        "right marked": rate(right),
        "marks by reason": reasons,
        "right sentences marked, by reason": right_reasons,
        "quote in the model's place": aside,
        "... gold in the quote shown / in the model's text set aside": [in_quote, model_gold],
    }


def load(path: Path) -> dict[str, dict[str, Any]]:
    data = json.loads(path.read_text())
    return data[0] if isinstance(data, list) else data  # bench.answers keeps [results, seconds]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("batches", nargs="+", type=Path)
    p.add_argument("--split", choices=["tune", "holdout"], required=True)
    p.add_argument("--skip", type=int, default=0, help="start after this many of the split's questions")
    p.add_argument("--questions", type=int, default=0, help="at most this many (0: all)")
    p.add_argument("--as-run", action="store_true", help="score the batch's own flags, do not re-check")
    p.add_argument("--cache", type=Path, default=CACHE)
    p.add_argument("--show", action="store_true", help="print the misjudged sentences (tune split only)")
    p.add_argument(
        "--labels",
        choices=["any", "beyond-question", "faithful"],
        default="any",
        help="a sentence is right when it holds any gold string, only one that is not in the question, or "
        "such a string and nothing named or numbered that neither the question nor the gold file holds",
    )
    args = p.parse_args()
    answerable, unanswerable = dev_questions(args.cache)
    qs = split(answerable, args.split)[args.skip :]
    qs = qs[: args.questions] if args.questions else qs
    checker = None if args.as_run else make_checker(args.cache / "squad")
    batches = [load(b) for b in args.batches]
    if args.show and args.split != "tune":
        p.error("--show prints sentences to tune on: the tune split only")
    report = score(batches, qs, checker, args.show, args.labels, args.cache)
    report["answers benchmark"] = declines(batches, qs, split(unanswerable, args.split), checker)
    print(json.dumps({"split": args.split, "skip": args.skip, "questions": len(qs), **report}, indent=2))


if __name__ == "__main__":
    main()
