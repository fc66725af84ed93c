"""The embedded embedder in fp32 and int8, side by side in one run: ingest speed, query latency, retrieval.

    nice -n 5 .venv/bin/python -m bench.embed_precision [--per-domain 100] [--domains 4] [--bare 2048] [--passages N]

Both variants of the embedded all-MiniLM-L6-v2 (``embedding.precision``) are loaded in this process, each
with its own data dir, and measured turn about so that a busy machine slows both alike:

- ingest: each SQuAD-Shifts domain of the development kit is indexed by the product's indexer with one
  variant, then the other (the order alternates per domain): chunks/s in wall time and per CPU second
  of this process (CPU time moves less than wall time when other jobs share the machine);
- bare embedding: the same chunk texts in windows of 256 (as the indexer sends them), alternating;
- query embedding: each question embedded alone by one variant and then the other (alternating);
- retrieval: ``--per-domain`` questions per domain through ``Pipeline.retrieve`` (the product's full path,
  routing.top_k = 2 as in bench/quality.py) and a dense-only search over all domains: recall@5 and MRR@10,
  a hit being a chunk of the gold passage's file that contains a gold answer (bench/quality.py's measure).

Prints one JSON report; medians of paired ratios (int8 over fp32) where pairs exist.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from app.paths import resolve_paths
from app.runtime import Runtime
from bench.devkit import DEVKIT, SQUAD, Question, contains_answer, squad_questions, write_squad
from bench.machine import cpu_model
from kimas_desktop.config import CollectionConfig, load_config

ROOT = Path(__file__).resolve().parents[1]

PRECISIONS = ("fp32", "int8")
WINDOW = 256
K = 5


def _cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _runtime(data: Path, folders: dict[str, Path], precision: str, cache: Path) -> Runtime:
    paths = resolve_paths(str(data), None)
    config = load_config(paths.config_file).updated(
        collections={n: CollectionConfig(folders=[str(f)]).model_dump() for n, f in folders.items()},
        embedding={"precision": precision},
        routing={"top_k": 2},
    )
    runtime = Runtime(paths, config)
    return runtime


def _rank(hits: Sequence[tuple[str, str]], q: Question) -> int | None:
    for i, (source, text) in enumerate(hits[:10], 1):
        if Path(source).name == q.gold_file and contains_answer(text, q.answers):
            return i
    return None


def _scores(ranks: Sequence[int | None]) -> dict[str, float]:
    n = len(ranks) or 1
    return {
        "recall@5": round(sum(1 for r in ranks if r is not None and r <= K) / n, 4),
        "mrr@10": round(sum(1 / r for r in ranks if r is not None) / n, 4),
    }


def _paired(a: list[float], b: list[float]) -> float:
    return round(statistics.median(x / y for x, y in zip(a, b, strict=True) if y), 3)


def _timed(call: Callable[[], object]) -> tuple[float, float]:
    cpu, wall = _cpu_s(), time.perf_counter()
    call()
    return time.perf_counter() - wall, _cpu_s() - cpu


def ingest(runtimes: dict[str, Runtime], folders: dict[str, Path]) -> dict[str, Any]:
    rows: dict[str, list[dict[str, float]]] = {p: [] for p in PRECISIONS}
    for turn, name in enumerate(folders):
        order = PRECISIONS if turn % 2 == 0 else PRECISIONS[::-1]
        for precision in order:
            out: dict[str, Any] = {}

            def run(p: str = precision, o: dict[str, Any] = out, n: str = name) -> None:
                o["report"] = runtimes[p].indexer().index(n, [folders[n]])

            wall, cpu = _timed(run)
            chunks = out["report"].chunks_added
            rows[precision].append({"chunks": chunks, "wall_s": wall, "cpu_s": cpu})
            print(f"  {precision} {name}: {chunks} chunks in {wall:.1f} s ({cpu:.1f} CPU s)", file=sys.stderr)
    result: dict[str, Any] = {}
    for p in PRECISIONS:
        result[p] = {
            "chunks": sum(r["chunks"] for r in rows[p]),
            "chunks_per_s": [round(r["chunks"] / r["wall_s"], 1) for r in rows[p]],
            "chunks_per_cpu_s": [round(r["chunks"] / r["cpu_s"], 1) for r in rows[p]],
        }
    result["ratio_wall_median"] = _paired(
        [r["wall_s"] for r in rows["fp32"]], [r["wall_s"] for r in rows["int8"]]
    )
    result["ratio_cpu_median"] = _paired(
        [r["cpu_s"] for r in rows["fp32"]], [r["cpu_s"] for r in rows["int8"]]
    )
    return result


def bare(runtimes: dict[str, Runtime], texts: list[str]) -> dict[str, Any]:
    walls: dict[str, list[float]] = {p: [] for p in PRECISIONS}
    cpus: dict[str, list[float]] = {p: [] for p in PRECISIONS}
    embedders = {p: runtimes[p].embedder(runtimes[p].config) for p in PRECISIONS}
    for turn, start in enumerate(range(0, len(texts), WINDOW)):
        window = texts[start : start + WINDOW]
        for p in PRECISIONS if turn % 2 == 0 else PRECISIONS[::-1]:
            wall, cpu = _timed(lambda e=embedders[p], w=window: e.embed_passages(w))
            walls[p].append(wall / len(window))
            cpus[p].append(cpu / len(window))
    return {
        "texts": len(texts),
        "windows": len(walls["fp32"]),
        **{f"{p}_chunks_per_s_median": round(1 / statistics.median(walls[p]), 1) for p in PRECISIONS},
        **{f"{p}_chunks_per_cpu_s_median": round(1 / statistics.median(cpus[p]), 1) for p in PRECISIONS},
        "ratio_wall_median": _paired(walls["fp32"], walls["int8"]),
        "ratio_cpu_median": _paired(cpus["fp32"], cpus["int8"]),
    }


def retrieval(
    runtimes: dict[str, Runtime], domains: Sequence[str], questions: list[Question]
) -> dict[str, Any]:
    latency: dict[str, list[float]] = {p: [] for p in PRECISIONS}
    full: dict[str, list[int | None]] = {p: [] for p in PRECISIONS}
    dense: dict[str, list[int | None]] = {p: [] for p in PRECISIONS}
    for turn, q in enumerate(questions):
        for p in PRECISIONS if turn % 2 == 0 else PRECISIONS[::-1]:
            runtime = runtimes[p]
            embedder = runtime.embedder(runtime.config)
            t = time.perf_counter()
            vector = embedder.embed_query([q.text])[0]
            latency[p].append(time.perf_counter() - t)
            hits = [
                h
                for n in domains
                for h in runtime.store().search(n, text=q.text, vector=vector, k=10, mode="dense")
            ]
            hits.sort(key=lambda h: h.score, reverse=True)
            dense[p].append(_rank([(h.chunk.source, h.chunk.text) for h in hits[:10]], q))
            result = runtime.pipeline().retrieve(q.text)
            full[p].append(_rank([(h.chunk.source, h.chunk.text) for h in result.hits], q))
    return {
        "questions": len(questions),
        **{f"{p}_full": _scores(full[p]) for p in PRECISIONS},
        **{f"{p}_dense": _scores(dense[p]) for p in PRECISIONS},
        **{f"{p}_query_ms_median": round(1000 * statistics.median(latency[p]), 2) for p in PRECISIONS},
        "query_ratio_median": _paired(latency["fp32"], latency["int8"]),
    }


def _write_first(domain: str, n: int, dest: Path) -> dict[str, str]:
    """The domain's first ``n`` passages, one file per article as ``write_squad`` writes them."""
    rows = [json.loads(line) for line in (DEVKIT / domain / "corpus.jsonl").read_text("utf-8").splitlines()]
    by_article: dict[str, list[dict[str, Any]]] = {}
    for row in rows[:n]:
        by_article.setdefault(row["_id"].rsplit("_p", 1)[0], []).append(row)
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    where = {}
    for article, kept in by_article.items():
        body = "\n\n".join(r["text"].strip() for r in kept)
        (dest / f"{article}.md").write_text(f"# {kept[0]['title'] or article}\n\n{body}\n", "utf-8")
        where.update({r["_id"]: f"{article}.md" for r in kept})
    return where


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--per-domain", type=int, default=100)
    p.add_argument("--domains", type=int, default=len(SQUAD), help="the first N SQuAD-Shifts domains")
    p.add_argument("--bare", type=int, default=2048, help="chunk texts for the bare embedding comparison")
    p.add_argument("--passages", type=int, default=0, help="only the first N passages per domain (0: all)")
    p.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache" / "precision")
    args = p.parse_args()
    domains = SQUAD[: args.domains]
    questions: list[Question] = []
    for precision in PRECISIONS:  # a fresh index each run: every chunk is embedded in the measurement
        shutil.rmtree(args.cache / precision, ignore_errors=True)
    folders = {name: args.cache / "docs" / name for name in domains}
    for name in domains:
        where = write_squad(name, folders[name])
        if args.passages:
            folders[name] = args.cache / f"first-{args.passages}" / name
            where = _write_first(name, args.passages, folders[name])
        questions += squad_questions(name, where, 10**6)[: args.per_domain]
    runtimes = {p: _runtime(args.cache / p, folders, p, args.cache) for p in PRECISIONS}
    load = {}
    for precision, runtime in runtimes.items():
        t = time.perf_counter()
        runtime.embedder(runtime.config).warm_up()
        load[precision] = round(time.perf_counter() - t, 2)
    report: dict[str, Any] = {"cpu": cpu_model(), "model_load_s": load}
    report["ingest"] = ingest(runtimes, folders)
    print(json.dumps(report["ingest"]), file=sys.stderr)
    texts = [c.text for name in domains for c in runtimes["fp32"].store().chunks(name)][: args.bare]
    report["bare_embedding"] = bare(runtimes, texts)
    print(json.dumps(report["bare_embedding"]), file=sys.stderr)
    report["retrieval"] = retrieval(runtimes, domains, questions)
    for runtime in runtimes.values():
        runtime.close()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
