"""Latency of each preset against plain single-pass RAG, measured side by side in one run.

    .venv/bin/python -m bench.query [--questions 6] [--cache bench/.cache/quality]

Plain RAG = embed the question, one dense search over every collection, pack the best chunks into the
same context budget, stream the answer with the same model, prompt layout and answer length. Every run
starts with a cold prompt cache, so no variant profits from another's prompts. Reports time to first
answer token (TTFT) and total time per variant (medians), the per-stage breakdown, and each preset's TTFT
ratio to plain RAG. Uses the SQuAD-Shifts collections that bench/quality.py indexes (indexes them if needed).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from app.paths import resolve_paths
from app.runtime import Runtime
from app.settings.config_store import save_config
from bench.devkit import SQUAD, squad_questions, write_squad
from kimas_desktop.answer.filter import pack
from kimas_desktop.answer.writing.summarizer import answer_messages
from kimas_desktop.config import CollectionConfig, load_config, parse_config
from kimas_desktop.events import AnswerDelta, TraceReady

ROOT = Path(__file__).resolve().parents[1]

PRESETS = ("full", "routed", "turbo")


def cold(chat: Any) -> None:
    """Forget every cached prompt so the next call pays for its whole prompt."""
    clear = getattr(chat, "clear_cache", None)
    if clear is None:
        raise SystemExit("the chat model has no clear_cache(); cannot measure fairly")
    clear()


def plain(rt: Runtime, question: str) -> dict[str, float]:
    start = time.perf_counter()
    store, chat = rt.store(), rt.chat(rt.config)
    names = [c.name for c in store.collections()]
    vec = rt.embedder(rt.config).embed_query([question])[0]
    hits = [h for n in names for h in store.search(n, text=question, vector=vec, k=12, mode="dense")]
    hits.sort(key=lambda h: h.score, reverse=True)
    cfg = rt.config.summarizer
    packed, _ = pack(hits, cfg.context_tokens, chat.count_tokens)
    retrieved = time.perf_counter()
    ttft = 0.0
    for _ in chat.stream(answer_messages(question, packed, []), max_tokens=cfg.max_answer_tokens):
        ttft = ttft or time.perf_counter() - start
    total = time.perf_counter() - start
    return {"ttft": ttft, "total": total, "retrieve": retrieved - start}


def preset_run(pipeline: Any, question: str) -> dict[str, Any]:
    start = time.perf_counter()
    ttft = 0.0
    trace = None
    for event in pipeline.ask(question):
        if isinstance(event, AnswerDelta):
            ttft = ttft or time.perf_counter() - start
        elif isinstance(event, TraceReady):
            trace = event.trace
    return {"ttft": ttft, "total": time.perf_counter() - start, "stages": trace.timings_ms if trace else {}}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--questions", type=int, default=6)
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "quality"))
    args = p.parse_args()
    cache = Path(args.cache)
    folders = {n: cache / "docs" / n for n in SQUAD}
    questions = []
    for n in SQUAD:
        questions += squad_questions(n, write_squad(n, folders[n]), 100, seed=11)
    questions = questions[:: max(1, len(questions) // args.questions)][: args.questions]
    paths = resolve_paths(str(cache / "squad"), None)
    base = load_config(paths.config_file).updated(
        collections={n: CollectionConfig(folders=[str(f)]).model_dump() for n, f in folders.items()}
    )
    save_config(base, paths.config_file)
    rt = Runtime(paths, base)
    for n, f in folders.items():
        rt.indexer().index(n, [f])
    rt.warm_up()
    # The presets share the models (same sections); the runtime rebuilds only the (cheap) pipeline.
    configs = {
        preset: parse_config({**base.model_dump(), "preset": preset, **_preset_sections(preset)})
        for preset in PRESETS
    }
    rows: dict[str, list[dict[str, Any]]] = {"plain": [], **{p: [] for p in PRESETS}}
    for i, q in enumerate(questions):
        order = ["plain", *PRESETS] if i % 2 == 0 else [*reversed(PRESETS), "plain"]
        for variant in order:
            cold(rt.chat(base))
            rows[variant].append(
                plain(rt, q.text) if variant == "plain" else preset_run(rt.pipeline(configs[variant]), q.text)
            )
            print(f"  q{i} {variant}: ttft {rows[variant][-1]['ttft']:.2f}s", file=sys.stderr)
    base_ttft = statistics.median(r["ttft"] for r in rows["plain"])
    report: dict[str, Any] = {"questions": len(questions)}
    for variant, rs in rows.items():
        ttft = statistics.median(r["ttft"] for r in rs)
        entry: dict[str, Any] = {
            "ttft_s": round(ttft, 2),
            "total_s": round(statistics.median(r["total"] for r in rs), 2),
            "ttft_ratio_to_plain": round(ttft / base_ttft, 3),
        }
        stages = sorted({k for r in rs for k in r.get("stages", {})})
        if stages:
            entry["stage_ms_median"] = {
                k: statistics.median(r["stages"].get(k, 0.0) for r in rs) for k in stages
            }
        report[variant] = entry
    rt.close()
    print(json.dumps(report, indent=2))


def _preset_sections(preset: str) -> dict[str, Any]:
    """The preset's own sections win over the base file's (which was written for `full`)."""
    from kimas_desktop.config import preset_data

    return preset_data(preset)


if __name__ == "__main__":
    main()
