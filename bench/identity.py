"""Question by question: did a change that only moves code keep every decision and quote? (issue 41)

Reads two kept batches of `python -m bench.answers --parts ask` (``bench/.cache/answers/ask-*.json``, one
per side) and compares, for each question, what the pipeline decides before the model writes: the
outcome (answered, declined, nothing found), the quote, the answerability record and the evidence the
first round packed. What follows from the time budget is listed apart: the budget cuts the prompt's
sources by the prompt speed measured on the machine at that moment, so the sources the model reads, its
answer and whether the answer uses the quote differ between any two runs of the same code on a busy
machine.

    python -m bench.identity OLD.json NEW.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

DECIDED = ("outcome", "quote", "answerable")


def first_pack(result: dict[str, Any]) -> Any:
    packs = [s for s in result["trace"]["stages"] if s["stage"] == "pack"]
    return {k: v for k, v in packs[0].items() if k != "ms"} if packs else None


def budget_cut(result: dict[str, Any]) -> Any:
    return [s.get("sources") for s in result["trace"]["stages"] if s["stage"] == "budget"]


def compare(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    assert old.keys() == new.keys(), "the two batches hold different questions"
    differ = {f: [q for q in old if old[q].get(f) != new[q].get(f)] for f in DECIDED}
    differ["first pack"] = [q for q in old if first_pack(old[q]) != first_pack(new[q])]
    timed = [q for q in old if budget_cut(old[q]) != budget_cut(new[q])]
    uses = [q for q in old if old[q].get("answer_uses_quote") != new[q].get("answer_uses_quote")]
    return {
        "questions": len(old),
        "identical decisions and quotes": sum(not any(q in v for v in differ.values()) for q in old),
        "differ": differ,
        "time budget cut differently": len(timed),
        "answer uses the quote differs": len(uses),
        "of those, budget cut differently": len(set(uses) & set(timed)),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old", type=Path)
    p.add_argument("new", type=Path)
    args = p.parse_args()
    old, new = (json.loads(f.read_text())[0] for f in (args.old, args.new))
    print(json.dumps(compare(old, new), indent=2))


if __name__ == "__main__":
    main()
