"""Retrieval quality on the development kit, through the product's own indexer and `kimas retrieve`.

    .venv/bin/python -m bench.quality [--per-domain 100] [--quac-conversations 100] [--no-llm-rewrite]
                                      [--parts squad quac]

Reports: routing accuracy@1/@2 over the four SQuAD-Shifts collections; recall@5 and MRR@10 of the full
retrieval path vs a dense-only and a BM25-only baseline (same embedder, same store, same run); and on QuAC
follow-up turns, recall@5 for the raw question, the context manager's rewrite (heuristic and LLM) and the
whole history. A hit is a retrieved chunk from the gold passage's file containing a gold answer string
(SQuAD), or a chunk of the gold passage (QuAC).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from app.runtime import Runtime
from bench.devkit import (
    SQUAD,
    contains_answer,
    kimas_batch,
    quac_turns,
    squad_questions,
    write_quac,
    write_squad,
)
from bench.workspace import configure, index_folders, overrides

ROOT = Path(__file__).resolve().parents[1]

K = 5


def _cli_retrieve(
    data_dir: Path, items: list[dict[str, Any]], extra: Sequence[str] = ()
) -> dict[str, dict[str, Any]]:
    """Run `kimas retrieve --batch` (the product's retrieve path) and return results by id."""
    return kimas_batch("retrieve", data_dir, items, *extra)


def _rank(hits: Sequence[tuple[str, str]], ok: Callable[[str, str], bool]) -> int | None:
    for i, (source, text) in enumerate(hits[:10], 1):
        if ok(source, text):
            return i
    return None


def _scores(ranks: Sequence[int | None]) -> tuple[float, float]:
    n = len(ranks) or 1
    recall = sum(1 for r in ranks if r is not None and r <= K) / n
    mrr = sum(1 / r for r in ranks if r is not None) / n
    return recall, mrr


def _baseline(services: Runtime, names: Sequence[str], question: str, mode: str) -> list[tuple[str, str]]:
    vec = services.embedder(services.config).embed_query([question])[0]
    hits = [h for n in names for h in services.store().search(n, text=question, vector=vec, k=10, mode=mode)]
    hits.sort(key=lambda h: h.score, reverse=True)
    return [(h.chunk.source, h.chunk.text) for h in hits[:10]]


def squad(args: argparse.Namespace, cache: Path) -> dict[str, Any]:
    folders = {name: cache / "docs" / name for name in SQUAD}
    questions = []
    for name in SQUAD:
        where = write_squad(name, folders[name])
        questions += squad_questions(name, where, args.per_domain)
    data = cache / "squad"
    sections = overrides(args.set)
    sections["routing"] = {"top_k": 2, **sections.get("routing", {})}
    services = configure(data, folders, **sections)
    index_s = index_folders(services, folders)
    t = time.perf_counter()
    results = _cli_retrieve(data, [{"id": q.qid, "question": q.text} for q in questions])
    full_s = time.perf_counter() - t
    r1 = sum(results[q.qid]["routes"][0]["collection"] == q.collection for q in questions) / len(questions)
    r2 = sum(
        q.collection in [r["collection"] for r in results[q.qid]["routes"][:2]] for q in questions
    ) / len(questions)

    def ok_for(q: Any) -> Callable[[str, str], bool]:
        return lambda source, text: Path(source).name == q.gold_file and contains_answer(text, q.answers)

    full = [_rank([(h["source"], h["text"]) for h in results[q.qid]["hits"]], ok_for(q)) for q in questions]
    dense = [_rank(_baseline(services, SQUAD, q.text, "dense"), ok_for(q)) for q in questions]
    bm25 = [_rank(_baseline(services, SQUAD, q.text, "fts"), ok_for(q)) for q in questions]
    return {
        "questions": len(questions),
        "index_seconds": round(index_s, 1),
        "routing@1": round(r1, 4),
        "routing@2": round(r2, 4),
        "full": _scores(full),
        "dense": _scores(dense),
        "bm25": _scores(bm25),
        "full_ms_per_question": round(1000 * full_s / len(questions), 1),
    }


def quac(args: argparse.Namespace, cache: Path) -> dict[str, Any]:
    folder = cache / "docs" / "quac"
    write_quac(folder)
    data = cache / "quac"
    services = configure(data, {"quac": folder})
    index_folders(services, {"quac": folder})
    turns = [t for t in quac_turns(args.quac_conversations) if t.history]

    def item(t: Any, question: str, history: bool) -> dict[str, Any]:
        hist = [{"role": r, "content": c} for r, c in t.history] if history else []
        return {"id": t.qid, "question": question, "history": hist}

    whole = [item(t, " ".join(c for _, c in t.history) + " " + t.question, False) for t in turns]
    variants = {
        "raw question": _cli_retrieve(data, [item(t, t.question, False) for t in turns]),
        "rewrite (heuristic, default)": _cli_retrieve(data, [item(t, t.question, True) for t in turns]),
        "whole history": _cli_retrieve(data, whole),
    }
    if args.llm_rewrite:
        cfg = data / "llm-rewrite.toml"
        cfg.write_text(Path(services.paths.config_file).read_text() + '\n[context]\nrewrite = "llm"\n')
        variants["rewrite (LLM, SmolLM2-135M)"] = _cli_retrieve(
            data, [item(t, t.question, True) for t in turns], ["--config", str(cfg)]
        )
    out: dict[str, Any] = {"follow_up_turns": len(turns)}
    for name, results in variants.items():
        ranks = [
            _rank(
                [(h["source"], h["text"]) for h in results[t.qid]["hits"]],
                lambda s, _x, t=t: Path(s).name == t.gold_file,
            )
            for t in turns
        ]
        out[name] = _scores(ranks)
        timings = [results[t.qid]["timings_ms"] for t in turns]
        out[name + " ms"] = {
            k: round(sum(x.get(k, 0) for x in timings) / len(timings), 1)
            for k in ("rewrite", "route", "total")
        }
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--per-domain", type=int, default=100)
    p.add_argument("--quac-conversations", type=int, default=100)
    p.add_argument("--no-llm-rewrite", dest="llm_rewrite", action="store_false")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="SECTION.KEY=VALUE",
        help="a config override for the SQuAD run, e.g. rerank.semantic_weight=0.3",
    )
    p.add_argument("--parts", nargs="+", choices=["squad", "quac"], default=["squad", "quac"])
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "quality"))
    args = p.parse_args()
    cache = Path(args.cache)
    report = {}
    for part in args.parts:
        report[part] = {"squad": squad, "quac": quac}[part](args, cache)
        print(f"{part}: {json.dumps(report[part])}", file=sys.stderr)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
