"""Answer quality on the development kit (issues 12 and 22): the grounded quote, answerability, the
support check, side by side with the pipeline at another git ref (``--old-ref``), in the same run.

    nice -n 19 .venv/bin/python -m bench.answers [--answerable 300] [--unanswerable 100] [--quac 40]
        [--llm-answerable 12] [--llm-unanswerable 8] [--llm-quac 8] [--presets full] [--fit] [--rounds 3]

Data: the four SQuAD-Shifts domains written out with the answering passage of ``--unanswerable``
questions left out (kept only when no gold string appears anywhere else in that domain), indexed by the
product's indexer; answerable questions come from the passages that stay. QuAC follow-ups (half of them
``CANNOTANSWER``) use bench/quality.py's QuAC collection.

Part 1 (no LLM, every question): `kimas retrieve --batch`, then the product's ``Grounder`` over the
reranked hits and the collections' synopses, exactly as ``Pipeline.ask`` runs it: the quote contains a gold
string (quote alone), unanswerable declined, answerable falsely declined, and the grounding time.
``--fit`` also grid-searches the quote weights and fits the answerability model on these questions.

Part 2 (the chat model, a smaller sample): `kimas ask --batch --json --preset P`, old vs new: LLM answer
contains gold, combined (quote + LLM), declined / falsely declined, citation precision (the cited text
contains gold), the unsupported-sentence rate, time to the first grounded words and to the first token,
and the word F1 of the quote and of the LLM answer against the gold (QuAC's gold spans are long: whole
containment is rare, so F1 is its usual measure). Timings are paired per question; ``--rounds R`` runs the
two sides in R alternating rounds rather than one after the other, so a drift in the machine's speed
during the run (seen on shared VMs) does not fall on one side.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from bench.devkit import (
    contains_answer,
    kimas_batch,
    quac_items,
    rate,
    split,
    squad_items,
    token_f1,
)
from bench.grounding import Grounding1, fit_logistic, rescore
from bench.workspace import chat_config, old_tree, overrides, prepare_quac, prepare_squad
from kimas_desktop.answer.signals.answerability import AnswerabilityModel
from kimas_desktop.answer.signals.grounding import weights_of
from kimas_desktop.answer.signals.quote import QuoteWeights, pick_quotes
from kimas_desktop.config import GroundingConfig

ROOT = Path(__file__).resolve().parents[1]


def mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


# -- data ----------------------------------------------------------------------------------------------


# -- part 1: the quote and the decision, no LLM --------------------------------------------------------


def quote_hit_rate(
    runs: list[dict[str, Any]], golds: list[tuple[str, ...]], w: QuoteWeights, sentences: int, ratio: float
) -> float:
    ok = []
    for run, gold in zip(runs, golds, strict=True):
        quotes = pick_quotes(rescore(run["scored"], w), sentences=sentences, ratio=ratio)
        ok.append(contains_answer(" ".join(q.text for q in quotes), gold))
    return sum(ok) / max(len(ok), 1)


def grid(runs: list[dict[str, Any]], golds: list[tuple[str, ...]]) -> list[tuple[float, dict[str, float]]]:
    results = []
    for o, c, r, p, t in itertools.product(
        (0.5, 1.0, 2.0), (0.0, 0.5, 1.0, 2.0), (0.0, 0.25, 0.5, 1.0), (0.0, 0.1, 0.3), (0.0, 0.3, 0.6)
    ):
        w = QuoteWeights(o, c, r, p, t)
        results.append(
            (
                quote_hit_rate(runs, golds, w, 1, 1.0),
                {"overlap": o, "cosine": c, "rerank": r, "position": p, "type": t},
            )
        )
    results.sort(key=lambda x: x[0], reverse=True)
    return results[:5]


def part1(args: argparse.Namespace, cache: Path, config: GroundingConfig) -> dict[str, Any]:
    precision = args.embedding_precision
    data, answerable, unanswerable = prepare_squad(
        cache, args.answerable, args.unanswerable, precision, overrides(args.set)
    )
    qdata, turns = prepare_quac(cache, args.quac, precision)
    t = time.perf_counter()
    results = kimas_batch("retrieve", data, squad_items([*answerable, *unanswerable]))
    qresults = kimas_batch("retrieve", qdata, quac_items(turns, cache / "docs" / "quac"))
    retrieve_s = time.perf_counter() - t
    (cache / "retrieved.json").write_text(json.dumps({"squad": results, "quac": qresults}))
    g = Grounding1(data, config)
    runs_a = [g.run(q.text, results[q.qid]) for q in answerable]
    runs_u = [g.run(q.text, results[q.qid]) for q in unanswerable]
    gq = Grounding1(qdata, config)
    q_ans = [t for t in turns if not t.unanswerable]
    q_un = [t for t in turns if t.unanswerable]
    runs_qa = [gq.run(t.question, qresults[t.qid]) for t in q_ans]
    runs_qu = [gq.run(t.question, qresults[t.qid]) for t in q_un]
    golds = [q.answers for q in answerable]
    report: dict[str, Any] = {
        "squad_answerable": len(answerable),
        "squad_unanswerable": len(unanswerable),
        "quac_answerable": len(q_ans),
        "quac_cannotanswer": len(q_un),
        "retrieval_has_gold (top 3 hits)": rate(
            [
                any(contains_answer(h.chunk.text, q.answers) for h in r["hits"][:3])
                for q, r in zip(answerable, runs_a, strict=True)
            ]
        ),
        "quote_contains_gold": rate(
            [contains_answer(r["quote"], q.answers) for q, r in zip(answerable, runs_a, strict=True)]
        ),
        "quote_contains_gold_quac": rate(
            [contains_answer(r["quote"], t.answers) for t, r in zip(q_ans, runs_qa, strict=True)]
        ),
        "unanswerable_declined": rate([not r["answerable"] for r in runs_u]),
        "answerable_falsely_declined": rate([not r["answerable"] for r in runs_a]),
        "quac_cannotanswer_declined": rate([not r["answerable"] for r in runs_qu]),
        "quac_answerable_falsely_declined": rate([not r["answerable"] for r in runs_qa]),
        "grounding_ms_median": round(statistics.median(r["ms"] for r in runs_a + runs_u), 1),
        "retrieve_plus_grounding_ms_median": round(
            statistics.median(r["ms"] + r["retrieve_ms"] for r in runs_a + runs_u), 1
        ),
        "retrieve_seconds": round(retrieve_s, 1),
    }
    for sentences in (1, 2, 3):
        report[f"quote_contains_gold_{sentences}_sentences_max"] = round(
            quote_hit_rate(runs_a, golds, weights_of(config), sentences, config.second_ratio), 3
        )
    if args.fit:
        report["quote_weight_grid_top5 (1 sentence)"] = grid(runs_a, golds)
        x = np.array([r["features"] for r in runs_a + runs_u])
        y = np.array([1.0] * len(runs_a) + [0.0] * len(runs_u))
        w, b = fit_logistic(x, y)
        model = AnswerabilityModel(tuple(float(v) for v in w), float(b))
        sweep = {}
        for th in (0.3, 0.4, 0.5, 0.6, 0.7):
            m = replace(model, threshold=th)
            from kimas_desktop.types import Evidence

            dec = [m.decide(Evidence(*f)).answerable for f in x]
            sweep[th] = {
                "declined": round(
                    sum(1 for d, yy in zip(dec, y, strict=True) if not d and yy == 0)
                    / max((y == 0).sum(), 1),
                    3,
                ),
                "false_declines": round(
                    sum(1 for d, yy in zip(dec, y, strict=True) if not d and yy == 1)
                    / max((y == 1).sum(), 1),
                    3,
                ),
            }
        report["answerability_fit"] = {
            "coefficients": [round(float(v), 3) for v in w],
            "intercept": round(float(b), 3),
            "threshold_sweep": sweep,
        }
    return report


# -- part 2: through `kimas ask`, old vs new -----------------------------------------------------------


def cited_texts(result: dict[str, Any]) -> list[str]:
    """What each citation points at: the supporting sentence when the answer has one, else the snippet."""
    return [c.get("sentence") or c["snippet"] for c in result["citations"]]


def first_words_ms(result: dict[str, Any]) -> float | None:
    """When the first words of the answer appeared: the quote (new), else the model's first token."""
    stages = {s["stage"]: s for s in result.get("trace", {}).get("stages", [])}
    if "quote" in stages:
        return stages["quote"].get("at_ms")
    return result["timings_ms"].get("first_token")


