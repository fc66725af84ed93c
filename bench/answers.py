"""Answer quality per preset on the development kit, through `kimas ask --batch --json`.

    .venv/bin/python bench/answers.py [--squad 16] [--quac 16] [--cache bench/.cache/quality]

Reports per preset: the share of answers containing a gold answer string, the share of citations pointing
at a chunk that contains one, and the share of unanswerable QuAC turns answered as unanswerable (the
answer says the documents do not contain it). Needs the collections bench/quality.py indexes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.devkit import SQUAD, contains_answer, kimas_batch, quac_turns, squad_questions, write_squad  # noqa: E402

PRESETS = ("full", "routed", "turbo")


def ask(data_dir: Path, preset: str, items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return kimas_batch("ask", data_dir, items, "--json", "--preset", preset)


def cited_text(result: dict[str, Any]) -> list[str]:
    evidence = {e["chunk_id"]: e["text"] for e in result["trace"]["evidence"]}
    return [evidence.get(c["chunk_id"], c["snippet"]) for c in result["citations"]]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--squad", type=int, default=16, help="SQuAD-Shifts questions (spread over the 4 domains)")
    p.add_argument("--quac", type=int, default=16, help="QuAC follow-up turns (half of them unanswerable)")
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "quality"))
    args = p.parse_args()
    cache = Path(args.cache)
    squad = []
    for n in SQUAD:
        squad += squad_questions(n, write_squad(n, cache / "docs" / n), args.squad // 4, seed=23)
    turns = [t for t in quac_turns(400, seed=23) if t.history]
    unans = [t for t in turns if t.unanswerable][: args.quac // 2]
    answ = [t for t in turns if not t.unanswerable][: args.quac - len(unans)]
    report: dict[str, Any] = {"squad_questions": len(squad), "quac_turns": len(unans) + len(answ)}
    for preset in PRESETS:
        s = ask(cache / "squad", preset, [{"id": q.qid, "question": q.text} for q in squad])
        qitems = [
            {
                "id": t.qid,
                "question": t.question,
                "history": [{"role": r, "content": c} for r, c in t.history],
            }
            for t in [*unans, *answ]
        ]
        qa = ask(cache / "quac", preset, qitems)
        answered = [contains_answer(s[q.qid]["answer"], q.answers) for q in squad]
        answered += [contains_answer(qa[t.qid]["answer"], t.answers) for t in answ]
        cites = [contains_answer(text, q.answers) for q in squad for text in cited_text(s[q.qid])]
        cites += [contains_answer(text, t.answers) for t in answ for text in cited_text(qa[t.qid])]
        said_unknown = [not qa[t.qid].get("answered_from_sources", True) for t in unans]
        with_cites = sum(1 for q in squad if s[q.qid]["citations"]) + sum(
            1 for t in answ if qa[t.qid]["citations"]
        )
        report[preset] = {
            "answer_contains_gold": round(sum(answered) / max(len(answered), 1), 3),
            "citations_on_gold_chunk": round(sum(cites) / max(len(cites), 1), 3),
            "answers_with_citations": round(with_cites / max(len(squad) + len(answ), 1), 3),
            "unanswerable_recognised": round(sum(said_unknown) / max(len(said_unknown), 1), 3),
        }
        print(preset, report[preset], file=sys.stderr)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
