"""Conversations that change topic (issue 23): does a turn use the history only when it needs it?

    nice .venv/bin/python -m bench.topic_shift [--questions 300] [--quac-conversations 100] [--quac-skip 0]
        [--old-ref 208a2f9] [--cast-llm 0] [--parts shift quac cast]

- **shift**: self-contained SQuAD-Shifts (new Wikipedia) questions asked alone, and after a 2–3 turn QuAC
  conversation about something else (the conversation's questions with their gold answers). Both
  collections are indexed by the product's indexer; recall@5 through `kimas retrieve --batch`, old
  (``--old-ref``, the context manager before the decision) vs new, in the same run. A hit is a chunk of
  the gold article holding a gold answer.
- **quac**: QuAC follow-up turns with their history, recall@5, old vs new (a hit is a chunk of the gold
  passage's file), so a follow-up is seen to keep what it had. ``--quac-skip K`` measures the
  conversations after the first K instead (the shift part's histories come from the first 300).
- **cast**: TREC CAsT 2019's labels (SE: self-contained; FT: needs the first turn's topic; PT: needs
  the previous turn), the LLM-free decision on every utterance, accuracy of "needs the history or not"
  per label; ``--cast-llm N`` adds the bigger benchmark model's judgement on N test utterances.

Every figure is given on the tuning half (even positions; QuAC's even-numbered conversations; CAsT's
train split) and the held-out half (odd positions; odd-numbered conversations; CAsT's test split). The
decision's thresholds were chosen on the tuning half only.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from bench.conversation_sets import DOMAIN, ROOT, K, conversation_halves, conversations, halves, quac_docs
from bench.devkit import (
    DEVKIT,
    contains_answer,
    history_messages,
    kimas_batch,
    quac_turns,
    squad_questions,
    write_quac,
    write_squad,
)
from bench.workspace import configure, index_folders, old_tree
from kimas_desktop.types import Message


def recall(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 3) if flags else None


def prepare(cache: Path, precision: str = "") -> tuple[Path, dict[str, str]]:
    """``precision``: the embedded embedder's, saved in the data dir's config (the old side of the
    comparison only knows the fp32 model, and both sides search the same index)."""
    docs = cache / "docs"
    where = write_squad(DOMAIN, docs / "wiki")
    write_quac(docs / "quac")
    data = cache / "data"
    folders = {"wiki": docs / "wiki", "quac": docs / "quac"}
    pinned = {"embedding": {"precision": precision}} if precision else {}
    index_folders(configure(data, folders, **pinned), folders)
    return data, where


def retrieve(data: Path, items: list[dict[str, Any]], root: Path | None) -> dict[str, dict[str, Any]]:
    results = kimas_batch("retrieve", data, items, root=root)
    for it in items:  # kept beside the figures, to read what each question found
        results[it["id"]]["item"] = it
    return results


def hits(result: dict[str, Any]) -> list[tuple[str, str]]:
    return [(Path(h["source"]).name, h["text"]) for h in result["hits"][:K]]


def shift(args: argparse.Namespace, cache: Path, data: Path, where: dict[str, str]) -> dict[str, Any]:
    questions = squad_questions(DOMAIN, where, args.questions, seed=23)
    convs = conversations(args.quac_conversations * 3, quac_docs(cache), args.answer_sources)
    random.Random(23).shuffle(convs)

    def item(i: int, q: Any, history: bool) -> dict[str, Any]:
        hist = convs[i % len(convs)] if history else []
        return {"id": q.qid, "question": q.text, "history": hist}

    alone = retrieve(data, [item(i, q, False) for i, q in enumerate(questions)], None)
    runs = {"alone": alone}
    for variant, root in (("old", old_tree(cache, args.old_ref)), ("new", None)):
        runs[f"after a conversation ({variant})"] = retrieve(
            data, [item(i, q, True) for i, q in enumerate(questions)], root
        )
    out: dict[str, Any] = {"questions": len(questions)}
    for part, qs in halves(questions).items():
        out[part] = {
            name: recall(
                [
                    any(s == q.gold_file and contains_answer(t, q.answers) for s, t in hits(r[q.qid]))
                    for q in qs
                ]
            )
            for name, r in runs.items()
        }
    out["new decisions"] = dict(
        Counter(r.get("decision", {}).get("depends") for r in runs["after a conversation (new)"].values())
    )
    (cache / "shift-runs.json").write_text(json.dumps(runs))
    return out


def quac(args: argparse.Namespace, cache: Path, data: Path) -> dict[str, Any]:
    skipped = {t.qid for t in quac_turns(args.quac_skip)} if args.quac_skip else set()
    turns = [
        t for t in quac_turns(args.quac_skip + args.quac_conversations) if t.history and t.qid not in skipped
    ]
    docs = quac_docs(cache)
    items = [
        {
            "id": t.qid,
            "question": t.question,
            "history": history_messages(t.history, docs / t.gold_file, args.answer_sources),
        }
        for t in turns
    ]
    runs = {
        "raw question": retrieve(data, [{**it, "history": []} for it in items], None),
        "old": retrieve(data, items, old_tree(cache, args.old_ref)),
        "new": retrieve(data, items, None),
    }
    out: dict[str, Any] = {"follow_up_turns": len(turns)}
    for part, ts in conversation_halves(turns).items():
        out[part] = {
            name: recall([any(s == t.gold_file for s, _ in hits(r[t.qid])) for t in ts])
            for name, r in runs.items()
        }
    out["new decisions"] = dict(Counter(r.get("decision", {}).get("depends") for r in runs["new"].values()))
    (cache / "quac-runs.json").write_text(json.dumps(runs))
    return out


def cast_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DEVKIT / "cast2019_utterances" / "utterances.jsonl").open()]


def cast_histories(rows: list[dict[str, Any]]) -> list[tuple[dict[str, Any], list[Message]]]:
    """Each utterance with the topic's earlier utterances as the history (CAsT has no answers)."""
    seen: dict[str, list[Message]] = defaultdict(list)
    out: list[tuple[dict[str, Any], list[Message]]] = []
    for r in rows:
        out.append((r, list(seen[r["topic"]])))
        seen[r["topic"]].append(Message("user", r["utterance"]))
    return out


