"""The optional relation pass (issue 25) with a real chat model: seconds per chunk, and what it reads.

    .venv/bin/python -m bench.relation_pass [--chunks 12] [--model PATH.gguf]

Indexes the ``squadshifts_new_wiki`` dev kit corpus (``bench.devkit``) with the deterministic
``HashEmbedder`` (vectors do not matter here), then runs ``RelationPass`` over its first ``--chunks``
chunks that mention two entities or more, with the embedded default chat model or the GGUF given, and
prints seconds per chunk, failed replies, and the relations read.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from bench.devkit import write_squad
from indexer import Indexer, LanceStore
from indexer.upkeep.relation_pass import RelationPass
from kimas_desktop.config import ChatModelConfig, IndexerConfig
from local_models.fake import HashEmbedder


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--chunks", type=int, default=12)
    p.add_argument("--model", default="", help="a GGUF file (default: the embedded chat model)")
    args = p.parse_args()
    from local_models import build_chat_model

    work = Path(tempfile.mkdtemp(prefix="kimas-relations-"))
    write_squad("squadshifts_new_wiki", work / "docs")
    store = LanceStore(str(work / "db"))
    Indexer(store, HashEmbedder(dim=64), IndexerConfig()).index("wiki", [work / "docs"])
    chat = build_chat_model(ChatModelConfig(path=args.model))
    chat.warm_up()
    t = time.perf_counter()
    final = RelationPass(store, chat).run("wiki", limit=args.chunks)
    seconds = time.perf_counter() - t
    tables = store.entity_tables("wiki")
    assert tables is not None
    rows = tables._relations.search().where("subject != ''").limit(None).to_arrow().to_pylist()
    for r in rows[:40]:
        print(f"  {r['subject_name']} | {r['predicate']} | {r['object_name']}")
    print(
        json.dumps(
            {
                "model": chat.model_id,
                "chunks": final.done,
                "failed": final.failed,
                "relations": final.relations,
                "seconds": round(seconds, 1),
                "seconds_per_chunk": round(seconds / max(final.done, 1), 2),
            }
        )
    )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
