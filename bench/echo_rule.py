"""Do issue 40's quote rules cost English quotes? The grounding of this tree against an older one over the
very same retrieved hits.

One `kimas retrieve` over the SQuAD-Shifts answers set (``bench.workspace.prepare_squad``: 300 answerable,
100 whose passage is left out), then the product's grounding (``bench.grounding.Grounding1``) over those
hits twice, each in a process started in its own tree: this one, and ``--old-ref`` unpacked with ``git
archive``. Reported: gold answer in the quote, the decision (answerable / declined), and how many quotes
changed at all.

    python -m bench.echo_rule --old-ref REF [--answerable 300] [--unanswerable 100]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.devkit import contains_answer, kimas_batch, rate, squad_items
from bench.workspace import old_tree, prepare_squad

ROOT = Path(__file__).resolve().parents[1]
GROUND = """
import json, sys
from pathlib import Path
from bench.grounding import Grounding1
from kimas_desktop.config import GroundingConfig
g = Grounding1(Path(sys.argv[1]), GroundingConfig())
out = [g.run(question, found) for question, found in json.loads(Path(sys.argv[2]).read_text())]
print(json.dumps([{"quote": r["quote"], "answerable": r["answerable"]} for r in out]))
"""


def ground(tree: Path, data: Path, items: Path) -> list[dict[str, Any]]:
    cmd = [sys.executable, "-c", GROUND, str(data), str(items)]
    out = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(f"grounding in {tree} failed:\n{out.stderr[-3000:]}")
    result: list[dict[str, Any]] = json.loads(out.stdout.splitlines()[-1])
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--old-ref", required=True, help="git ref of the grounding to compare with")
    p.add_argument("--answerable", type=int, default=300)
    p.add_argument("--unanswerable", type=int, default=100)
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "answers"))
    args = p.parse_args()
    cache = Path(args.cache)
    data, answerable, unanswerable = prepare_squad(cache, args.answerable, args.unanswerable)
    qs = [*answerable, *unanswerable]
    found = kimas_batch("retrieve", data, squad_items(qs))
    items = cache / "echo-rule-hits.json"
    items.write_text(json.dumps([(q.text, found[q.qid]) for q in qs]))
    runs = {"old": ground(old_tree(cache, args.old_ref), data, items), "new": ground(ROOT, data, items)}
    n = len(answerable)
    report: dict[str, Any] = {"answerable": n, "unanswerable": len(unanswerable), "old ref": args.old_ref}
    for side, rs in runs.items():
        report[side] = {
            "gold in quote": rate(
                [contains_answer(r["quote"], q.answers) for q, r in zip(answerable, rs, strict=False)]
            ),
            "answerable falsely declined": rate([not r["answerable"] for r in rs[:n]]),
            "unanswerable declined": rate([not r["answerable"] for r in rs[n:]]),
        }
    changed = [
        i for i, (a, b) in enumerate(zip(runs["old"], runs["new"], strict=True)) if a["quote"] != b["quote"]
    ]
    report["quotes changed"] = len(changed)
    report["changed"] = [
        {"question": qs[i].text, "old": runs["old"][i]["quote"], "new": runs["new"][i]["quote"]}
        for i in changed
    ]
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
