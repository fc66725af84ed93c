"""The quote on Hindi questions, on a sample big enough to read (issue 42): the product's retrieval and the
product's grounding (``Pipeline.retrieve``, then ``Grounder.ground`` with the collections' own word counts,
as ``Decider`` calls it), no chat model, so 120 questions take minutes instead of the hours
``bench.language_answers`` needs for ten.

Questions: a seeded sample (``--seed``) of the held-out half of ``hindi_qa_bigbench_even`` (halves as
``bench.lexical.half``) over the collection ``bench.languages`` indexes. **retrieved**: a gold answer is in
one of the five best passages; **quote holds**: it is in the quote the product shows first (what the user
reads before the model writes, and what a decline shows as the closest passage).

    python -m bench.hindi_quotes [--size 120] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import random

from bench.devkit import DEVKIT, read_jsonl
from bench.language_sets import ROOT, hindi
from bench.lexical import half, holds


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=120)
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args()
    from app.paths import read_config, resolve_paths
    from app.runtime import Runtime
    from kimas_desktop.answer.signals.grounding import Grounder

    cache = ROOT / "bench" / ".cache" / "languages"
    if not (cache / "hindi" / "data").exists():
        hindi(cache, "held-out", 1)  # indexes the passages
    kit = DEVKIT / "hindi_qa_bigbench_even"
    gold = {a["_id"]: a["answers"] for a in read_jsonl(kit / "answers.jsonl")}
    held = [
        q for q in read_jsonl(kit / "queries.jsonl") if gold.get(q["_id"]) and half(q["_id"]) == "held-out"
    ]
    sample = random.Random(args.seed).sample(held, min(args.size, len(held)))
    paths = resolve_paths(str(cache / "hindi" / "data"), None)
    config = read_config(paths, preset="full")
    runtime = Runtime(paths, config)
    pipeline, store = runtime.pipeline(), runtime.store()
    grounder = Grounder(runtime.embedder(config), config.grounding)
    retrieved = quoted = 0
    for q in sample:
        result = pipeline.retrieve(q["text"])
        synopses = [store.synopsis(c) for c in result.active]
        grounding = grounder.ground(q["text"], result.hits, synopses, query=result.query)
        answers = gold[q["_id"]]
        retrieved += holds(" ".join(h.chunk.text for h in result.hits[:5]), answers)
        quoted += holds(" ".join(x.text for x in grounding.quotes), answers)
    runtime.close()
    n = len(sample)
    print(
        json.dumps(
            {
                "questions": n,
                "retrieved": round(retrieved / n, 3),
                "quote_holds": round(quoted / n, 3),
                "quote_holds_when_retrieved": round(quoted / max(retrieved, 1), 3),
            }
        )
    )


if __name__ == "__main__":
    main()