def accuracy(pairs: list[tuple[str, bool]]) -> dict[str, Any]:
    """Per gold label: the share whose "needs the history" matches (SE: no; FT/PT: yes)."""
    out: dict[str, Any] = {}
    for label in ("SE", "FT", "PT"):
        flags = [ok for g, ok in pairs if g == label]
        out[label] = recall(flags)
    out["all"] = recall([ok for _, ok in pairs])
    out["n"] = len(pairs)
    return out


def cast(args: argparse.Namespace, data: Path) -> dict[str, Any]:
    from app.paths import resolve_paths
    from app.runtime import Runtime
    from kimas_desktop.config import load_config
    from kimas_desktop.context.dependence import TurnDependence

    paths = resolve_paths(str(data), None)
    runtime = Runtime(paths, load_config(paths.config_file))
    judge = TurnDependence(runtime.embedder(runtime.config))
    cases = cast_histories(cast_rows())
    out: dict[str, Any] = {}
    for split in ("train", "test"):
        mine = [(r, h) for r, h in cases if r["split"] == split]
        decided = [(r, judge.decide(r["utterance"], h)) for r, h in mine]
        pairs = [(r["label"], d.uses_history == (r["label"] != "SE")) for r, d in decided]
        later = [p for (r, _), p in zip(decided, pairs, strict=True) if r["turn"] > 1]
        out[f"{split}: all turns"] = accuracy(pairs)
        out[f"{split}: turns after the first"] = accuracy(later)
    if args.cast_llm:
        out["test: bigger model"] = cast_llm(args, [(r, h) for r, h in cases if r["split"] == "test"], judge)
    return out


def cast_llm(args: argparse.Namespace, cases: list[Any], judge: Any) -> dict[str, Any]:
    from bench.bigger_model import bigger_model
    from kimas_desktop.config import ChatModelConfig, ContextConfig
    from kimas_desktop.context.manager import QueryContextualizer
    from local_models import build_chat_model

    chat = build_chat_model(ChatModelConfig(path=str(bigger_model()), prompt_cache_mb=256))
    contextualizer = QueryContextualizer(chat, ContextConfig(rewrite="llm"), judge)
    picked = [(r, h) for r, h in cases if h][: args.cast_llm]
    pairs: list[tuple[str, bool]] = []
    methods: Counter[str] = Counter()
    for r, h in picked:
        rw = contextualizer.rewrite(r["utterance"], h)
        methods[rw.method] += 1
        pairs.append((r["label"], rw.decision.uses_history == (r["label"] != "SE")))
    return {**accuracy(pairs), "methods": dict(methods)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--questions", type=int, default=300)
    p.add_argument("--quac-conversations", type=int, default=100)
    p.add_argument(
        "--quac-skip",
        type=int,
        default=0,
        help="the quac part measures the conversations after this many (fresh ones no round has looked at)",
    )
    p.add_argument("--old-ref", default="208a2f9", help="the product before the turn decision")
    p.add_argument("--cast-llm", type=int, default=0, help="CAsT test utterances judged by the bigger model")
    p.add_argument("--parts", nargs="+", choices=["shift", "quac", "cast"], default=["shift", "quac", "cast"])
    p.add_argument("--embedding-precision", default="fp32", choices=["fp32", "int8"])
    p.add_argument(
        "--no-answer-sources",
        dest="answer_sources",
        action="store_false",
        help="the history's answers name no file (as before the app kept them with the conversation)",
    )
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "topic"))
    args = p.parse_args()
    cache = Path(args.cache)
    data, where = prepare(cache, args.embedding_precision)
    report: dict[str, Any] = {}
    if "shift" in args.parts:
        report["shift"] = shift(args, cache, data, where)
        print("shift", json.dumps(report["shift"]), file=sys.stderr, flush=True)
    if "quac" in args.parts:
        report["quac"] = quac(args, cache, data)
        print("quac", json.dumps(report["quac"]), file=sys.stderr, flush=True)
    if "cast" in args.parts:
        report["cast"] = cast(args, data)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
