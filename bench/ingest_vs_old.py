"""Ingest speed of this tree against an older one (issue 25: document cards and the entity index must keep
≥ 0.8× today's chunks per second), side by side in one run.

    nice .venv/bin/python -m bench.ingest_vs_old --old-ref ab2eab7 [--corpus squadshifts_new_wiki] [--repeats 3]

The old tree is unpacked with ``git archive`` (``bench.workspace.old_tree``). Each run is a fresh process
running its tree's own indexer with its default ``IndexerConfig`` (so the new side builds cards and the
entity index) and the embedded default embedder, warmed up before the clock starts, on a first, full index
of the same folder (one Markdown file per dev kit article) into a fresh LanceDB. The order alternates per
repetition. Prints each run and the ratio new / old of the median chunks/s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.devkit import write_squad
from bench.machine import cpu_model
from bench.workspace import old_tree

ROOT = Path(__file__).resolve().parents[1]

RUN = """
import json, sys, time
from pathlib import Path
from indexer import Indexer, LanceStore
from kimas_desktop.config import EmbeddingModelConfig, IndexerConfig
from local_models import build_embedder
folder, db, cache = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
embedder = build_embedder(EmbeddingModelConfig(), cache)
embedder.warm_up()
embedder.embed_passages(["warm up the model"])
store = LanceStore(db)
t = time.perf_counter()
Indexer(store, embedder, IndexerConfig()).index("bench", [folder])
seconds = time.perf_counter() - t
chunks = store.count_chunks("bench")
print(json.dumps({"chunks": chunks, "seconds": round(seconds, 2), "chunks_per_s": round(chunks / seconds, 1)}))
"""


def one(tree: Path, folder: Path, db: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", RUN, str(folder), str(db), str(ROOT / "bench" / ".cache" / "models")],
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--old-ref", required=True)
    p.add_argument("--corpus", default="squadshifts_new_wiki")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kimas-ingest-vs-old-"))
    folder = work / "docs"
    write_squad(args.corpus, folder)
    trees = {"old": old_tree(ROOT / "bench" / ".cache" / "ingest", args.old_ref), "new": ROOT}
    runs = []
    for r in range(args.repeats):
        for side in ("old", "new") if r % 2 == 0 else ("new", "old"):
            run = {"side": side, "repeat": r, **one(trees[side], folder, work / f"db-{side}-{r}")}
            runs.append(run)
            print(json.dumps(run), flush=True)
    med = {s: statistics.median(x["chunks_per_s"] for x in runs if x["side"] == s) for s in ("old", "new")}
    print(
        json.dumps(
            {
                "cpu": cpu_model(),
                "old_ref": args.old_ref,
                "corpus": args.corpus,
                "old_chunks_per_s": med["old"],
                "new_chunks_per_s": med["new"],
                "ratio": round(med["new"] / med["old"], 3),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
