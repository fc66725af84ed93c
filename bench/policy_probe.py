"""Probe (issue 22): every signal the answer policy can use, per question, so that a rule can be chosen on
one half of the dev kit and measured on the other.

    nice .venv/bin/python -m bench.policy_probe [--answerable 100] [--unanswerable 100] [--model bigger]

For each SQuAD-Shifts question of ``bench/answers.py`` (answerable ones, and ones whose answering passage
was left out of the index): `kimas retrieve`, the evidence packed as ``Pipeline.ask`` packs it for this
chat model, the grounded quote and the lexical answerability score over that evidence, and the chat
model's extract-and-verify judgement (the words it copies, whether they verify, and how much of them a
source holds). One JSON line per question in ``bench/.cache/answers/policy-<model>.jsonl``; a question
already there is not asked again. The split: a question is held out when its position in the list is
odd (``split`` = "tune" or "holdout").
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

from bench.devkit import contains_answer, kimas_batch, squad_items
from bench.grounding import Grounding1, hits_of
from bench.workspace import prepare_squad
from kimas_desktop.answer.filter import pack
from kimas_desktop.answer.signals.verify import AnswerCheck
from kimas_desktop.config import ChatModelConfig, GroundingConfig, SummarizerConfig
from local_models import build_chat_model

ROOT = Path(__file__).resolve().parents[1]


def check(chat: Any, question: str, packed: list[Any]) -> dict[str, Any]:
    try:
        verdict = AnswerCheck(chat).judge(question, packed)
    except Exception as err:  # a failed judgement is a signal too
        return {"failed": str(err)[:200]}
    return {
        "answerable": verdict.answerable,
        "words": verdict.words,
        "reason": verdict.reason,
        "kind": verdict.kind,
        "held": verdict.held,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--answerable", type=int, default=100)
    p.add_argument("--unanswerable", type=int, default=100)
    p.add_argument("--model", choices=["bigger", "embedded"], default="bigger")
    p.add_argument(
        "--band",
        nargs=2,
        type=float,
        default=(0.25, 0.6),
        help="ask the model only where the lexical score is in [low, high): the policy can use it nowhere else",
    )
    args = p.parse_args()
    cache = ROOT / "bench" / ".cache" / "answers"
    data, answerable, unanswerable = prepare_squad(cache, 300, 100)
    pairs = itertools.zip_longest(
        [("answerable", q) for q in answerable[: args.answerable]],
        [("unanswerable", q) for q in unanswerable[: args.unanswerable]],
    )
    questions = [x for pair in pairs for x in pair if x is not None]  # alternate, so a cut run is balanced
    retrieved = cache / "policy-retrieved.json"
    if retrieved.exists():
        results = json.loads(retrieved.read_text())
    else:
        results = kimas_batch("retrieve", data, squad_items([*answerable, *unanswerable]))
        retrieved.write_text(json.dumps(results))
    if args.model == "bigger":
        from bench.bigger_model import bigger_model

        path = str(bigger_model())
    else:
        path = ""
    chat = build_chat_model(ChatModelConfig(path=path, prompt_cache_mb=256))
    grounding = Grounding1(data, GroundingConfig())
    out = cache / f"policy-{args.model}.jsonl"
    done = {json.loads(line)["qid"] for line in out.read_text().splitlines()} if out.exists() else set()
    budget = SummarizerConfig().context_tokens
    with out.open("a") as f:
        for label, q in questions:
            if q.qid in done:
                continue
            position = (answerable if label == "answerable" else unanswerable).index(q)
            result = results[q.qid]
            packed, _ = pack(hits_of(result), budget, chat.count_tokens)
            ids = {h.chunk.chunk_id for h in packed}
            g = grounding.run(q.text, {**result, "hits": [h for h in result["hits"] if h["chunk_id"] in ids]})
            t = time.perf_counter()
            if not args.band[0] <= g["score"] < args.band[1]:
                v: dict[str, Any] = {"skipped": "outside the band"}
            else:
                v = check(chat, q.text, packed)
            record = {
                "qid": q.qid,
                "label": label,
                "split": "holdout" if position % 2 else "tune",
                "question": q.text,
                "gold": q.answers,
                "score": g["score"],
                "features": g["features"],
                "quote": g["quote"],
                "quote_has_gold": contains_answer(g["quote"], q.answers) if label == "answerable" else None,
                "evidence_has_gold": any(contains_answer(h.chunk.text, q.answers) for h in packed),
                "sources": len(packed),
                "check": v,
                "check_ms": round((time.perf_counter() - t) * 1000),
            }
            f.write(json.dumps(record) + "\n")
            f.flush()
            print(label, record["split"], g["score"], v, file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
