"""The seed papers through the product (issue 42's acceptance): ``../shared/papers/`` indexed as one
collection with the embedded models, the 22 Chinese questions of ``bench/chinese_questions.json``
(written and committed before the text layer, never tuned on) asked with `kimas ask --batch --json`,
side by side for an old tree (``--old-ref``, unpacked with ``git archive``) and this one. Each side
indexes the papers with its own code into its own data directory.

A question **holds** when the quote or the written answer contains one of its answers (case-insensitive);
``retrieved`` when one of the five passages `kimas retrieve` returns does.

    python -m bench.seed_papers [--old-ref REF] [--preset full] [--questions FILE]

``--questions bench/english_questions_zh_papers.json`` asks the same questions in English (issue 68: the
answer is in a Chinese paper, the collection holds English papers too).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.devkit import kimas_batch, rate
from bench.lexical import holds
from bench.workspace import configure, old_tree

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ROOT.parent / "shared" / "papers"
QUESTIONS = Path(__file__).resolve().parent / "chinese_questions.json"


def index(data: Path, folder: Path, root: Path | None) -> None:
    cmd = [sys.executable, "-m", "cli.main", "index", str(folder), "--data-dir", str(data)]
    subprocess.run([*cmd, "--collection", "papers", "--quiet"], cwd=root or ROOT, check=True)


def side(cache: Path, name: str, root: Path | None, preset: str, questions: Path) -> list[dict[str, Any]]:
    folder = cache / "papers"
    if not folder.exists():
        shutil.copytree(PAPERS, folder, ignore=shutil.ignore_patterns("README.md"))
    data = cache / f"data-{name}"
    shutil.rmtree(data, ignore_errors=True)
    configure(data, {"papers": folder})
    index(data, folder, root)
    qs = json.loads(questions.read_text("utf-8"))["questions"]
    items = [{"id": q["id"], "question": q["question"]} for q in qs]
    flags = ("--json", "--preset", preset)
    asked = kimas_batch("ask", data, items, *flags, root=root)
    found = kimas_batch("retrieve", data, items, *flags, root=root)
    rows = []
    for q in qs:
        r = asked[q["id"]]
        quote = (r.get("quote") or {}).get("text", "") if isinstance(r.get("quote"), dict) else ""
        passages = " ".join(h.get("text", "") for h in found[q["id"]].get("hits", [])[:5])
        rows.append(
            {
                "id": q["id"],
                "quote": holds(quote, q["answers"]),
                "answer": holds(r.get("answer") or "", q["answers"]),
                "holds": holds(quote, q["answers"]) or holds(r.get("answer") or "", q["answers"]),
                "retrieved": holds(passages, q["answers"]),
                "outcome": r.get("outcome"),
            }
        )
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--old-ref", default="", help="git ref of the old side (none: this tree only)")
    p.add_argument("--preset", default="full", choices=["full", "routed", "turbo"])
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "seed_papers"))
    p.add_argument(
        "--questions",
        default=str(QUESTIONS),
        help="bench/english_questions_zh_papers.json: the same questions in English (issue 68)",
    )
    args = p.parse_args()
    cache = Path(args.cache)
    sides: dict[str, Path | None] = {"new": None}
    if args.old_ref:
        sides = {"old": old_tree(cache, args.old_ref), **sides}
    report: dict[str, Any] = {"questions": 0}
    for name, root in sides.items():
        rows = side(cache, name, root, args.preset, Path(args.questions))
        report["questions"] = len(rows)
        report[name] = {k: rate([r[k] for r in rows]) for k in ("holds", "quote", "answer", "retrieved")}
        report[f"{name} misses"] = [r["id"] for r in rows if not r["holds"]]
        print(name, report[name], file=sys.stderr, flush=True)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
