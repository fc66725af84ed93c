"""The meaning signal (issue 58): the grounded quote and the answer decision with sentence similarities
from multilingual-e5-small beside the index's own embedder, on the answers benchmark's Part 1 questions.

    nice .venv/bin/python -m bench.answers --parts quote --answerable 300 --unanswerable 100 --quac 0 \
        --presets full --embedding-precision fp32          # first: the index and retrieved.json
    nice .venv/bin/python -m bench.meaning [--sources 3 5] [--meaning index multilingual] [--reorder 0 0.25]

Retrieval is Part 1's (`kimas retrieve --batch` on the SQuAD-Shifts index, saved in retrieved.json), so
every variant quotes from the same hits; only the sentence scorer's embedder, the number of hits it reads
and (``--reorder``) e5's share in the order of the eight reranked hits change. For each variant, on
the tune half (even positions) and the held-out half (odd ones):
- the quote holds a gold string (answerable questions), with the shipped weights and with the weights
  that do best on tune (a grid);
- the decision: a logistic model fitted on the tune half's features (the product's four, then with the
  best sentence similarity of all candidates), its threshold the highest with false declines <= 0.05 on
  tune; read on held out.
Held out is only read, never fitted on.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.devkit import contains_answer, split
from bench.grounding import fit_logistic, hits_of, rescore
from bench.workspace import prepare_squad
from kimas_desktop.answer.signals.answerability import evidence_features
from kimas_desktop.answer.signals.grounding import weights_of
from kimas_desktop.answer.signals.quote import QuoteScorer, QuoteWeights, pick_quotes
from kimas_desktop.config import Config, EmbeddingModelConfig, GroundingConfig
from kimas_desktop.protocols import Embedder
from kimas_desktop.text.terms import TermWeights
from kimas_desktop.types import Hit

ROOT = Path(__file__).resolve().parents[1]
_FALSE_DECLINES = 0.05


def meaning_embedder(which: str, index: Embedder, cache: Path) -> Embedder:
    """The sentence scorer's embedder: the index's, or the embedded multilingual-e5-small."""
    if which == "index":
        return index
    from local_models import build_embedder
    from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER

    return build_embedder(EmbeddingModelConfig(name=MULTILINGUAL_EMBEDDER), cache)


def reorder(hits: list[Hit], question: str, second: Embedder | None, mix: float) -> list[Hit]:
    """The reranked hits in the order of ``(1 - mix)`` × their score over the best one's plus ``mix`` ×
    their similarity by ``second`` over the best one's (the scores themselves unchanged)."""
    if second is None or not mix or not hits:
        return hits
    cos = second.embed_passages([h.chunk.text for h in hits]) @ second.embed_query([question])[0]
    s = np.array([h.score for h in hits])
    mixed = (1 - mix) * s / max(float(s.max()), 1e-9) + mix * cos / max(float(cos.max()), 1e-9)
    return [hits[i] for i in np.argsort(-mixed, kind="stable")]


def ground_all(
    scorer: QuoteScorer,
    runtime: Any,
    questions: list[Any],
    results: dict[str, Any],
    second: tuple[Embedder | None, float] = (None, 0.0),
) -> list[dict[str, Any]]:
    """Each question's scored sentences (as the product's ``Grounder`` scores them), kept for rescoring;
    ``second``: an embedder and its share in the hits' order (``reorder``)."""
    out = []
    store = runtime.store()
    for q in questions:
        result = results[q.qid]
        hits = reorder(hits_of(result), q.text, *second)
        synopses = [store.synopsis(r["collection"]) for r in result["routes"]]
        idf = TermWeights.from_synopses(synopses) or TermWeights.from_texts([h.chunk.text for h in hits])
        t = time.perf_counter()
        scored = scorer.score(q.text, hits, idf, query=result["query"])
        ms = (time.perf_counter() - t) * 1000
        words = scorer.question_words(q.text, result["query"])
        out.append({"scored": scored, "hits": hits, "idf": idf, "words": words, "ms": ms})
    return out


def gold_in_quote(
    runs: list[dict[str, Any]], questions: list[Any], w: QuoteWeights, g: GroundingConfig
) -> float:
    found = 0
    for run, q in zip(runs, questions, strict=True):
        quotes = pick_quotes(rescore(run["scored"], w), sentences=g.quote_sentences, ratio=g.second_ratio)
        found += contains_answer(" ".join(x.text for x in quotes), q.answers)
    return round(found / len(runs), 3)


def features(run: dict[str, Any], w: QuoteWeights, g: GroundingConfig) -> tuple[float, ...]:
    """The decision's four features as the product computes them, then the best sentence similarity of
    all candidates (the semantic signal on its own)."""
    scored = rescore(run["scored"], w)
    ev = evidence_features(scored, run["hits"], run["words"], run["idf"], sources=g.sources)
    return (*ev.vector(), max((s.cosine for s in scored), default=0.0))


