"""Ingest throughput of the indexer with the real embedding model, against the model's bare speed.

    .venv/bin/python -m bench.ingest [--subset pdf|markdown|html|all] [--docs DIR]

Indexes a subset of the long manuals fetched by ``../shared/eval/fetch_documents.sh`` (default location
~/.cache/kimas-eval/documents) into a fresh LanceDB, then embeds the very same chunk texts again with the
same model, in windows of the same size, with nothing else running ("bare"). Reports files/s, pages/s,
chunks/s, peak RSS of this process and of the PDF worker, and the ratio end-to-end / bare (goal ≤ 1.15),
in wall time and in CPU time (this process plus the PDF worker): the CPU ratio is what the pipeline costs
on top of the model, and stays meaningful when other jobs share the machine (the wall ratio does not).
Model loading is done before either measurement and is reported apart.

Subsets (each about 1,000–2,000 chunks: a minute or two per measurement on a 2-core CPU):
    pdf       R manuals R-intro and R-data (PDF; pypdf runs in the worker process beside the model)
    markdown  Node.js API docs addons, assert, async_context, async_hooks, buffer (Markdown)
    html      Python 3.11 docs howto/ (HTML)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.workspace import link_subset
from indexer import Indexer, LanceStore
from kimas_desktop.config import EmbeddingModelConfig, IndexerConfig

ROOT = Path(__file__).resolve().parents[1]

DOCS = Path.home() / ".cache" / "kimas-eval" / "documents" / "long"
SUBSETS = {
    "pdf": [
        "r-doc-pdf/usr/share/R/doc/manual/R-intro.pdf",
        "r-doc-pdf/usr/share/R/doc/manual/R-data.pdf",
    ],
    "markdown": ["nodejs-doc/usr/share/doc/nodejs/api/[ab]*.md"],
    "html": ["python3.11-doc/usr/share/doc/python3.11/html/howto/*.html"],
}
WINDOW = 256  # texts per embedding call, as in the indexer


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (the PDF worker exits with each sync)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def run(subset: str, docs: Path) -> dict[str, Any]:
    from local_models import build_embedder

    work = Path(tempfile.mkdtemp(prefix=f"kimas-ingest-{subset}-"))
    folder = work / subset
    files = link_subset(docs, SUBSETS[subset], folder)
    embedder = build_embedder(EmbeddingModelConfig(), ROOT / "bench" / ".cache" / "models")
    t = time.perf_counter()
    embedder.warm_up()
    embedder.count_tokens("warm up the tokenizer")
    load_s = time.perf_counter() - t

    store = LanceStore(str(work / "db"))
    indexer = Indexer(store, embedder, IndexerConfig())
    load_before = os.getloadavg()[0]
    cpu = _cpu_seconds()
    t = time.perf_counter()
    report = indexer.index(subset, [folder])
    end_to_end = time.perf_counter() - t
    cpu_end_to_end = _cpu_seconds() - cpu

    texts = [c.text for c in store.chunks(subset)]
    pages = sum(r.pages for r in store.manifest(subset).values())
    cpu = _cpu_seconds()
    t = time.perf_counter()
    for i in range(0, len(texts), WINDOW):
        embedder.embed_passages(texts[i : i + WINDOW])
    bare = time.perf_counter() - t
    cpu_bare = _cpu_seconds() - cpu

    rss_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rss_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {
        "subset": subset,
        "files": files,
        "indexed": report.indexed,
        "skipped": report.skipped,
        "failed": report.failed,
        "pages": pages,
        "chunks": len(texts),
        "seconds": round(end_to_end, 2),
        "bare_embed_seconds": round(bare, 2),
        "ratio": round(end_to_end / bare, 3) if bare else None,
        "cpu_ratio": round(cpu_end_to_end / cpu_bare, 3) if cpu_bare else None,
        "files_per_s": round(files / end_to_end, 2),
        "pages_per_s": round(pages / end_to_end, 2),
        "chunks_per_s": round(len(texts) / end_to_end, 1),
        "bare_chunks_per_s": round(len(texts) / bare, 1) if bare else None,
        "model_load_s": round(load_s, 2),
        "peak_rss_mb": round(rss_self),
        "pdf_worker_peak_rss_mb": round(rss_children),
        "load_avg_at_start": round(load_before, 2),
        "load_avg_at_end": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--subset", choices=[*SUBSETS, "all"], default="all")
    parser.add_argument("--docs", type=Path, default=DOCS, help="the 'long' folder of fetch_documents.sh")
    args = parser.parse_args()
    subsets = list(SUBSETS) if args.subset == "all" else [args.subset]
    for subset in subsets:
        if len(subsets) > 1:  # one process per subset, so peak RSS is per subset
            import subprocess

            subprocess.run(
                [sys.executable, "-m", "bench.ingest", "--subset", subset, "--docs", str(args.docs)],
                cwd=ROOT,
                check=True,
            )
        else:
            print(json.dumps(run(subset, args.docs)), flush=True)


if __name__ == "__main__":
    main()
