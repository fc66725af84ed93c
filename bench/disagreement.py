"""Sources that disagree (issue 70): does the answer show both values, and how often does it cry wolf?

    nice -n 19 .venv/bin/python -m bench.disagreement [--per-domain 400]

- **written set** (``bench/disagreements.json``, written for this project): 12 cases where two files state the
  asked value differently ("7 days" in a note, "90 days" in an audit) and 12 where they agree or state other
  values about other things. Each case is a collection of its own, indexed by the product's indexer and asked
  through ``Pipeline.ask`` up to the grounded quote: flagged = ``QuoteReady.disagree``, and both files quoted.
- **false alarms on real text** (SQuAD-Shifts, four domains, English; never tuned on): the product's grounding
  over each question's 3 best passages by BM25 (``bench.reader_effect``'s candidates, each passage its own
  file). One article answers each question, so a flag there is a false alarm unless the other quote also
  holds a gold answer.

The rule's thresholds (``signals/disagree.py``) were set by reading the written set's first case only.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from bench.devkit import contains_answer
from bench.squad_candidates import rate, squad
from bench.workspace import configure, index_folders
from kimas_desktop.answer.signals.grounding import Grounder
from kimas_desktop.config import EmbeddingModelConfig, GroundingConfig
from kimas_desktop.events import QuoteReady
from kimas_desktop.text.question_words import answer_kind
from local_models import build_embedder

SET = Path(__file__).resolve().parent / "disagreements.json"


def written(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for i, case in enumerate(cases):
        root = Path(tempfile.mkdtemp(prefix="kimas-disagree-"))
        try:
            docs = root / "docs"
            docs.mkdir()
            for name, text in case["files"].items():
                (docs / name).write_text(text, encoding="utf-8")
            runtime = configure(root / "data", {f"case{i}": docs})
            index_folders(runtime, {f"case{i}": docs})
            events = runtime.pipeline().ask(case["question"])
            quote = next(e for e in events if isinstance(e, QuoteReady))  # no model answer awaited
            files = sorted({Path(q.chunk.source).name for q in quote.quotes})
            out.append(
                {
                    "question": case["question"],
                    "disagree": case["disagree"],
                    "flagged": quote.disagree,
                    "files quoted": files,
                    "quotes": [q.display for q in quote.quotes],
                }
            )
        finally:
            shutil.rmtree(root, ignore_errors=True)
    return out


def false_alarms(per_domain: int) -> dict[str, Any]:
    embedder = build_embedder(EmbeddingModelConfig(), Path(tempfile.gettempdir()) / "kimas-bench-models")
    grounder = Grounder(embedder, GroundingConfig())
    items = squad(per_domain, seed=70)
    flags, numbers, examples = [], [], []
    for it in items:
        g = grounder.ground(it.question, it.answerable)
        flags.append(g.disagree)
        if answer_kind(it.question) == "number":
            numbers.append(g.disagree)
        if g.disagree:
            both = all(contains_answer(q.text, it.answers) for q in g.quotes)
            examples.append(
                {"question": it.question, "quotes": [q.display for q in g.quotes], "both gold": both}
            )
    return {
        "questions": len(items),
        "flagged": rate(flags),
        "number questions": len(numbers),
        "flagged of number questions": rate(numbers),
        "flagged with gold in both quotes": sum(e["both gold"] for e in examples),
        "examples": examples[:12],
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--per-domain", type=int, default=400)
    args = p.parse_args()
    rows = written(json.loads(SET.read_text("utf-8"))["cases"])
    conflicts = [r for r in rows if r["disagree"]]
    agree = [r for r in rows if not r["disagree"]]
    report = {
        "written: disagreements flagged": rate(
            [r["flagged"] and len(r["files quoted"]) == 2 for r in conflicts]
        ),
        "written: agreements flagged (false)": rate([r["flagged"] for r in agree]),
        "written: missed or false": [r for r in rows if r["flagged"] != r["disagree"]],
    }
    if args.per_domain:
        report["SQuAD-Shifts"] = false_alarms(args.per_domain)
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