def decide_rates(
    tune: tuple[np.ndarray, np.ndarray], held: tuple[np.ndarray, np.ndarray], columns: list[int]
) -> dict[str, Any]:
    """A logistic model on ``columns`` of the features fitted on tune, its threshold the highest with
    false declines <= 5% on tune; declines read on both halves."""
    ta, tu = tune[0][:, columns], tune[1][:, columns]
    x = np.vstack([ta, tu])
    y = np.array([1.0] * len(ta) + [0.0] * len(tu))
    w, b = fit_logistic(x, y)

    def prob(m: np.ndarray) -> np.ndarray:
        return np.asarray(1 / (1 + np.exp(-(m @ w + b))))

    ranked = np.sort(prob(ta))
    threshold = float(ranked[int(np.floor(_FALSE_DECLINES * len(ranked)))])
    out: dict[str, Any] = {"coefficients": [round(float(v), 3) for v in w], "intercept": round(float(b), 3)}
    out["threshold"] = round(threshold, 4)
    for name, (a, u) in (("tune", (ta, tu)), ("holdout", (held[0][:, columns], held[1][:, columns]))):
        out[name] = {
            "false_declines": round(float((prob(a) < threshold).mean()), 3),
            "unanswerable_declined": round(float((prob(u) < threshold).mean()), 3),
        }
    return out


GRID = list(itertools.product((0.5, 1.0, 2.0), (0.0, 0.5, 1.0, 2.0, 4.0), (0.0, 0.25, 0.5), (0.0, 0.3, 0.6)))


def variant(
    scorer: QuoteScorer,
    g: GroundingConfig,
    runtime: Any,
    answerable: list[Any],
    unanswerable: list[Any],
    results: dict[str, Any],
    second: tuple[Embedder | None, float] = (None, 0.0),
) -> dict[str, Any]:
    halves = {
        half: (
            ground_all(scorer, runtime, split(answerable, half), results, second),
            ground_all(scorer, runtime, split(unanswerable, half), results, second),
        )
        for half in ("tune", "holdout")
    }
    shipped = weights_of(g)
    tune_q, held_q = split(answerable, "tune"), split(answerable, "holdout")
    graded = [
        (gold_in_quote(halves["tune"][0], tune_q, QuoteWeights(o, c, r, 0.0, t), g), (o, c, r, t))
        for o, c, r, t in GRID
    ]
    graded.sort(key=lambda x: x[0], reverse=True)
    o, c, r, t = graded[0][1]
    best = QuoteWeights(o, c, r, 0.0, t)
    report: dict[str, Any] = {
        "shipped weights": {
            "tune": gold_in_quote(halves["tune"][0], tune_q, shipped, g),
            "holdout": gold_in_quote(halves["holdout"][0], held_q, shipped, g),
        },
        "tune-best weights": {
            "overlap, cosine, rerank, type": [o, c, r, t],
            "tune": graded[0][0],
            "holdout": gold_in_quote(halves["holdout"][0], held_q, best, g),
        },
        "sentence scoring ms median": round(
            statistics.median(x["ms"] for ans, un in halves.values() for x in ans + un), 1
        ),
    }
    feats = {
        half: (np.array([features(x, best, g) for x in ans]), np.array([features(x, best, g) for x in un]))
        for half, (ans, un) in halves.items()
    }
    for name, columns in (
        ("four features", [0, 1, 2, 3]),
        ("four + best similarity", [0, 1, 2, 3, 4]),
        ("overlaps + best similarity", [0, 1, 4]),
    ):
        report[f"decision: {name}"] = decide_rates(feats["tune"], feats["holdout"], columns)
    return report


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--answerable", type=int, default=300)
    p.add_argument("--unanswerable", type=int, default=100)
    p.add_argument("--sources", type=int, nargs="+", default=[3, 5])
    p.add_argument(
        "--meaning", nargs="+", default=["index", "multilingual"], choices=["index", "multilingual"]
    )
    p.add_argument("--reorder", type=float, nargs="+", default=[0.0], help="e5's share in the hits' order")
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "answers"))
    args = p.parse_args()
    cache = Path(args.cache)
    from app.paths import read_config, resolve_paths
    from app.runtime import Runtime

    data, answerable, unanswerable = prepare_squad(cache, args.answerable, args.unanswerable, "fp32")
    results = json.loads((cache / "retrieved.json").read_text())["squad"]
    paths = resolve_paths(str(data), None)
    runtime = Runtime(paths, read_config(paths))
    config: Config = runtime.config
    index = runtime.embedder(config)
    out: dict[str, Any] = {}
    e5 = meaning_embedder("multilingual", index, paths.models_cache)
    for which, sources, mix in itertools.product(args.meaning, args.sources, args.reorder):
        embedder = e5 if which == "multilingual" else index
        g = config.grounding.model_copy(update={"sources": sources})
        scorer = QuoteScorer(embedder, weights_of(g), sources=sources)
        name = f"{which}, sources {sources}, e5 share in the hits' order {mix}"
        out[name] = variant(scorer, g, runtime, answerable, unanswerable, results, (e5, mix))
        print(name, json.dumps(out[name]), flush=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