def p90(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.9 * len(values)) - 1)]


def median_or_none(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def generation_speed(result: dict[str, Any]) -> float | None:
    """Streamed pieces (about one token each) after the first, over the time from the first token to the
    answer's end (the support check after it left out)."""
    stages = result.get("trace", {}).get("stages", [])
    answer = next((s for s in stages if s["stage"] == "answer"), None)
    t = result["timings_ms"]
    if answer is None or "first_token" not in t or answer.get("tokens", 0) < 2:
        return None
    seconds = (t["total"] - t["first_token"] - t.get("support", 0.0) - t.get("citations", 0.0)) / 1000
    return (answer["tokens"] - 1) / seconds if seconds > 0 else None


def ask_metrics(
    results: dict[str, dict[str, Any]], answerable: list[Any], unanswerable: list[Any]
) -> dict[str, Any]:
    def declined(r: dict[str, Any]) -> bool:
        return not r.get("answered_from_sources", True)

    def quote_text(r: dict[str, Any]) -> str:
        return (r.get("quote") or {}).get("text", "")

    errors = [r for r in results.values() if "error" in r]
    answerable = [q for q in answerable if "error" not in results[q.qid]]
    unanswerable = [q for q in unanswerable if "error" not in results[q.qid]]
    ans = [results[q.qid] for q in answerable]
    un = [results[q.qid] for q in unanswerable]
    support = [s for r in ans + un for s in r.get("support") or []]
    ttft = [r["timings_ms"]["first_token"] for r in ans + un if "first_token" in r["timings_ms"]]
    grounded = [x for x in (first_words_ms(r) for r in ans + un) if x is not None]
    cites = [
        contains_answer(text, q.answers)
        for q, r in zip(answerable, ans, strict=True)
        for text in cited_texts(r)
    ]
    return {
        "llm_answer_contains_gold": rate(
            [contains_answer(r["answer"], q.answers) for q, r in zip(answerable, ans, strict=True)]
        ),
        "quote_contains_gold": rate(
            [contains_answer(quote_text(r), q.answers) for q, r in zip(answerable, ans, strict=True)]
        ),
        "combined_contains_gold": rate(
            [
                contains_answer(quote_text(r) + " " + r["answer"], q.answers)
                for q, r in zip(answerable, ans, strict=True)
            ]
        ),
        "llm_answer_f1": mean(
            [token_f1(r["answer"], q.answers) for q, r in zip(answerable, ans, strict=True)]
        ),
        "quote_f1": mean([token_f1(quote_text(r), q.answers) for q, r in zip(answerable, ans, strict=True)]),
        "unanswerable_declined": rate([declined(r) for r in un]),
        "answerable_falsely_declined": rate([declined(r) for r in ans]),
        "citation_precision": rate(cites),
        "unsupported_sentence_rate": rate([not s["supported"] for s in support]) if support else None,
        "first_answer_words_ms_median": round(statistics.median(grounded), 0) if grounded else None,
        "first_token_ms_median": round(statistics.median(ttft), 0) if ttft else None,
        "first_token_ms_p90": round(p90(ttft), 0) if ttft else None,
        "first_answer_words_ms_p90": round(p90(grounded), 0) if grounded else None,
        "generation_tokens_per_s_median": median_or_none([g for g in map(generation_speed, ans + un) if g]),
        "total_ms_median": round(statistics.median(r["timings_ms"].get("total", 0.0) for r in ans + un), 0),
        "errors": [e["error"] for e in errors],
    }


def part2(args: argparse.Namespace, cache: Path) -> dict[str, Any]:
    precision = args.embedding_precision
    data, answerable, unanswerable = prepare_squad(
        cache, args.answerable, args.unanswerable, precision, overrides(args.set)
    )
    qdata, turns = prepare_quac(cache, args.quac, precision)
    a = split(answerable, args.split)[: args.llm_answerable]
    u = split(unanswerable, args.split)[: args.llm_unanswerable]
    qt = [t for t in turns if t.unanswerable][: args.llm_quac // 2] + [
        t for t in turns if not t.unanswerable
    ][: args.llm_quac // 2]
    old = old_tree(cache, args.old_ref)
    head = (
        args.new_key
        or subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )  # the "new" side's batches are kept per commit
    configs = {m: chat_config(cache, data, m) for m in args.chat_models}
    qconfigs = {m: chat_config(cache, qdata, m) for m in args.chat_models}
    report: dict[str, Any] = {
        "answerable": len(a),
        "unanswerable": len(u),
        "quac_turns": len(qt),
        "old": args.old_ref,
    }
    sides = {"old": old, "new": None}
    variants = [v for v in ("old", "new") if v in args.variants]
    batches: dict[tuple[str, str, str, str], dict[str, dict[str, Any]]] = {}
    for model, preset in itertools.product(args.chat_models, args.presets):
        outs: dict[str, dict[str, Any]] = {v: {} for v in variants}
        parts = (
            ("squad", data, configs[model], squad_items([*a, *u]), a, u),
            (
                "quac",
                qdata,
                qconfigs[model],
                quac_items(qt, cache / "docs" / "quac"),
                [t for t in qt if not t.unanswerable],
                [t for t in qt if t.unanswerable],
            ),
        )
        for name, dd, cfg, items, ans, un in parts[: 2 if qt else 1]:
            if not items:  # e.g. follow-ups only (--llm-answerable 0 --llm-unanswerable 0)
                continue
            refs = {v: args.old_ref if v == "old" else head for v in variants}
            saved = {
                v: cache / f"ask-{name}-{preset}-{model}-{v}-{refs[v]}-{len(items)}.json" for v in variants
            }
            kept = {v: json.loads(saved[v].read_text()) for v in variants if saved[v].exists()}
            todo = [v for v in variants if v not in kept]
            flags = ("--json", "--preset", preset, "--config", str(cfg))

            def batch(
                variant: str, chunk: list[dict[str, Any]], dd: Path = dd, flags: tuple[str, ...] = flags
            ) -> dict[str, dict[str, Any]]:
                return kimas_batch("ask", dd, chunk, *flags, root=sides[variant])

            # A finished batch is kept: a later failure does not cost it again. With both sides to run and
            # --rounds R, the questions are cut into R rounds and the sides take turns (old, new, then new,
            # old, ...), so a machine whose speed drifts during the run slows both sides alike.
            ran = run_in_rounds(todo, items, args.rounds, batch)
            for v, (results, seconds) in ran.items():
                saved[v].write_text(json.dumps([results, seconds]))
            for v in variants:
                results, seconds = kept.get(v) or ran[v]
                outs[v][name] = {**ask_metrics(results, ans, un), "seconds": seconds}
                batches[(preset, model, name, v)] = results
                print(preset, model, v, name, outs[v][name], file=sys.stderr, flush=True)
        for v in variants:
            report[f"{preset}/{model}/{v}"] = outs[v]
    for (preset, model, name, variant), new in batches.items():
        old_results = batches.get((preset, model, name, "old"))
        if variant == "new" and old_results is not None:
            report[f"{preset}/{model}/first_token_paired/{name}"] = paired_first_token(old_results, new)
            report[f"{preset}/{model}/first_words_paired/{name}"] = paired_first_token(
                old_results, new, first_words_ms
            )
    return report


def run_in_rounds(
    variants: list[str],
    items: list[dict[str, Any]],
    rounds: int,
    batch: Callable[[str, list[dict[str, Any]]], dict[str, dict[str, Any]]],
) -> dict[str, tuple[dict[str, dict[str, Any]], float]]:
    """Each variant's results on ``items`` and its seconds: the items cut into ``rounds`` consecutive
    slices, every variant run on each slice, the order of the variants reversed every other round."""
    rounds = max(1, min(rounds, len(items))) if len(variants) > 1 else 1
    size = math.ceil(len(items) / rounds)
    out: dict[str, tuple[dict[str, dict[str, Any]], float]] = {v: ({}, 0.0) for v in variants}
    for r in range(rounds):
        chunk = items[r * size : (r + 1) * size]
        for v in variants if r % 2 == 0 else variants[::-1]:
            t = time.perf_counter()
            results = batch(v, chunk)
            done, seconds = out[v]
            out[v] = ({**done, **results}, round(seconds + time.perf_counter() - t, 1))
    return out


def _first_token(result: dict[str, Any]) -> float | None:
    value: float | None = result["timings_ms"].get("first_token")
    return value


def paired_first_token(
    old: dict[str, dict[str, Any]],
    new: dict[str, dict[str, Any]],
    when: Callable[[dict[str, Any]], float | None] = _first_token,
) -> dict[str, Any]:
    """The LLM's first token (or ``when``: another moment) on the questions where both sides have it (a
    declined question has no first token, so the two sides' own medians cover different questions)."""
    both = [q for q in new if q in old and when(new[q]) is not None and when(old[q]) is not None]
    if not both:
        return {"questions": 0}
    o = [float(when(old[q]) or 0.0) for q in both]
    n = [float(when(new[q]) or 0.0) for q in both]
    return {
        "questions": len(both),
        "old_median_ms": round(statistics.median(o)),
        "new_median_ms": round(statistics.median(n)),
        "old_p90_ms": round(p90(o)),
        "new_p90_ms": round(p90(n)),
        "median_ratio": round(statistics.median(b / a for a, b in zip(o, n, strict=True) if a), 3),
        "median_difference_ms": round(statistics.median(b - a for a, b in zip(o, n, strict=True))),
        "new_earlier": sum(b < a for a, b in zip(o, n, strict=True)),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--answerable", type=int, default=300)
    p.add_argument("--unanswerable", type=int, default=100)
    p.add_argument("--quac", type=int, default=40, help="QuAC follow-up turns, half of them CANNOTANSWER")
    p.add_argument("--llm-answerable", type=int, default=12)
    p.add_argument("--llm-unanswerable", type=int, default=8)
    p.add_argument("--llm-quac", type=int, default=8)
    p.add_argument("--presets", nargs="+", default=["full"], choices=["full", "routed", "turbo"])
    p.add_argument("--parts", nargs="+", default=["quote", "ask"], choices=["quote", "ask"])
    p.add_argument("--variants", nargs="+", default=["old", "new"], choices=["old", "new"])
    p.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="run the two sides in this many alternating rounds (old, new, new, old, ...), not one after the other",
    )
    p.add_argument("--chat-models", nargs="+", default=["embedded"], choices=["embedded", "bigger"])
    p.add_argument(
        "--old-ref", default="2e1d8c8", help="git ref of the 'old' side (default: the core before issue 22)"
    )
    p.add_argument(
        "--split",
        choices=["all", "tune", "holdout"],
        default="all",
        help="part 2's questions: all, or the half the answer policy was (tune) or was not (holdout) chosen on",
    )
    p.add_argument(
        "--new-key", default="", help="the label of the new side's kept batches (default: HEAD's short hash)"
    )
    p.add_argument(
        "--embedding-precision",
        choices=["", "fp32", "int8"],
        default="",
        help="the embedded embedder's precision for both sides (the kept index was built with fp32)",
    )
    p.add_argument("--fit", action="store_true", help="grid-search quote weights, fit answerability")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="SECTION.KEY=VALUE",
        help="a config override of the SQuAD data dir (both parts), e.g. rerank.second_opinion=0.25",
    )
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "answers"))
    args = p.parse_args()
    cache = Path(args.cache)
    report: dict[str, Any] = {}
    if "quote" in args.parts:
        report["quote"] = part1(args, cache, GroundingConfig())
        print("quote", json.dumps(report["quote"]), file=sys.stderr, flush=True)
    if "ask" in args.parts:
        report["ask"] = part2(args, cache)
    print(json.dumps(report, indent=2, default=str))


if __name__ == "__main__":
    main()
