"""The cost of growth (issue 59): one collection from 10k to 500k chunks of real technical prose.

    .venv/bin/python -m bench.scale [--every 11] [--copies 1,5,13,19,48] [--questions 100] [--edits 20]

Data: Debian's ``linux-doc-6.1`` (``apt-get install linux-doc-6.1``), the kernel's Documentation tree
(reStructuredText, text and YAML bindings, gzipped in the package). Every ``--every``-th file is unpacked
into ``copy00/`` of a watched folder and indexed from scratch with the embedded default embedder (the
first stage: real parsing and embedding). Each later stage adds copies of that folder (``copy01/``, …)
and syncs again: the product's own copy path (a file whose bytes it has stored takes the stored chunks
and vectors, nothing is embedded again), so half a million chunks cost no hours of embedding. Everything
runs through the product: ``Indexer`` over a ``LanceStore`` (which adds its vector index at 50,000
chunks), ``CentroidRouter``, the ``FolderWatcher`` feeding an ``IndexScheduler``.

At each stage: the sync's files/s and chunks/s and this process tree's peak RSS while it ran; the data
directory's size, the chunk table's fragments and versions; for ``--questions`` known-item questions (the
first 10 words of a sentence of a chunk sampled from ``copy00/``, chosen once), the store's hybrid search
(k=12, as a retrieval agent asks) p50/p95 with and without the question's embedding, and recall@5 (a hit
whose text holds the words counts: any copy of the chunk is the known item); recall@5 of the dense search
through the vector index against the exact (flat) search, both as the store searches (the copies of a file
take one place in the results); routing time; restart-to-ready (a fresh store and
indexer: open, scan the folder, compare with the manifest, sync nothing, answer one search). At the first
stage with at least ``--edit-files`` files: ``--edits`` saves of one file each, from the write until a
full-text search finds the saved word, and the table's versions and size after them. At the end, the
vector index on ``--jittered`` near-duplicate copies (``jittered``): exact copies are the worst case of a
graph index, whose neighbours are then all copies of one chunk.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import lancedb
import numpy as np

from app.knowledge.scheduler import IndexScheduler
from bench.machine import cpu_model, tree_rss
from indexer import FolderWatcher, Indexer, LanceStore
from indexer.store.lance_store import StoredChunk
from indexer.store.search import dense
from kimas_desktop.config import EmbeddingModelConfig, IndexerConfig, parse_config
from kimas_desktop.routing.router import CentroidRouter

ROOT = Path(__file__).resolve().parents[1]
SOURCE = Path("/usr/share/doc/linux-doc-6.1/Documentation")
KEEP = (".rst", ".txt", ".yaml", "")  # the tree's prose and bindings; not images, fonts or scripts
NAME = "linux-doc"


def unpack(source: Path, dest: Path, every: int) -> int:
    """Every ``every``-th prose file of the package, unpacked under ``dest``; how many."""
    names = sorted(p for p in source.rglob("*.gz") if Path(p.stem).suffix in KEEP)
    for path in names[::every]:
        out = dest / path.relative_to(source).with_suffix("")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(gzip.decompress(path.read_bytes()))
    return len(names[::every])


class PeakRss:
    """The highest resident memory of a process (this one by default) and its children while the block
    runs."""

    def __init__(self, pid: int | None = None) -> None:
        self.peak, self.pid = 0, pid or os.getpid()
        self._stop = threading.Event()

    def _sample(self) -> None:
        while not self._stop.wait(0.2):
            self.peak = max(self.peak, tree_rss(self.pid))

    def __enter__(self) -> PeakRss:
        self.peak = tree_rss(self.pid)
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def questions(store: LanceStore, n: int, seed: int = 59) -> list[str]:
    """The first 10 words of one sentence of ``n`` chunks of ``copy00/``, sampled once."""
    chunks = [c for c in store.chunks(NAME) if "/copy00/" in c.source]
    random.Random(seed).shuffle(chunks)
    out: list[str] = []
    for chunk in chunks:
        for sentence in re.split(r"(?<=[.!?])\s+|\n\s*\n", chunk.text):
            words = sentence.split()
            if len(words) >= 12 and sum(w.isalpha() for w in words) >= 8:
                out.append(" ".join(words[:10]))
                break
        if len(out) == n:
            break
    return out


def holds(text: str, question: str) -> bool:
    return question in " ".join(text.split())


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def searches(store: LanceStore, embedder: Any, db: Path, asked: list[str]) -> dict[str, Any]:
    """Latency and recall@5 of the product's hybrid search, and of its dense search (through the vector
    index once there is one) against the exact search (the same LanceDB table, its index bypassed)."""
    table = lancedb.connect(str(db)).open_table(store.tables(NAME).chunks_table)
    with_embed, search_ms, route_ms = [], [], []
    found = {"hybrid": 0, "dense_index": 0, "dense_flat": 0}
    router = CentroidRouter(store, embedder, parse_config({}))
    for q in asked:
        t0 = time.perf_counter()
        vector = embedder.embed_query([q])[0]
        t1 = time.perf_counter()
        hits = store.search(NAME, text=q, vector=vector, k=12, mode="hybrid")
        t2 = time.perf_counter()
        router.score(q, vector, [NAME])
        route_ms.append((time.perf_counter() - t2) * 1000)
        with_embed.append((t2 - t0) * 1000)
        search_ms.append((t2 - t1) * 1000)
        found["hybrid"] += any(holds(h.chunk.text, q) for h in hits[:5])
        indexed = store.search(NAME, text=q, vector=vector, k=5, mode="dense")  # through the index
        found["dense_index"] += any(holds(h.chunk.text, q) for h in indexed)
        flat = dense(table, vector, 5, exact=True)  # the same search, the index bypassed
        found["dense_flat"] += any(holds(h.chunk.text, q) for h in flat)
    n = len(asked)
    return {
        "retrieve_p50_ms": round(pct(with_embed, 0.5), 1),
        "retrieve_p95_ms": round(pct(with_embed, 0.95), 1),
        "search_p50_ms": round(pct(search_ms, 0.5), 1),
        "search_p95_ms": round(pct(search_ms, 0.95), 1),
        "route_p50_ms": round(pct(route_ms, 0.5), 2),
        **{f"recall5_{k}": round(v / n, 3) for k, v in found.items()},
    }


def table_state(db: Path, store: LanceStore) -> dict[str, Any]:
    table = lancedb.connect(str(db)).open_table(store.tables(NAME).chunks_table)
    stats = table.stats()
    size = sum(f.stat().st_size for f in db.rglob("*") if f.is_file())
    return {
        "data_mb": round(size / 1024**2, 1),
        "fragments": int(stats["fragment_stats"]["num_fragments"]),
        "versions": len(table.list_versions()),
        "indices": sorted(i.index_type for i in table.list_indices()),
    }


def restart(db: Path, docs: Path, embedder: Any, asked: list[str]) -> dict[str, Any]:
    """A fresh store and indexer: open, sync the unchanged folder, answer one search."""
    t0 = time.perf_counter()
    store = LanceStore(str(db), embedder=embedder)
    report = Indexer(store, embedder, IndexerConfig()).index(NAME, [docs])
    t1 = time.perf_counter()
    store.search(NAME, text=asked[0], vector=embedder.embed_query([asked[0]])[0], k=12, mode="hybrid")
    t2 = time.perf_counter()
    assert report.indexed == 0 and report.deleted == 0, report
    return {"restart_sync_s": round(t1 - t0, 2), "restart_ready_s": round(t2 - t0, 2)}


def edits(store: LanceStore, indexer: Indexer, docs: Path, n: int) -> dict[str, Any]:
    """``n`` saves of one file each in the watched folder, until a full-text search finds the new word."""
    folders = {NAME: [docs]}
    scheduler = IndexScheduler(lambda: indexer, folders.get, debounce_s=IndexerConfig().debounce_s)
    watcher = FolderWatcher(scheduler.touch)
    watcher.watch(folders)
    files = sorted((docs / "copy00").rglob("*.rst"))
    seconds = []
    try:
        for r in range(n):
            word = f"zebracorn{r}q{len(files)}"
            path = files[(37 * r + 11) % len(files)]
            text = path.read_text("utf-8") + f"\n\nThe {word} appears in this edit.\n"
            t = time.perf_counter()
            path.write_text(text, "utf-8")
            while not any(
                word in h.chunk.text
                for h in store.search(NAME, text=word, vector=None, k=1, mode="fts")  # type: ignore[arg-type]
            ):
                time.sleep(0.01)
            seconds.append(time.perf_counter() - t)
            while not scheduler.idle():
                time.sleep(0.05)
            time.sleep(0.3)
    finally:
        watcher.close()
        scheduler.close()
    return {
        "edit_searchable_median_s": round(statistics.median(seconds), 2),
        "edit_searchable_max_s": round(max(seconds), 2),
    }


def jittered(store: LanceStore, embedder: Any, work: Path, asked: list[str], copies: int) -> dict[str, Any]:
    """The vector index on near-duplicates rather than exact copies: ``copy00``'s stored chunks written
    ``copies`` times through ``CollectionTables.add_chunks`` into a new store, each copy's vectors moved by
    a seeded random step (cosine about 0.96 to the original) so that no two rows are equal; then the
    store's own ``refresh_indexes`` and recall@5 of its dense search against the exact one."""
    paths = sorted(p for p in store.manifest(NAME) if "/copy00/" in p)
    base = store.tables(NAME).stored_chunks(paths)
    vectors = np.stack([np.asarray(s.vector, np.float32) for s in base])
    db = work / "jittered"
    other = LanceStore(str(db), embedder=embedder)
    other.open_collection(NAME, embedding_model=embedder.model_id, dim=embedder.dim)
    tables, rng = other.tables(NAME), np.random.default_rng(59)
    for c in range(copies):
        step = rng.standard_normal(vectors.shape).astype(np.float32) * (0.3 / np.sqrt(vectors.shape[1]))
        moved = vectors + (step if c else 0)
        moved /= np.linalg.norm(moved, axis=1, keepdims=True)
        rows = [
            StoredChunk(  # another file's chunk (its own hash), not a copy the search collapses
                replace(s.chunk, chunk_id=f"{c}-{s.chunk.chunk_id}", file_hash=f"{c}-{s.chunk.file_hash}"),
                s.ordinal,
                moved[i],
            )
            for i, s in enumerate(base)
        ]
        for i in range(0, len(rows), 8192):
            tables.add_chunks(rows[i : i + 8192])
    t = time.perf_counter()
    tables.refresh_indexes()
    out = {"jittered_chunks": tables.count_chunks(), "index_build_s": round(time.perf_counter() - t)}
    return out | {k: v for k, v in searches(other, embedder, db, asked).items() if "recall5_dense" in k}


