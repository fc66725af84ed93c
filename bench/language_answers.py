"""Answers in every language through the product (issue 42): does the quote or the written answer hold the
gold, per language, with the embedded models (`kimas ask --batch --json`, preset full)?

- **Hindi**: the first ``--size`` questions of the held-out half of ``hindi_qa_bigbench_even`` (halves as
  ``bench.lexical.half``), over the collection ``bench.languages`` indexes; gold: any of its answers.
- **Debian Reference**, English, German, Japanese, Chinese (zh-cn): the known-item questions of ``kimas
  eval``'s generator (seed 42; the sentences ``bench.languages`` asks about), the first ``--size`` of them,
  asked as the generator writes them: "What do the documents say about <a phrase of the sentence>?", in
  Chinese and Japanese for a Chinese or Japanese phrase ("文档中关于{}是怎么说的？"), in German for a
  sentence py3langid finds German ("Was steht in den Dokumenten über {}?"; English before 2026-11-27),
  in English otherwise; gold: the evidence sentence's word that the question
  leaves out (``EvalQuestion.answer``).
- **Chinese seed papers**: ``python -m bench.seed_papers`` (22 frozen questions), not repeated here.

A question **holds** when the quote or the answer contains the gold (case-insensitive); ``retrieved``
when one of the five passages `kimas retrieve` returns does (the retrieval figure on the same sample).
Each collection is indexed by ``bench.languages`` first (same cache).

    python -m bench.language_answers [--size 30] [--languages hi en de ja zh-cn] [--retrieve-only]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app.evaluation.questions import generate
from bench.devkit import DEVKIT, kimas_batch, rate, read_jsonl
from bench.language_sets import ROOT, chunks_of, debian, hindi
from bench.lexical import half, holds


def _rows(data: Path, items: dict[str, str], gold: dict[str, list[str]], ask: bool = True) -> dict[str, Any]:
    """The sample's rates; ``ask`` False: ``retrieved`` alone (no chat model: minutes, not hours)."""
    batch = [{"id": k, "question": q} for k, q in items.items()]
    flags = ("--json", "--preset", "full")
    answered = kimas_batch("ask", data, batch, *flags) if ask else {}
    found = kimas_batch("retrieve", data, batch, *flags)
    out: dict[str, list[bool]] = {"holds": [], "quote": [], "answer": [], "retrieved": []}
    for k in items:
        passages = " ".join(h.get("text", "") for h in found[k].get("hits", [])[:5])
        out["retrieved"].append(holds(passages, gold[k]))
        if not ask:
            continue
        r = answered[k]
        quote = (r.get("quote") or {}).get("text", "") if isinstance(r.get("quote"), dict) else ""
        out["quote"].append(holds(quote, gold[k]))
        out["answer"].append(holds(r.get("answer") or "", gold[k]))
        out["holds"].append(out["quote"][-1] or out["answer"][-1])
    return {"questions": len(items), **{name: rate(v) for name, v in out.items() if v}}


def hindi_answers(cache: Path, size: int, ask: bool = True) -> dict[str, Any]:
    kit = DEVKIT / "hindi_qa_bigbench_even"
    if not (cache / "hindi" / "data").exists():
        hindi(cache, "held-out", 1)  # indexes the passages
    gold = {a["_id"]: a["answers"] for a in read_jsonl(kit / "answers.jsonl")}
    qs = [q for q in read_jsonl(kit / "queries.jsonl") if gold.get(q["_id"]) and half(q["_id"]) == "held-out"]
    items = {q["_id"]: q["text"] for q in qs[:size]}
    return {"language": "hi", **_rows(cache / "hindi" / "data", items, gold, ask)}


def debian_answers(cache: Path, lang: str, size: int, ask: bool = True) -> dict[str, Any]:
    data = cache / f"debian-{lang}" / "data"
    if not data.exists():
        debian(cache, lang, 1)  # indexes the guide
    chunks = chunks_of(data, "debian")
    qs = [q for q in generate({"debian": chunks}, 100, seed=42).questions if q.answerable and q.answer]
    items = {q.qid: q.question for q in qs[:size]}  # a whole question, as a user of the evaluation reads it
    gold = {q.qid: [q.answer] for q in qs[:size]}
    return {"language": lang, **_rows(data, items, gold, ask)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", type=int, default=30, help="questions per language")
    p.add_argument("--languages", nargs="*", default=["hi", "en", "de", "ja", "zh-cn"])
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "languages"))
    p.add_argument("--retrieve-only", action="store_true", help="the retrieval figure alone (no answers)")
    args = p.parse_args()
    cache = Path(args.cache)
    report: dict[str, Any] = {}
    for lang in args.languages:
        ask = not args.retrieve_only
        report[lang] = (
            hindi_answers(cache, args.size, ask)
            if lang == "hi"
            else debian_answers(cache, lang, args.size, ask)
        )
        print(json.dumps(report[lang], ensure_ascii=False), file=sys.stderr, flush=True)
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
