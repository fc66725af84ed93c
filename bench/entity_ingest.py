"""Ingest cost of the entity index (issue 25): chunks/s with ``indexer.entities`` off and on, side by side.

    .venv/bin/python -m bench.entity_ingest [--corpus squadshifts_new_wiki] [--repeats 3]

Writes the dev kit corpus as documents (one Markdown file per SQuAD-Shifts article, ``bench.devkit``),
loads the embedded default embedding model once, then indexes the folder into a fresh LanceDB with the
entity index off and on, alternating which goes first in each repetition. Each run is a first, full
index (parse, chunk, embed, write, synopsis, and with it on the entity upkeep). Reports chunks/s of each
run, the median of each side, the ratio on/off of the medians (goal ≥ 0.8), in wall and in CPU time, the
ratio within each repetition (the two runs next to each other) and its median, and the entity upkeep's own
seconds; and after each run, the time of a second sync with no changes.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, ClassVar

from bench.devkit import write_squad
from indexer import Indexer, LanceStore
from indexer.upkeep.entity_upkeep import EntityUpkeep, EntityWork
from kimas_desktop.config import EmbeddingModelConfig, IndexerConfig
from kimas_desktop.protocols import Embedder

ROOT = Path(__file__).resolve().parents[1]


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


class _TimedUpkeep(EntityUpkeep):
    """The product's upkeep, recording how long each refresh took."""

    works: ClassVar[list[EntityWork]] = []

    def refresh(self, tables: Any, check: Any = None) -> EntityWork:
        work = super().refresh(tables, check)
        self.works.append(work)
        return work


def one_run(embedder: Embedder, folder: Path, work: Path, *, entities: bool) -> dict[str, Any]:
    db = work / f"db-{'on' if entities else 'off'}"
    shutil.rmtree(db, ignore_errors=True)
    store = LanceStore(str(db))
    indexer = Indexer(store, embedder, IndexerConfig(entities=entities))
    _TimedUpkeep.works = []
    if entities:
        indexer._entities = _TimedUpkeep(store)  # same class, timed
    cpu, t = _cpu_seconds(), time.perf_counter()
    report = indexer.index("bench", [folder])
    wall, cpu = time.perf_counter() - t, _cpu_seconds() - cpu
    chunks = store.count_chunks("bench")
    out: dict[str, Any] = {
        "entities": entities,
        "chunks": chunks,
        "files": report.indexed,
        "seconds": round(wall, 2),
        "cpu_seconds": round(cpu, 2),
        "chunks_per_s": round(chunks / wall, 1),
        "chunks_per_cpu_s": round(chunks / cpu, 1),
    }
    if entities:
        tables = store.entity_tables("bench")
        out["upkeep_seconds"] = round(sum(w.seconds for w in _TimedUpkeep.works), 2)
        out["mentions"] = 0 if tables is None else tables.count_mentions()
    t = time.perf_counter()
    indexer.index("bench", [folder])
    out["no_change_sync_s"] = round(time.perf_counter() - t, 3)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", default="squadshifts_new_wiki")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()

    from local_models import build_embedder

    work = Path(tempfile.mkdtemp(prefix="kimas-entity-ingest-"))
    folder = work / "docs"
    write_squad(args.corpus, folder)
    embedder = build_embedder(EmbeddingModelConfig(), ROOT / "bench" / ".cache" / "models")
    embedder.warm_up()  # type: ignore[attr-defined]
    embedder.embed_passages(["warm up the model"])

    runs: list[dict[str, Any]] = []
    for r in range(args.repeats):
        order = (False, True) if r % 2 == 0 else (True, False)
        for entities in order:
            run = one_run(embedder, folder, work, entities=entities)
            run["repeat"] = r
            runs.append(run)
            print(json.dumps(run), flush=True)

    def median(key: str, on: bool) -> float:
        return statistics.median(x[key] for x in runs if x["entities"] is on)

    paired = [
        round(on["chunks_per_s"] / off["chunks_per_s"], 3)
        for r in range(args.repeats)
        for on in runs
        for off in runs
        if on["repeat"] == off["repeat"] == r and on["entities"] and not off["entities"]
    ]
    summary = {
        "corpus": args.corpus,
        "files": len(list(folder.iterdir())),
        "chunks": runs[0]["chunks"],
        "repeats": args.repeats,
        "off_chunks_per_s": median("chunks_per_s", False),
        "on_chunks_per_s": median("chunks_per_s", True),
        "ratio": round(median("chunks_per_s", True) / median("chunks_per_s", False), 3),
        "paired_ratios": paired,
        "median_paired_ratio": statistics.median(paired),
        "cpu_ratio": round(median("chunks_per_cpu_s", True) / median("chunks_per_cpu_s", False), 3),
        "upkeep_seconds": median("upkeep_seconds", True),
        "upkeep_share_of_on_run": round(median("upkeep_seconds", True) / median("seconds", True), 3),
        "mentions": runs[-1].get("mentions") or runs[-2].get("mentions"),
        "no_change_sync_s_off": median("no_change_sync_s", False),
        "no_change_sync_s_on": median("no_change_sync_s", True),
    }
    print(json.dumps(summary, indent=2))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
