"""The support check against gold answers, and declines near the threshold (issue 45).

    nice -n 19 .venv/bin/python -m bench.support_marks [--parts marks declines] [--split tune|holdout]
        [--questions 20] [--chat-models embedded bigger] [--preset turbo]

Data: bench/answers.py's SQuAD-Shifts hold-out (``prepare_squad``: 300 answerable questions, 100 whose
answering passage was left out), split as ``devkit.split`` does (tune: even positions, holdout: odd).

``marks``: `kimas ask --batch --json` on the split's first ``--questions`` answerable questions. Every
sentence of the model's answer (``support`` in the JSON: the model's sentences, also when the quote took
their place) is **right** when it contains a gold answer string and **wrong** when it does not (it misses
or contradicts the gold). Reported: the share of wrong sentences marked (target ≥ 0.8) and of right ones
marked (target ≤ 0.1), for the support check of this tree and for the rule before issue 45, recomputed
from the same sentences' ``lexical``, ``cosine`` and ``missing`` (a fact in no source, or weak words:
lexical < 0.6 and cosine < 0.75), so both sides judge the same sentences. Also how often the answer was
the quote in the model's place.

``declines``: `kimas retrieve --batch` and the product's grounding (bench/grounding.py) on the split's
answerable and unanswerable questions, no chat model: how many declines get the "may answer" wording
(their quote names the subject and holds an answer-shaped span, ``answer_slot.answer_shaped``), among
correct declines and false ones, and how often such a quote holds the gold; and for the rule ``quoted``
(answer from the quote a little below the threshold) at several bands, the false and correct declines.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench.devkit import (
    SQUAD,
    Question,
    contains_answer,
    kimas_batch,
    rate,
    split,
    squad_items,
    write_squad_holdout,
)
from bench.grounding import Grounding1
from bench.workspace import chat_config, prepare_squad
from kimas_desktop.answer.signals.answer_slot import answer_shaped
from kimas_desktop.config import GroundingConfig

ROOT = Path(__file__).resolve().parents[1]


def old_rule_marks(s: dict[str, Any]) -> bool:
    """The support check before issue 45: a fact in no source, or words no source sentence comes close to."""
    return bool(s["missing"]) or (s["lexical"] < 0.6 and s["cosine"] < 0.75)


def prepare(args: argparse.Namespace, cache: Path) -> tuple[Path, list[Question], list[Question]]:
    """bench/answers.py's indexed hold-out; ``--keep-index``: the data dir's index as it is, not synced
    (an index copied from another run of the same data, whose files lie in another folder)."""
    if not args.keep_index:
        return prepare_squad(cache, 300, 100, args.embedding_precision)
    answerable: list[Question] = []
    unanswerable: list[Question] = []
    for name in SQUAD:
        h = write_squad_holdout(name, cache / "docs" / name, 25, 75)
        answerable += h.answerable
        unanswerable += h.unanswerable
    return cache / "squad", answerable[:300], unanswerable[:100]


def marks(args: argparse.Namespace, cache: Path) -> dict[str, Any]:
    data, answerable, _ = prepare(args, cache)
    questions = split(answerable, args.split)[args.skip : args.skip + args.questions]
    out: dict[str, Any] = {
        "questions": len(questions),
        "split": args.split,
        "skip": args.skip,
        "preset": args.preset,
    }
    for model in args.chat_models:
        cfg = chat_config(cache, data, model)
        results = kimas_batch(
            "ask", data, squad_items(questions), "--json", "--preset", args.preset, "--config", str(cfg)
        )
        right: list[tuple[bool, bool]] = []  # (marked now, marked by the old rule)
        wrong: list[tuple[bool, bool]] = []
        set_aside = shown_gold = model_gold = 0
        for q in questions:
            r = results[q.qid]
            if r.get("answer", "").startswith("Your documents say:") and r.get("support"):
                set_aside += 1
                shown_gold += contains_answer(r["answer"], q.answers)
                model_gold += contains_answer(" ".join(s["text"] for s in r["support"]), q.answers)
            for s in r.get("support") or []:
                pair = (not s["supported"], old_rule_marks(s))
                (right if contains_answer(s["text"], q.answers) else wrong).append(pair)
        out[model] = {
            "answered": sum(1 for q in questions if results[q.qid].get("support")),
            "sentences right / wrong": [len(right), len(wrong)],
            "wrong marked (new / old rule)": [rate([m for m, _ in wrong]), rate([o for _, o in wrong])],
            "right marked (new / old rule)": [rate([m for m, _ in right]), rate([o for _, o in right])],
            "quote in the model's place": set_aside,
            "... gold in the quote shown / in the model's text set aside": [shown_gold, model_gold],
        }
        (cache / f"marks-{model}-{args.split}-{args.skip}-{args.preset}.json").write_text(json.dumps(results))
        print(model, out[model], file=sys.stderr, flush=True)
    return out


def declines(args: argparse.Namespace, cache: Path) -> dict[str, Any]:
    data, answerable, unanswerable = prepare(args, cache)
    a, u = split(answerable, args.split), split(unanswerable, args.split)
    results = kimas_batch("retrieve", data, squad_items([*a, *u]))
    g = Grounding1(data, GroundingConfig())
    runs = [(q, g.run(q.text, results[q.qid]), q in a) for q in [*a, *u]]
    th = GroundingConfig().threshold
    out: dict[str, Any] = {"answerable": len(a), "unanswerable": len(u), "threshold": th}
    shaped = {q.qid: bool(r["quote"]) and answer_shaped(q.text, r["quote"]) for q, r, _ in runs}
    for name, want in (("false declines", True), ("correct declines", False)):
        dec = [(q, r) for q, r, ans in runs if ans is want and not r["answerable"]]
        may = [(q, r) for q, r in dec if shaped[q.qid]]
        out[name] = {
            "rate": rate([not r["answerable"] for q, r, ans in runs if ans is want]),
            "worded 'may answer'": len(may),
            "of those, gold in the quote": sum(contains_answer(r["quote"], q.answers) for q, r in may)
            if want
            else None,
            "of all, declined": len(dec),
        }
    for band in (0.05, 0.1, 0.15, 0.2):

        def still(r: dict[str, Any], qid: str, band: float = band) -> bool:
            return not r["answerable"] and not (shaped[qid] and r["score"] >= th - band)

        out[f"rule 'quoted', band {band}"] = {
            "false declines": rate([still(r, q.qid) for q, r, ans in runs if ans]),
            "correct declines": rate([still(r, q.qid) for q, r, ans in runs if not ans]),
        }
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--parts", nargs="+", default=["marks", "declines"], choices=["marks", "declines"])
    p.add_argument("--split", choices=["tune", "holdout"], default="holdout")
    p.add_argument("--questions", type=int, default=20, help="answerable questions asked of the chat model")
    p.add_argument("--skip", type=int, default=0, help="start after this many of the split's questions")
    p.add_argument("--chat-models", nargs="+", default=["embedded"], choices=["embedded", "bigger"])
    p.add_argument("--preset", default="turbo", choices=["full", "routed", "turbo"])
    p.add_argument("--embedding-precision", choices=["", "fp32", "int8"], default="fp32")
    p.add_argument("--keep-index", action="store_true", help="use the data dir's index without syncing it")
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "answers"))
    args = p.parse_args()
    cache = Path(args.cache)
    report: dict[str, Any] = {}
    if "declines" in args.parts:
        report["declines"] = declines(args, cache)
        print("declines", json.dumps(report["declines"]), file=sys.stderr, flush=True)
    if "marks" in args.parts:
        report["marks"] = marks(args, cache)
    print(json.dumps(report, indent=2, default=str))


if __name__ == "__main__":
    main()
