"""Routing an online source by its description (issue 24): which threshold keeps a source's own questions
and leaves the others local?

    nice .venv/bin/python -m bench.source_routing [--domain squadshifts_new_wiki]

Each SQuAD-Shifts article plays an online source described by its title (what a user would write: "Armenian
Apostolic Church"); its own questions should reach it, the other articles' questions should not. The match
is the product's (``SourceMatcher``: the question's best cosine to the description, the embedded
embedding model). ``min_match`` is chosen on the tuning half of the articles (even positions: the
highest threshold that still asks the source for ≥ 95 % of its own questions) and reported on the held-out
half (odd positions).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

from bench.devkit import DEVKIT, article_of, read_jsonl
from kimas_desktop.config import EmbeddingModelConfig
from local_models import build_embedder

ROOT = Path(__file__).resolve().parents[1]


def rates(sims: np.ndarray, own: np.ndarray, t: float) -> tuple[float, float]:
    asked = sims >= t
    return float(asked[own].mean()), float(asked[~own].mean())


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--domain", default="squadshifts_new_wiki")
    p.add_argument("--recall", type=float, default=0.95)
    args = p.parse_args()
    folder = DEVKIT / args.domain
    titles = {article_of(r["_id"]): r["title"] for r in read_jsonl(folder / "corpus.jsonl")}
    gold = {}
    for line in (folder / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        qid, pid, _ = line.split("\t")
        gold[qid] = article_of(pid)
    questions = defaultdict(list)
    for r in read_jsonl(folder / "queries.jsonl"):
        if r["_id"] in gold:
            questions[gold[r["_id"]]].append(r["text"])
    articles = sorted(a for a in questions if titles.get(a))
    emb = build_embedder(EmbeddingModelConfig(), ROOT / "bench" / ".cache" / "models")
    desc = emb.embed_passages([titles[a] for a in articles])
    texts = [(a, q) for a in articles for q in questions[a][:20]]
    qv = emb.embed_query([q for _, q in texts])
    sims = qv @ desc.T  # [question, source]
    owner = np.array([articles.index(a) for a, _ in texts])
    report = {"domain": args.domain, "sources": len(articles), "questions": len(texts)}
    halves = {"tune": list(range(0, len(articles), 2)), "holdout": list(range(1, len(articles), 2))}
    chosen = 0.0
    for part, cols in halves.items():
        s = sims[:, cols]
        own = owner[:, None] == np.array(cols)[None, :]
        if part == "tune":
            for t in np.arange(0.0, 0.8, 0.01):
                if rates(s, own, float(t))[0] >= args.recall:
                    chosen = round(float(t), 2)
        table = {
            f"{t:.2f}": dict(
                zip(("own asked", "others asked"), map(lambda x: round(x, 3), rates(s, own, t)), strict=True)
            )
            for t in sorted({0.1, 0.15, 0.2, 0.25, 0.3, chosen})
        }
        report[part] = table
    report["min_match chosen on tune"] = chosen
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
