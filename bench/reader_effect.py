"""What the reader (issue 68) changes where the product reads, measured on data it never trained on.

    nice -n 19 .venv/bin/python -m bench.reader_effect [--graph PATH] [--per-domain 100] [--hindi 400]

No index: each question's candidates are the best passages of its own set by BM25 (the product's word
scoring, ``term_overlap_scores``'s formula with the set as the corpus), so the figures isolate what is read,
not what is found. Every figure is on the held-out half (odd positions); weights and thresholds are chosen
on the tune half (even positions) and printed.

- **quote** (SQuAD-Shifts, four domains, English): the product's quote (``Grounder.ground`` over the best 3
  passages, the MiniLM embedder, as ``Pipeline.ask``) against the reader's best sentence among the same
  candidates, and the two combined (the product's sentence score + w x the reader's probability). Counted
  on the questions whose gold passage is among the 3: the chosen sentence holds a gold string.
- **decline** (same questions): answerable = the 3 best passages; unanswerable = the 3 best once every
  passage holding a gold string is taken out. The product's decision against a threshold on the reader's
  best sentence probability, chosen on the tune half for false declines <= 0.05.
- **rank** (Hindi QA, BIG-bench's even half): the 24 best passages by BM25; gold passage in the top 5 by
  BM25, by e5's cosine, by the reader, and by e5 then the reader (the reader's probability + w x cosine).

SQuAD-Shifts and the Hindi QA come from BIG-bench: measured here, never trained on (bench/reader_data.py).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.devkit import DEVKIT, contains_answer, read_jsonl
from bench.squad_candidates import Bm25, Item, halves, rate, squad
from kimas_desktop.answer.signals.grounding import Grounder, weights_of
from kimas_desktop.answer.signals.quote import QuoteScorer
from kimas_desktop.config import EmbeddingModelConfig, GroundingConfig
from local_models.reader.onnx_reader import READER_GRAPH, EmbeddedReader


def quote_rows(
    items: Sequence[Item], grounder: Grounder, scorer: QuoteScorer, reader: EmbeddedReader
) -> list[dict[str, Any]]:
    """Per question, both evidence sets: the product's quote and decision, every sentence's product score
    and reader probability."""
    rows = []
    for it in items:
        row: dict[str, Any] = {
            "answers": it.answers,
            "retrieved": any(h.chunk.chunk_id == it.gold for h in it.answerable),
        }
        for side, hs in (("yes", it.answerable), ("no", it.unanswerable)):
            g = grounder.ground(it.question, hs)
            scored = scorer.score(it.question, hs)
            t = time.perf_counter()
            probs = reader.read(it.question, [s.sentence.text for s in scored]) if scored else []
            row[side] = {
                "quote": " ".join(q.text for q in g.quotes),
                "answerable": g.answerability.answerable,
                "sentences": [s.sentence.text for s in scored],
                "product": [s.score for s in scored],
                "reader": probs,
                "ms": 1000 * (time.perf_counter() - t),
            }
        rows.append(row)
    return rows


def pick(side: dict[str, Any], w: float) -> str:
    if not side["sentences"]:
        return ""
    values = (
        np.asarray(side["product"]) + w * np.asarray(side["reader"])
        if w < math.inf
        else np.asarray(side["reader"])
    )
    return str(side["sentences"][int(np.argmax(values))])


def quote_figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    tune, held = halves(rows)
    scored = [r for r in tune if r["retrieved"]]
    grid = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0, math.inf]
    got = {w: rate([contains_answer(pick(r["yes"], w), r["answers"]) for r in scored]) for w in grid}
    w_best = max(grid, key=lambda w: (got[w], -w if w < math.inf else -1e9))
    held_r = [r for r in held if r["retrieved"]]
    out = {
        "tune: quote holds gold by w": {str(w): v for w, v in got.items()},
        "w chosen": w_best,
        "held out questions (gold passage among the 3)": len(held_r),
        "product quote": rate([contains_answer(r["yes"]["quote"], r["answers"]) for r in held_r]),
        "product best sentence": rate([contains_answer(pick(r["yes"], 0.0), r["answers"]) for r in held_r]),
        "reader alone": rate([contains_answer(pick(r["yes"], math.inf), r["answers"]) for r in held_r]),
        "product + w x reader": rate([contains_answer(pick(r["yes"], w_best), r["answers"]) for r in held_r]),
    }
    # decline: the reader's best probability over the evidence, a threshold for false declines <= 0.05 on tune

    def best(side: dict[str, Any]) -> float:
        return float(max(side["reader"], default=0.0))

    yes_tune = sorted(best(r["yes"]) for r in tune)
    threshold = yes_tune[int(0.05 * len(yes_tune))]
    out["decline threshold (tune, false declines <= 0.05)"] = round(threshold, 4)
    out["product: unanswerable declined / answerable declined"] = (
        rate([not r["no"]["answerable"] for r in held]),
        rate([not r["yes"]["answerable"] for r in held]),
    )
    out["reader: unanswerable declined / answerable declined"] = (
        rate([best(r["no"]) < threshold for r in held]),
        rate([best(r["yes"]) < threshold for r in held]),
    )
    out["reader ms p50 (one question's sentences)"] = round(
        float(np.median([r["yes"]["ms"] for r in rows])), 1
    )
    out["sentences per question p50"] = int(np.median([len(r["yes"]["sentences"]) for r in rows]))
    return out


def hindi(n: int, seed: int, reader: EmbeddedReader, e5: Any) -> dict[str, Any]:
    folder = DEVKIT / "hindi_qa_bigbench_even"
    corpus = {r["_id"]: r["text"] for r in read_jsonl(folder / "corpus.jsonl")}
    gold = dict(line.split("\t")[:2] for line in (folder / "qrels/test.tsv").read_text().splitlines()[1:])
    queries = [q for q in read_jsonl(folder / "queries.jsonl") if gold.get(q["_id"]) in corpus]
    random.Random(seed).shuffle(queries)
    bm = Bm25(corpus)
    rows = []
    for q in queries[:n]:
        ranked = bm.top(q["text"], 24)
        ids = [p for p, _ in ranked]
        texts = [corpus[p] for p in ids]
        cos = np.asarray(e5.embed_passages(texts) @ e5.embed_query([q["text"]])[0])
        rows.append(
            {
                "gold": gold[q["_id"]],
                "ids": ids,
                "cos": cos,
                "reader": np.asarray(reader.read(q["text"], texts)),
            }
        )

    def top5(r: dict[str, Any], values: np.ndarray) -> bool:
        return r["gold"] in [r["ids"][j] for j in np.argsort(-values, kind="stable")[:5]]

    tune, held = halves(rows)
    grid = [0.0, 0.5, 1.0, 2.0, 4.0, 8.0]
    got = {w: rate([top5(r, r["reader"] + w * r["cos"]) for r in tune]) for w in grid}
    w_best = max(grid, key=lambda w: got[w])
    return {
        "held out questions": len(held),
        "gold among the 24": rate([r["gold"] in r["ids"] for r in held]),
        "top 5: BM25": rate([top5(r, -np.arange(24.0)[: len(r["ids"])]) for r in held]),
        "top 5: e5 cosine": rate([top5(r, r["cos"]) for r in held]),
        "top 5: reader": rate([top5(r, r["reader"]) for r in held]),
        "tune: reader + w x cosine": {str(w): v for w, v in got.items()},
        "top 5: reader + w x cosine (w chosen on tune)": rate(
            [top5(r, r["reader"] + w_best * r["cos"]) for r in held]
        ),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--graph", default=str(READER_GRAPH))
    p.add_argument("--per-domain", type=int, default=100)
    p.add_argument("--hindi", type=int, default=400)
    p.add_argument("--seed", type=int, default=68)
    p.add_argument("--cache", default=str(Path.home() / ".cache" / "kimas-desktop" / "bench-models"))
    args = p.parse_args()
    from local_models import build_embedder
    from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER

    reader = EmbeddedReader(Path(args.graph), threads=2)
    cache = Path(args.cache)
    out: dict[str, Any] = {"graph": args.graph}
    if args.per_domain:
        minilm = build_embedder(EmbeddingModelConfig(), cache)
        config = GroundingConfig()
        grounder = Grounder(minilm, config)
        scorer = QuoteScorer(minilm, weights_of(config), sources=config.sources)
        rows = quote_rows(squad(args.per_domain, args.seed), grounder, scorer, reader)
        out["quote and decline (SQuAD-Shifts)"] = quote_figures(rows)
        print(json.dumps(out, indent=1), flush=True)
    if args.hindi:
        e5 = build_embedder(EmbeddingModelConfig(name=MULTILINGUAL_EMBEDDER), cache)
        out["rank (Hindi QA)"] = hindi(args.hindi, args.seed, reader, e5)
    print(json.dumps(out, indent=1), flush=True)


if __name__ == "__main__":
    main()
