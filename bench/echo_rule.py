"""Does the echo rule cost English quotes? (issue 40: a question in a document that brings no word beyond
the user's question is scored as words addressed to the assistant.)

One `kimas retrieve` over the SQuAD-Shifts answers set (``bench.workspace.prepare_squad``: 300 answerable,
100 whose passage is left out), then the product's grounding twice over the very same hits: with the rule,
and with ``asks`` answering False (the scorer before the rule). Reported: gold answer in the quote, the
decision (answerable / declined), and how many quotes changed at all.

    python -m bench.echo_rule [--answerable 300] [--unanswerable 100]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import kimas_desktop.answer.signals.quote as quote_module
from bench.devkit import contains_answer, kimas_batch, rate, squad_items
from bench.grounding import Grounding1
from bench.workspace import prepare_squad
from kimas_desktop.config import GroundingConfig

ROOT = Path(__file__).resolve().parents[1]


def ground(g: Grounding1, qs: list[Any], found: dict[str, Any], rule: bool) -> list[dict[str, Any]]:
    keep = quote_module.asks
    if not rule:
        quote_module.asks = lambda sentence: False
    try:
        return [g.run(q.text, found[q.qid]) for q in qs]
    finally:
        quote_module.asks = keep


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--answerable", type=int, default=300)
    p.add_argument("--unanswerable", type=int, default=100)
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "answers"))
    args = p.parse_args()
    data, answerable, unanswerable = prepare_squad(Path(args.cache), args.answerable, args.unanswerable)
    qs = [*answerable, *unanswerable]
    found = kimas_batch("retrieve", data, squad_items(qs))
    g = Grounding1(data, GroundingConfig())
    runs = {rule: ground(g, qs, found, rule) for rule in (False, True)}
    n = len(answerable)
    report: dict[str, Any] = {"answerable": n, "unanswerable": len(unanswerable)}
    for rule, rs in runs.items():
        report["with the rule" if rule else "without"] = {
            "gold in quote": rate(
                [contains_answer(r["quote"], q.answers) for q, r in zip(answerable, rs, strict=False)]
            ),
            "answerable falsely declined": rate([not r["answerable"] for r in rs[:n]]),
            "unanswerable declined": rate([not r["answerable"] for r in rs[n:]]),
        }
    report["quotes changed"] = sum(
        a["quote"] != b["quote"] for a, b in zip(runs[False], runs[True], strict=True)
    )
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