def first_words_ms(answer: dict[str, Any]) -> float | None:
    """When an answer's first words appeared: its grounded quote, else the model's first token."""
    stages = {s["stage"]: s for s in answer.get("trace", {}).get("stages", [])}
    if "quote" in stages:
        return float(stages["quote"]["at_ms"])
    first = answer.get("timings_ms", {}).get("first_token")
    return None if first is None else float(first)


def answering(data: Path, asked: list[str]) -> dict[str, Any]:
    """The app's own ask path over the grown collection, as a user asks: ``kimas ask --batch --json`` on
    the data dir (the runtime with the embedded models, the chat model's worker included), the questions
    asked in one process; the peak RSS of its process tree, the time to the first grounded words of each
    answer and the whole run's time."""
    batch = data.parent / "asked.jsonl"
    batch.write_text("".join(json.dumps({"id": str(i), "question": q}) + "\n" for i, q in enumerate(asked)))
    command = [sys.executable, "-m", "cli.main", "ask", "--batch", str(batch), "--json"]
    t = time.perf_counter()
    proc = subprocess.Popen(
        [*command, "--data-dir", str(data)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    with PeakRss(proc.pid) as rss:
        out, _ = proc.communicate()
    if proc.returncode:
        raise SystemExit(f"kimas ask --batch failed (exit {proc.returncode})")
    answers = [json.loads(line) for line in out.decode().splitlines() if line.startswith("{")]
    words = [ms for ms in map(first_words_ms, answers) if ms is not None]
    return {
        "answered": len(answers),
        "first_words_p50_ms": round(pct(words, 0.5)) if words else None,
        "first_words_p95_ms": round(pct(words, 0.95)) if words else None,
        "answering_peak_rss_mb": round(rss.peak / 1024**2),
        "answering_run_s": round(time.perf_counter() - t, 1),
    }


def stage(work: Path, copies: int, embedder: Any, indexer: Indexer, store: LanceStore) -> dict[str, Any]:
    """Grow the folder to ``copies`` copies and sync it; the sync's speed and peak memory."""
    docs = work / "docs"
    for c in range(1, copies):
        target = docs / f"copy{c:02d}"
        if not target.exists():
            shutil.copytree(docs / "copy00", target)
    with PeakRss() as rss:
        t = time.perf_counter()
        report = indexer.index(NAME, [docs])
        seconds = time.perf_counter() - t
    files = report.indexed + report.unchanged
    return {
        "copies": copies,
        "files": files,
        "chunks": store.count_chunks(NAME),
        "sync_files": report.indexed,
        "sync_s": round(seconds, 1),
        "files_per_s": round(report.indexed / seconds, 1),
        "chunks_per_s": round(report.chunks_added / seconds, 1),
        "peak_rss_mb": round(rss.peak / 1024**2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--work", type=Path, default=Path("/tmp/kimas-scale"))
    parser.add_argument("--every", type=int, default=11)
    parser.add_argument("--copies", default="1,5,13,19,48")
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--edit-files", type=int, default=10_000)
    parser.add_argument("--jittered", type=int, default=18, help="near-duplicate copies (0: none)")
    parser.add_argument("--answers", type=int, default=20, help="questions asked through kimas ask (0: none)")
    parser.add_argument("--resume", action="store_true", help="grow the folder and store in --work further")
    parser.add_argument(
        "--embedding", default="", help="an embedder name ('multilingual-e5-small'); default: MiniLM"
    )
    args = parser.parse_args()
    from local_models import build_embedder

    print(json.dumps({"cpu": cpu_model(), "date": time.strftime("%Y-%m-%d %H:%M")}), flush=True)
    work, db = args.work, args.work / "data" / "lancedb"  # the app's layout: kimas --data-dir work/data
    if not (args.resume and (work / "docs" / "copy00").is_dir()):
        shutil.rmtree(work, ignore_errors=True)
        print(json.dumps({"unpacked": unpack(SOURCE, work / "docs" / "copy00", args.every)}), flush=True)
    embedding = EmbeddingModelConfig(name=args.embedding, auto=False)
    embedder = build_embedder(embedding, ROOT / "bench" / ".cache" / "models")
    (work / "data").mkdir(parents=True, exist_ok=True)  # kimas ask reads the same embedder from its config
    (work / "data" / "config.toml").write_text(f'[embedding]\nname = "{args.embedding}"\nauto = false\n')
    embedder.warm_up()
    store = LanceStore(str(db), embedder=embedder)
    indexer = Indexer(store, embedder, IndexerConfig())
    asked: list[str] = []
    edited = False
    for copies in (int(c) for c in args.copies.split(",") if c):  # "": the near-duplicates alone
        row = stage(work, copies, embedder, indexer, store)
        asked = asked or questions(store, args.questions)
        row |= searches(store, embedder, db, asked) | table_state(db, store)
        row |= restart(db, work / "docs", embedder, asked)
        row |= answering(db.parent, asked[: args.answers]) if args.answers else {}
        print(json.dumps(row), flush=True)
        if not edited and row["files"] >= args.edit_files:
            edited = True
            after = edits(store, indexer, work / "docs", args.edits)
            after |= {f"after_edits_{k}": v for k, v in table_state(db, store).items()}
            print(json.dumps(after), flush=True)
    if args.jittered:
        asked = asked or questions(store, args.questions)
        print(json.dumps(jittered(store, embedder, work, asked, args.jittered)), flush=True)


if __name__ == "__main__":
    main()
