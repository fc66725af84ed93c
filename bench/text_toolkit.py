"""The text toolkit of issue 22 on the development kit: the Snowball stemmer against the toolkit's light
hand-written one, and the whole toolkit change against the product before it, in one run.

    nice -n 19 .venv/bin/python -m bench.text_toolkit [--answerable 300] [--unanswerable 100]
        [--old-ref fa03570]

Three sides, each in its own process over the same SQuAD-Shifts hold-out as bench/answers.py part 1:
- ``old``: the product at ``--old-ref`` (``git archive``), indexed and retrieved by its own code;
- ``new``: this checkout (its light hand-written stemmer);
- ``new-snowball``: this checkout with the Snowball stemmer (``py_rust_stemmers``, which fastembed
  installs) put into ``words.stem``.
The two ``new`` sides share one index and one retrieval, so they differ only in the stemmer; ``old`` also
differs in the chunker's sentence cuts (its own index) and in the name and number rules.

Figures: part 1's (the quote contains a gold string; unanswerable declined; answerable falsely declined),
and the support check's agreement with the gold, on answerable questions, against the gold passage alone:
- the **gold sentence** (the passage's sentence holding the gold answer, verbatim) is supported;
- a **short answer** ("<the question without '?'>: <gold answer>.", the shape of a small model's reply)
  is supported;
- each of the two with the gold answer's number changed (+1) or its name replaced by a name from another
  passage of the domain is **not** supported (only for answers holding a number or a capitalised name).
And the answer check's word matching (``verify``: are the model's copied words in a source?), against the
gold passage: the gold sentence is held, the altered gold sentence is not, and the gold sentence cut after
80, 120, 160 and 200 characters (the copy's length limit cuts a long one mid-word) is held.
Nothing is tuned here.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CAPITALISED = re.compile(r"(?<=\s)[A-Z][a-z]{2,}")


# -- the support-check cases (independent of the code under test) ---------------------------------------


def _gold_passages(devkit: Path, collection: str) -> dict[str, str]:
    """Question id → the text of its gold passage."""
    text = {}
    for line in (devkit / collection / "corpus.jsonl").read_text("utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            text[row["_id"]] = row["text"]
    out = {}
    for line in (devkit / collection / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        qid, pid, _ = line.split("\t")
        out[qid] = text[pid]
    return out


def _altered(answer: str, other_names: list[str], passage: str) -> str | None:
    """The answer with its numbers changed (+1), else its first capitalised word swapped for a name the
    passage does not hold; None when it has neither."""
    if re.search(r"\d", answer):
        return re.sub(r"\d+", lambda m: str(int(m.group()) + 1), answer)
    names = re.findall(r"\b[A-Z][a-z]+\b", answer)
    if not names:
        return None
    swap = next((n for n in other_names if n not in passage and n not in answer), None)
    return None if swap is None else answer.replace(names[0], swap, 1)


def support_cases(questions: list[Any], devkit: Path) -> list[dict[str, Any]]:
    """Per answerable question: the gold passage, the texts that must be supported and those that must
    not (see the module docstring)."""
    from bench.devkit import normalize

    passages: dict[str, dict[str, str]] = {}
    cases = []
    for q in questions:
        if q.collection not in passages:
            passages[q.collection] = _gold_passages(devkit, q.collection)
        passage = passages[q.collection].get(q.qid, "")
        answer = next((a for a in q.answers if a and a in passage), None)
        if answer is None:
            continue
        sentence = next((s for s in _SENTENCE_END.split(passage) if answer in s), None)
        if sentence is None:
            continue
        short = f"{q.text.strip().rstrip('?').strip()}: {answer}."
        others = sorted(
            {n for p in passages[q.collection].values() if p != passage for n in _CAPITALISED.findall(p)},
            key=lambda n: (zlib.crc32((n + q.qid).encode()), n),  # a fixed shuffle
        )[:50]
        wrong = _altered(answer, others, passage)
        negatives = (
            [] if wrong is None else [sentence.replace(answer, wrong, 1), short.replace(answer, wrong)]
        )
        if wrong is not None and normalize(wrong) == normalize(answer):
            negatives = []
        cases.append(
            {"qid": q.qid, "question": q.text, "passage": passage, "positives": [sentence, short],
             "negatives": negatives}
        )  # fmt: skip
    return cases


def support_figures(cases: list[dict[str, Any]], embedder: Any) -> dict[str, Any]:
    from kimas_desktop.answer.writing.support import SupportChecker
    from kimas_desktop.types import Chunk, Hit

    checker = SupportChecker(embedder)
    judged: dict[str, list[bool]] = {"gold_sentence": [], "short_answer": [], "altered": []}
    for c in cases:
        hits = [Hit(Chunk(f"gold-{c['qid']}", "gold", "passage.txt", c["passage"]), 1.0)]

        def supported(text: str, hits: list[Any] = hits, question: str = c["question"]) -> bool:
            report = checker.check(text, hits, question)
            return bool(report.sentences) and all(s.supported for s in report.sentences)

        sentence, short = c["positives"]
        judged["gold_sentence"].append(supported(sentence))
        judged["short_answer"].append(supported(short))
        judged["altered"] += [not supported(text) for text in c["negatives"]]
    flags = [f for v in judged.values() for f in v]
    return answer_check_figures(cases) | {
        "cases": len(cases),
        "altered_cases": len(judged["altered"]),
        "gold_sentence_supported": _rate(judged["gold_sentence"]),
        "short_answer_supported": _rate(judged["short_answer"]),
        "altered_not_supported": _rate(judged["altered"]),
        "support_agreement": _rate(flags),
    }


def answer_check_figures(cases: list[dict[str, Any]]) -> dict[str, Any]:
    from kimas_desktop.answer.signals.verify import verify
    from kimas_desktop.types import Chunk, Hit

    not_held = "the model's words are not in the sources"
    judged: dict[str, list[bool]] = {"sentence": [], "altered": [], "cut": []}
    for c in cases:
        hits = [Hit(Chunk(f"gold-{c['qid']}", "gold", "passage.txt", c["passage"]), 1.0)]
        sentence = c["positives"][0]
        judged["sentence"].append(verify(sentence, c["question"], hits).reason != not_held)
        if c["negatives"]:
            judged["altered"].append(verify(c["negatives"][0], c["question"], hits).reason == not_held)
        for cut in (80, 120, 160, 200):
            if len(sentence) > cut + 10:
                judged["cut"].append(verify(sentence[:cut], c["question"], hits).reason != not_held)
    return {
        "check_gold_sentence_held": _rate(judged["sentence"]),
        "check_altered_not_held": _rate(judged["altered"]),
        "check_cut_copies": len(judged["cut"]),
        "check_cut_copy_held": _rate(judged["cut"]),
    }


def _rate(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 3) if flags else None


# -- one side, in its own process -----------------------------------------------------------------------


def tree_helpers(tree: Path) -> tuple[Any, Any, Any]:
    """``Grounding1``, ``prepare_squad`` and ``squad_items`` from the side's own tree, which its process
    imports first (``PYTHONPATH``): bench/grounding.py, bench/workspace.py and bench/devkit.py since issue
    41, bench/answers.py before."""
    import importlib

    if (tree / "bench" / "grounding.py").exists():
        where = [("bench.grounding", "Grounding1"), ("bench.workspace", "prepare_squad"),
                 ("bench.devkit", "squad_items")]  # fmt: skip
    else:
        where = [("bench.answers", name) for name in ("Grounding1", "prepare_squad", "squad_items")]
    grounding, prepare, items = (getattr(importlib.import_module(m), name) for m, name in where)
    return grounding, prepare, items


def worker(args: argparse.Namespace) -> dict[str, Any]:
    tree = Path(args.tree).resolve()
    if args.stemmer == "snowball":  # fastembed's BM25 stemmer (py_rust_stemmers), before anything stems
        from py_rust_stemmers import SnowballStemmer

        import kimas_desktop.text.words as words

        words._stem_word = SnowballStemmer("english").stem_word
        words.stem.cache_clear()
    Grounding1, prepare_squad, squad_items = tree_helpers(tree)
    from bench.devkit import DEVKIT, contains_answer, kimas_batch
    from kimas_desktop.config import GroundingConfig

    cache = Path(args.cache)
    t = time.perf_counter()
    if args.index_from:  # an index of the same hold-out built earlier (e.g. bench/answers.py's cache)
        data = Path(args.index_from)
        answerable, unanswerable = holdout_questions(cache, args.answerable, args.unanswerable)
    else:
        data, answerable, unanswerable = prepare_squad(cache, args.answerable, args.unanswerable)
    index_s = time.perf_counter() - t
    saved = cache / f"retrieved-{len(answerable)}-{len(unanswerable)}.json"
    if saved.exists():
        results = json.loads(saved.read_text())
    else:
        results = kimas_batch("retrieve", data, squad_items([*answerable, *unanswerable]), root=tree)
        saved.write_text(json.dumps(results))
    g = Grounding1(data, GroundingConfig())
    runs_a = [g.run(q.text, results[q.qid]) for q in answerable]
    runs_u = [g.run(q.text, results[q.qid]) for q in unanswerable]
    report = {
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "retrieval_has_gold (top 3 hits)": _rate(
            [
                any(contains_answer(h.chunk.text, q.answers) for h in r["hits"][:3])
                for q, r in zip(answerable, runs_a, strict=True)
            ]
        ),
        "quote_contains_gold": _rate(
            [contains_answer(r["quote"], q.answers) for q, r in zip(answerable, runs_a, strict=True)]
        ),
        "unanswerable_declined": _rate([not r["answerable"] for r in runs_u]),
        "answerable_falsely_declined": _rate([not r["answerable"] for r in runs_a]),
        "grounding_ms_median": round(sorted(r["ms"] for r in runs_a + runs_u)[len(runs_a + runs_u) // 2], 1),
        "index_seconds": round(index_s, 1),
    }
    cases = support_cases(answerable, DEVKIT)
    report |= support_figures(cases, g.services.embedder(g.services.config))
    return report


def holdout_questions(cache: Path, n_answerable: int, n_unanswerable: int) -> tuple[list[Any], list[Any]]:
    """bench/answers.py's ``prepare_squad`` questions, without indexing."""
    import math

    from bench.devkit import SQUAD, write_squad_holdout

    answerable: list[Any] = []
    unanswerable: list[Any] = []
    for name in SQUAD:
        h = write_squad_holdout(
            name, cache / "docs" / name, math.ceil(n_unanswerable / 4), math.ceil(n_answerable / 4)
        )
        answerable += h.answerable
        unanswerable += h.unanswerable
    return answerable[:n_answerable], unanswerable[:n_unanswerable]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--answerable", type=int, default=300)
    p.add_argument("--unanswerable", type=int, default=100)
    p.add_argument("--old-ref", default="fa03570", help="the product before the toolkit change")
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "text_toolkit"))
    p.add_argument("--sides", nargs="+", default=["new", "new-snowball", "old"])
    p.add_argument(
        "--index-from", default="", help="use this data dir's index of the same hold-out (all sides)"
    )
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--tree", default=str(ROOT), help=argparse.SUPPRESS)
    p.add_argument("--stemmer", default="light", choices=["snowball", "light"], help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        print(json.dumps(worker(args)))
        return
    from bench.workspace import old_tree  # here, not at the top: a worker imports the side's own tree

    cache = Path(args.cache)
    sides = {
        "new": (ROOT, "light", cache / "new"),
        "new-snowball": (ROOT, "snowball", cache / "new"),
        "old": (old_tree(cache, args.old_ref, prefix="tree"), "light", cache / "old"),
    }
    report: dict[str, Any] = {"old_ref": args.old_ref}
    for name in args.sides:
        tree, stemmer, side_cache = sides[name]
        # This file run as a script, with the side's tree first on the import path: the product and the
        # bench helpers a worker imports are that tree's.
        env = {**os.environ, "PYTHONPATH": str(tree)}
        cmd = [sys.executable, __file__, "--worker", "--tree", str(tree), "--stemmer", stemmer,
               "--cache", str(side_cache), "--answerable", str(args.answerable),
               "--unanswerable", str(args.unanswerable), "--index-from", args.index_from]  # fmt: skip
        out = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=tree, env=env)
        if out.returncode:
            raise SystemExit(f"side {name} failed:\n{out.stderr[-3000:]}")
        report[name] = json.loads(out.stdout.splitlines()[-1])
        print(name, json.dumps(report[name]), file=sys.stderr, flush=True)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
