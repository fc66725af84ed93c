"""Time for a watched-folder edit to become searchable while a long upload into another collection indexes.

    .venv/bin/python -m bench.searchable [--files 300] [--repeats 2] [--edit-after 5] [--before 719be08]

The app's own parts: the real embedding model, ``LanceStore``, ``Indexer``, the ``FolderWatcher`` feeding
an ``IndexScheduler`` with the default debounce. Collection ``notes`` (a watched folder of 20 files) is
indexed first; then an upload of ``--files`` Markdown files (three real SQuAD-Shifts passages each, from
../shared/eval/devkit) is submitted to collection ``upload``, and ``--edit-after`` seconds after its sync
started a new note with a unique fact is written into the watched folder. Measured: from that write until a hybrid
search of ``notes`` with the question's embedding (what ``kimas retrieve`` does) returns the new note
first; and how long the upload took. Each round runs the scheduler of ``--before`` (one sync at a time)
and the current one side by side in one run, each on a fresh data directory.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from app.knowledge.scheduler import IndexScheduler
from bench.devkit import squad_passages
from bench.workspace import write_collection
from indexer import FolderWatcher, Indexer, LanceStore
from kimas_desktop.config import EmbeddingModelConfig, IndexerConfig
from kimas_desktop.protocols import Embedder

ROOT = Path(__file__).resolve().parents[1]


def scheduler_at(ref: str) -> ModuleType:
    """``app/scheduler.py`` as it was at ``ref``, loaded as a module of its own."""
    source = subprocess.run(
        ["git", "show", f"{ref}:app/scheduler.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    path = Path(tempfile.mkdtemp(prefix="kimas-old-scheduler-")) / "old_scheduler.py"
    path.write_text(source, "utf-8")
    spec = importlib.util.spec_from_file_location("old_scheduler", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_scheduler"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def wait(condition: Any, timeout: float = 600.0, step: float = 0.02) -> float:
    start = time.perf_counter()
    while not condition():
        if time.perf_counter() - start > timeout:
            raise TimeoutError("condition not met")
        time.sleep(step)
    return time.perf_counter() - start


def round_trip(
    scheduler_cls: Any, embedder: Embedder, texts: list[str], files: int, edit_after: float, r: int
) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="kimas-searchable-"))
    notes, upload = work / "notes", work / "upload"
    write_collection(notes, 20, texts[-200:])
    write_collection(upload, files, texts)
    store = LanceStore(str(work / "db"), embedder=embedder)
    config = IndexerConfig()
    indexer = Indexer(store, embedder, config)
    indexer.index("notes", [notes])
    folders = {"notes": [notes], "upload": [upload]}
    scheduler = scheduler_cls(lambda: indexer, folders.get, debounce_s=config.debounce_s)
    watcher = FolderWatcher(scheduler.touch)
    watcher.watch({"notes": [notes]})
    word = f"quillfeather{r}"
    question = f"Who keeps the {word} key?"
    fact = f"# Key holder\n\nThe {word} key is kept by the night porter, Ingrid Malvern.\n"
    query = embedder.embed_query([question])[0]

    def found() -> bool:
        hits = store.search("notes", text=question, vector=query, k=1)
        return bool(hits) and word in hits[0].chunk.text

    try:
        start = time.perf_counter()
        scheduler.submit("upload", "upload")
        wait(lambda: scheduler.state().collection == "upload")
        time.sleep(edit_after)
        upload_running = scheduler.state().collection == "upload"
        (notes / "new-note.md").write_text(fact, "utf-8")
        searchable_s = wait(found)
        wait(scheduler.idle)
        upload_s = time.perf_counter() - start
    finally:
        watcher.close()
        scheduler.close()
    return {
        "searchable_s": searchable_s,
        "upload_s": upload_s,
        "chunks": store.count_chunks("upload"),
        "edited_during_upload": upload_running,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--edit-after", type=float, default=5.0)
    parser.add_argument("--before", default="719be08", help="git ref of the scheduler to compare with")
    args = parser.parse_args()
    from local_models import build_embedder

    embedder = build_embedder(EmbeddingModelConfig(), ROOT / "bench" / ".cache" / "models")
    embedder.warm_up()
    texts = squad_passages()
    variants = {f"before ({args.before}, one sync at a time)": scheduler_at(args.before).IndexScheduler}
    variants["after (a worker per collection, 2 at most)"] = IndexScheduler
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in variants}
    for r in range(args.repeats):
        for name, cls in variants.items():
            out = round_trip(cls, embedder, texts, args.files, args.edit_after, r)
            results[name].append(out)
            print(name, {k: round(v, 2) for k, v in out.items()}, flush=True)
    print(f"\n| scheduler | edit → searchable, median s (max) | upload of {args.files} files, median s |")
    print("|---|---|---|")
    for name, runs in results.items():
        s = [x["searchable_s"] for x in runs]
        u = [x["upload_s"] for x in runs]
        print(f"| {name} | {statistics.median(s):.1f} ({max(s):.1f}) | {statistics.median(u):.1f} |")


if __name__ == "__main__":
    main()
