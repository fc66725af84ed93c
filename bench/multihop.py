"""Multi-hop retrieval (issue 25): today's single-round pipeline vs the LLM-free bridge hops, in one run.

    nice .venv/bin/python -m bench.multihop [--questions 400] [--squad 300] [--split holdout]

StrategyQA (BIG-bench; ``../shared/eval/devkit/strategyqa_bigbench``): each of its 5,305 gold facts is a
document (one Markdown file each), indexed by the product's indexer into one collection; each question
needs 2–5 of them. Through ``Pipeline.retrieve`` (the path ``kimas retrieve`` and ``kimas ask`` run) with
``hops.enabled`` off (today) and on, ``rerank.top_n`` 10: "all gold facts in the top 5 / 10" and "at least
one". The even positions of the question list are the tuning half, the odd ones held out (``--split``).

Single-hop check: SQuAD-Shifts answerable questions (bench/answers.py's kept index, its collections and
embedder) with hops off and on: recall@5 (a top-5 chunk of the gold file holding a gold answer).

Prints one JSON report.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from app.paths import resolve_paths
from app.runtime import Runtime
from bench.devkit import DEVKIT, contains_answer, split
from bench.machine import cpu_model
from bench.workspace import prepare_squad
from kimas_desktop.config import CollectionConfig, Config, load_config

ROOT = Path(__file__).resolve().parents[1]

SQA = DEVKIT / "strategyqa_bigbench"


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def strategyqa(cache: Path) -> tuple[Path, list[tuple[str, str, set[str]]]]:
    """The facts written one file each (``<fact id>.md``); the questions with their gold fact ids."""
    docs = cache / "facts"
    docs.mkdir(parents=True, exist_ok=True)
    for row in _jsonl(SQA / "corpus.jsonl"):
        path = docs / f"{row['_id']}.md"
        if not path.exists():
            path.write_text(row["text"].strip() + "\n", "utf-8")
    gold: dict[str, set[str]] = defaultdict(set)
    for line in (SQA / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        qid, fid, _ = line.split("\t")
        gold[qid].add(fid)
    questions = [
        (q["_id"], q["text"], gold[q["_id"]]) for q in _jsonl(SQA / "queries.jsonl") if gold[q["_id"]]
    ]
    return docs, questions


def facts_config(config: Config, hops: bool) -> Config:
    return config.updated(hops={"enabled": hops}, rerank={"top_n": 10})


def measure_strategyqa(
    runtime: Runtime, config: Config, questions: list[tuple[str, str, set[str]]]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, hops in (("today", False), ("hops", True)):
        pipe = runtime.pipeline(facts_config(config, hops))
        rows = []
        t = time.perf_counter()
        for _qid, text, gold in questions:
            result = pipe.retrieve(text)
            ids = [Path(h.chunk.source).stem for h in result.hits]
            hopped = any(s.stage == "hop" and getattr(s, "round", 0) > 0 for s in result.trace.stages)
            rows.append((ids, gold, hopped))
        seconds = time.perf_counter() - t
        out[name] = {
            "all_facts@5": rate([gold <= set(ids[:5]) for ids, gold, _ in rows]),
            "all_facts@10": rate([gold <= set(ids[:10]) for ids, gold, _ in rows]),
            "one_fact@5": rate([bool(gold & set(ids[:5])) for ids, gold, _ in rows]),
            "one_fact@10": rate([bool(gold & set(ids[:10])) for ids, gold, _ in rows]),
            "fact_recall@10": round(
                statistics.mean(len(gold & set(ids[:10])) / len(gold) for ids, gold, _ in rows), 4
            ),
            "hopped": rate([h for _, _, h in rows]),
            "ms_per_question": round(1000 * seconds / max(len(rows), 1), 1),
        }
        print(name, json.dumps(out[name]), file=sys.stderr, flush=True)
    return out


def measure_squad(cache: Path, n: int, which: str) -> dict[str, Any]:
    data, answerable, _ = prepare_squad(cache, 300, 100)
    questions = split(answerable, which)[:n]
    paths = resolve_paths(str(data), None)
    config = load_config(paths.config_file)
    runtime = Runtime(paths, config)
    out: dict[str, Any] = {"questions": len(questions)}
    try:
        for name, hops in (("today", False), ("hops", True)):
            pipe = runtime.pipeline(config.updated(hops={"enabled": hops}))
            hits = []
            for q in questions:
                top = pipe.retrieve(q.text).hits[:5]
                hits.append(
                    any(
                        Path(h.chunk.source).name == q.gold_file and contains_answer(h.chunk.text, q.answers)
                        for h in top
                    )
                )
            out[name] = {"recall@5": rate(hits)}
            print("squad", name, out[name], file=sys.stderr, flush=True)
    finally:
        runtime.close()
    return out


def rate(values: list[bool]) -> float:
    return round(sum(values) / max(len(values), 1), 4)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--questions", type=int, default=400)
    p.add_argument("--squad", type=int, default=150)
    p.add_argument("--split", choices=["all", "tune", "holdout"], default="holdout")
    p.add_argument("--parts", nargs="+", choices=["strategyqa", "squad"], default=["strategyqa", "squad"])
    p.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache" / "multihop")
    p.add_argument("--squad-cache", type=Path, default=ROOT / "bench" / ".cache" / "answers")
    args = p.parse_args()
    report: dict[str, Any] = {"cpu": cpu_model(), "split": args.split}
    if "strategyqa" in args.parts:
        docs, questions = strategyqa(args.cache)
        questions = split(questions, args.split)[: args.questions]
        data = args.cache / "data"
        paths = resolve_paths(str(data), None)
        config = load_config(paths.config_file).updated(
            collections={"facts": CollectionConfig(folders=[str(docs)]).model_dump()}
        )
        runtime = Runtime(paths, config)
        try:
            t = time.perf_counter()
            runtime.indexer(config).index("facts", [docs])
            print(f"indexed in {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
            report["strategyqa"] = {
                "questions": len(questions),
                **measure_strategyqa(runtime, config, questions),
            }
        finally:
            runtime.close()
    if "squad" in args.parts:
        report["squad"] = measure_squad(args.squad_cache, args.squad, args.split)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
