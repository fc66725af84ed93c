"""Does the self-test predict real quality? (issue 26)

    nice .venv/bin/python -m bench.eval_predicts [--per-domain 100] [--size 200] [--parts predict timing]

- **predict**: the four SQuAD-Shifts domains as four collections, indexed by the product's indexer at the
  default chunk size and at half of it. Six configurations (hybrid; dense only; full text only; hybrid with
  routing off; hybrid, routing to one collection; hybrid at the smaller chunk size) run twice: over the
  LLM-free test set that ``kimas eval`` makes from the collections (its recall@5 of the expected passage),
  and over the dev kit's real questions (recall@5: a top-5 chunk of the gold article holds a gold answer).
  Reported: both recall@5 per configuration and Kendall's tau between the two orderings.
- **timing**: making a 200-question test set for one domain's collection (about 2,000 chunks), and a run
  over it with the ``turbo`` preset (retrieval for all, answers for 40), on the embedded models.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.evaluation.evaluation import Evaluation
from app.evaluation.run import EvalRun, run_evaluation
from app.paths import resolve_paths
from app.runtime import Runtime
from bench.devkit import SQUAD, contains_answer, squad_questions, write_squad
from bench.workspace import configure, index_folders
from kimas_desktop.config import Config, load_config

ROOT = Path(__file__).resolve().parents[1]

K = 5


def kendall_tau(xs: list[float], ys: list[float]) -> float:
    """Kendall's tau-b (ties in either list count for neither side)."""
    concordant = discordant = tx = ty = 0
    for (a, b), (c, d) in itertools.combinations(zip(xs, ys, strict=True), 2):
        dx, dy = a - c, b - d
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            tx += 1
        elif dy == 0:
            ty += 1
        elif dx * dy > 0:
            concordant += 1
        else:
            discordant += 1
    n = concordant + discordant
    denom = ((n + tx) * (n + ty)) ** 0.5
    return round((concordant - discordant) / denom, 3) if denom else 0.0


def _variant(config: Config, **changes: dict[str, Any]) -> Config:
    sections = {name: {**getattr(config, name).model_dump(), **fields} for name, fields in changes.items()}
    return config.updated(**sections)


CONFIGS: dict[str, tuple[str, dict[str, dict[str, Any]]]] = {
    "hybrid": ("default", {}),
    "dense only": ("default", {"retrieval": {"mode": "dense"}}),
    "full text only": ("default", {"retrieval": {"mode": "fts"}}),
    "routing off": ("default", {"routing": {"enabled": False}}),
    "one collection": ("default", {"routing": {"top_k": 1}}),
    "chunks of 60 tokens": ("small", {}),
}


def _real_recall(runtime: Runtime, config: Config, questions: list[Any]) -> float:
    pipeline = runtime.pipeline(config)
    hit = 0
    for q in questions:
        r = pipeline.retrieve(q.text)
        hit += any(
            Path(h.chunk.source).name == q.gold_file and contains_answer(h.chunk.text, q.answers)
            for h in r.hits[:K]
        )
    return round(hit / len(questions), 3)


def predict(args: argparse.Namespace, cache: Path) -> dict[str, Any]:
    folders = {name: cache / "docs" / name for name in SQUAD}
    questions: list[Any] = []
    for name in SQUAD:
        questions += squad_questions(name, write_squad(name, folders[name]), args.per_domain, seed=26)
    runtimes: dict[str, Runtime] = {}
    for key, tokens in (("default", 120), ("small", 60)):
        runtime = configure(
            cache / key,
            folders,
            indexer={"chunk_tokens": tokens, "overlap_tokens": tokens // 6, "max_file_chunks": 50_000},
        )
        index_folders(runtime, folders)
        runtimes[key] = runtime
    base = runtimes["default"]
    paths = resolve_paths(str(cache / "default"), None)
    evaluation = Evaluation(base, lambda: load_config(paths.config_file), paths.config_file)
    test_set = evaluation.latest_set() or evaluation.build_set(args.size)
    rows: dict[str, dict[str, float | None]] = {}
    for name, (index, changes) in CONFIGS.items():
        runtime = runtimes[index]
        config = _variant(runtime.config, **changes)
        run = EvalRun(name, test_set.set_id, name, {}, time.time())
        run_evaluation(runtime.pipeline(config), test_set, run, answers=0)
        rows[name] = {
            "generated": run.metrics["all"][f"recall@{K}"],
            "real": _real_recall(runtime, config, questions),
        }
        print(name, rows[name], file=sys.stderr, flush=True)
    for runtime in runtimes.values():
        runtime.close()
    gen = [float(r["generated"] or 0) for r in rows.values()]
    real = [float(r["real"] or 0) for r in rows.values()]
    return {
        "test_set": {
            "questions": test_set.answerable,
            "controls": len(test_set.questions) - test_set.answerable,
        },
        "real_questions": len(questions),
        "recall@5": rows,
        "kendall_tau": kendall_tau(gen, real),
    }


def timing(args: argparse.Namespace, cache: Path) -> dict[str, Any]:
    name = SQUAD[0]
    folders = {"wiki": cache / "docs" / name}
    write_squad(name, folders["wiki"])
    runtime = configure(cache / "one", folders)
    index_folders(runtime, folders)
    paths = resolve_paths(str(cache / "one"), None)
    evaluation = Evaluation(runtime, lambda: load_config(paths.config_file), paths.config_file)
    chunks = runtime.store().count_chunks("wiki")
    t = time.perf_counter()
    test_set = evaluation.build_set(args.size)
    build_s = time.perf_counter() - t
    runtime.pipeline(evaluation.config_for("turbo")).retrieve("warm up")  # loads the models first
    t = time.perf_counter()
    run = evaluation.run(test_set.set_id, "turbo", answers=40)
    run_s = time.perf_counter() - t
    runtime.close()
    return {
        "chunks": chunks,
        "questions": len(test_set.questions),
        "build_s": round(build_s, 1),
        "turbo_run_s": round(run_s, 1),
        "run": run.metrics["all"],
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--per-domain", type=int, default=100, help="real dev-kit questions per domain")
    p.add_argument("--size", type=int, default=200, help="questions in the generated test set")
    p.add_argument("--parts", nargs="+", choices=["predict", "timing"], default=["predict", "timing"])
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "eval"))
    args = p.parse_args()
    cache = Path(args.cache)
    parts: dict[str, Callable[[argparse.Namespace, Path], dict[str, Any]]] = {
        "predict": predict,
        "timing": timing,
    }
    report = {}
    for part in args.parts:
        report[part] = parts[part](args, cache)
        print(part, json.dumps(report[part]), file=sys.stderr, flush=True)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
