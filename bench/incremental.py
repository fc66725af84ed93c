"""Incremental sync cost: from saving one changed file to it being searchable, next to a full index.

    .venv/bin/python -m bench.incremental [--sizes 250,1000] [--repeats 5] [--debounce 1.0]

For each collection size N, writes N Markdown files (three real SQuAD-Shifts passages each, from
../shared/eval/devkit), indexes them from scratch with the real embedding model, then runs the product's
FolderWatcher on the folder and, ``--repeats`` times, appends a sentence with a unique word to one file
and measures the time until a full-text search returns it ("save → searchable", which includes the
watcher's debounce) and the incremental sync's own time. Also reports a sync with nothing changed
(the cost of scanning the folder and reading the manifest). Goal: the incremental figures do not grow
with N.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.devkit import squad_passages
from bench.workspace import write_collection
from indexer import FolderWatcher, Indexer, LanceStore
from kimas_desktop.config import EmbeddingModelConfig, IndexerConfig
from kimas_desktop.types import IndexReport

ROOT = Path(__file__).resolve().parents[1]


def searchable(store: LanceStore, collection: str, word: str) -> bool:
    hits = store.search(collection, text=word, vector=None, k=1, mode="fts")  # type: ignore[arg-type]
    return bool(hits) and word in hits[0].chunk.text


def measure(n: int, texts: list[str], embedder: Any, repeats: int, debounce: float) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix=f"kimas-incr-{n}-"))
    folder = work / "docs"
    write_collection(folder, n, texts)
    store = LanceStore(str(work / "db"))
    indexer = Indexer(store, embedder, IndexerConfig())
    t = time.perf_counter()
    full = indexer.index("c", [folder])
    full_s = time.perf_counter() - t
    t = time.perf_counter()
    indexer.index("c", [folder])
    noop_s = time.perf_counter() - t

    reports: list[IndexReport] = []
    done = threading.Event()

    def on_report(report: IndexReport) -> None:
        reports.append(report)
        done.set()

    watcher = FolderWatcher(indexer, {"c": [folder]}, debounce, on_report=on_report, catch_up=False)
    watcher.start()
    save_to_search: list[float] = []
    sync_s: list[float] = []
    try:
        for r in range(repeats):
            done.clear()
            word = f"zebracorn{r}x{n}"
            i = (37 * r + 11) % n
            path = folder / f"sub{i % 20:02d}" / f"doc{i:05d}.md"
            text = path.read_text("utf-8") + f"\nThe {word} appears in this edit.\n"
            t = time.perf_counter()
            path.write_text(text, "utf-8")
            while not searchable(store, "c", word):
                time.sleep(0.01)
            save_to_search.append(time.perf_counter() - t)
            done.wait(30)
            sync_s.append(reports[-1].seconds)
            assert reports[-1].indexed == 1, reports[-1]
            time.sleep(0.2)
    finally:
        watcher.stop()
    return {
        "files": n,
        "chunks": store.count_chunks("c"),
        "full_index_s": round(full_s, 1),
        "full_chunks_per_s": round(full.chunks_added / full_s, 1),
        "noop_sync_s": round(noop_s, 3),
        "incremental_sync_s_median": round(statistics.median(sync_s), 3),
        "save_to_searchable_s_median": round(statistics.median(save_to_search), 3),
        "save_to_searchable_s_max": round(max(save_to_search), 3),
        "debounce_s": debounce,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="250,1000")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--debounce", type=float, default=IndexerConfig().debounce_s)
    args = parser.parse_args()
    from local_models import build_embedder

    embedder = build_embedder(EmbeddingModelConfig(), ROOT / "bench" / ".cache" / "models")
    embedder.warm_up()
    texts = squad_passages()
    for n in (int(s) for s in args.sizes.split(",")):
        print(json.dumps(measure(n, texts, embedder, args.repeats, args.debounce)), flush=True)


if __name__ == "__main__":
    main()
