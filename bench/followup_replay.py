"""Follow-ups regained (issue 45): an in-process replay of ``bench/topic_shift.py``'s three retrieval sets.

    nice .venv/bin/python -m bench.followup_replay [--variant product|kept-rewrite|decline-files|decline-kept]
        [--turns all|changed|unchanged]
        [--sets shift quac100 quac501] [--cache bench/.cache/topic]

Runs ``Pipeline.retrieve`` of today's product over the index ``bench/topic_shift.py`` builds (same items,
same halves) and keeps each turn's top-5 files and hit flag in ``<cache>/replay-<variant>.json``, so a
policy can be compared with another on the turns it can change (``--turns changed``: follow-ups with no
reading of their own whose answers name files). ``--variant kept-rewrite`` replays the
variant tried for issue 45 and not kept (a follow-up that refers back also searches its rewrite within the
files its answers came from). ``decline-files``: a declined turn of the history ("I don't know.") names
the file its own search put first, as the app's decline shows that passage; ``decline-kept``: both.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from bench.conversation_sets import DOMAIN, ROOT, K, conversation_halves, conversations, quac_docs
from bench.devkit import NO_ANSWER, contains_answer, history_messages, quac_turns, squad_questions


def _items(cache: Path, where: dict[str, str], sets: list[str]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    docs = quac_docs(cache)
    if "shift" in sets:
        questions = squad_questions(DOMAIN, where, 300, seed=23)
        convs = conversations(300, docs, True)
        random.Random(23).shuffle(convs)
        out["shift"] = [
            {
                "id": q.qid,
                "question": q.text,
                "history": convs[i % len(convs)],
                "gold": q.gold_file,
                "answers": list(q.answers),
                "half": "tune" if i % 2 == 0 else "holdout",
            }
            for i, q in enumerate(questions)
        ]
    for name, skip, n in (("quac100", 0, 100), ("quac501", 500, 200)):
        if name not in sets:
            continue
        skipped = {t.qid for t in quac_turns(skip)} if skip else set()
        turns = [t for t in quac_turns(skip + n) if t.history and t.qid not in skipped]
        side = {t.qid: part for part, ts in conversation_halves(turns).items() for t in ts}
        out[name] = [
            {
                "id": t.qid,
                "question": t.question,
                "history": history_messages(t.history, docs / t.gold_file),
                "gold": t.gold_file,
                "answers": [],
                "half": side[t.qid],
            }
            for t in turns
        ]
    return out


def _hit(item: dict[str, Any], result: Any) -> bool:
    top = [(Path(h.chunk.source).name, h.chunk.text) for h in result.hits[:K]]
    if item["answers"]:
        return any(s == item["gold"] and contains_answer(t, tuple(item["answers"])) for s, t in top)
    return any(s == item["gold"] for s, _ in top)


def _row(item: dict[str, Any], result: Any) -> dict[str, Any]:
    d = result.decision
    return {
        "hit": _hit(item, result),
        "half": item["half"],
        "question": item["question"],
        "depends": d.depends if d else None,
        "reason": d.reason if d else "",
        "query": result.query,
        "top": [Path(h.chunk.source).name for h in result.hits[:K]],
    }


class DeclineFiles:
    """A declined turn of the history ("I don't know.") names the file of the passage its own search put
    first, as the app's decline shows it (the variant ``decline-files``): each such turn is searched
    with the history before it (itself filled the same way), once."""

    def __init__(self, pipeline: Any) -> None:
        self._pipeline = pipeline
        self._top: dict[str, list[str]] = {}

    def fill(self, history: list[dict[str, Any]]) -> list[dict[str, Any]]:
        from cli.render import parse_history

        out: list[dict[str, Any]] = []
        for m in history:
            if m["role"] == "assistant" and m["content"] == NO_ANSWER and not m.get("sources"):
                before, question = out[:-1], out[-1]["content"]
                key = json.dumps([before, question])
                if key not in self._top:
                    hits = self._pipeline.retrieve(question, parse_history(before, "declined")).hits
                    self._top[key] = [hits[0].chunk.source] if hits else []
                m = {**m, "sources": self._top[key]}
            out.append(m)
        return out


def run(
    pipeline: Any,
    items: list[dict[str, Any]],
    changed_only: bool | None,
    done: dict[str, Any],
    declines: DeclineFiles | None = None,
) -> dict[str, Any]:
    from cli.render import parse_history

    out: dict[str, Any] = {}
    start = time.monotonic()
    for n, item in enumerate(items):
        if item["id"] in done:
            out[item["id"]] = done[item["id"]]
            continue
        raw = declines.fill(item["history"]) if declines else item["history"]
        history = parse_history(raw, item["id"])
        if changed_only is not None and changed_only != _changes(item["question"], history, pipeline):
            continue
        out[item["id"]] = _row(item, pipeline.retrieve(item["question"], history))
        if n % 25 == 0:
            print(f"  {n}/{len(items)} {time.monotonic() - start:.0f}s", file=sys.stderr, flush=True)
    return out


def _changes(question: str, history: list[Any], pipeline: Any) -> bool:
    """Whether issue 45's change can touch this turn: a follow-up with no reading of its own whose
    turns' answers name files (else its search is the one before)."""
    from kimas_desktop.context.manager import QueryContextualizer  # noqa: F401

    decision = pipeline._llm_stages(pipeline._chat).contextualizer.rewrite(question, history).decision
    used = decision.turns
    return decision.uses_history and not decision.own_reading and any(history[i].sources for i in used)


def figures(rows: dict[str, dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for half in ("tune", "holdout"):
        flags = [r["hit"] for r in rows.values() if r["half"] == half]
        out[half] = round(sum(flags) / len(flags), 3) if flags else None
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--variant", default="product", choices=["product", "kept-rewrite", "decline-files", "decline-kept"]
    )
    p.add_argument("--sets", nargs="+", default=["shift", "quac100", "quac501"])
    p.add_argument(
        "--turns",
        choices=["all", "changed", "unchanged"],
        default="all",
        help="only the turns issue 45's change can touch, or only the others",
    )
    p.add_argument("--limit", type=int, default=0, help="the first N items of each set (a sample)")
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "topic"))
    args = p.parse_args()
    from app.paths import read_config, resolve_paths
    from app.runtime import Runtime
    from bench.devkit import write_squad

    cache = Path(args.cache)
    where = write_squad(DOMAIN, cache / "docs" / "wiki")
    paths = resolve_paths(str(cache / "data"), None)
    pipeline = Runtime(paths, read_config(paths, preset=None)).pipeline()
    if args.variant in ("kept-rewrite", "decline-kept"):
        _keep_rewrites_to_answer_files()
    declines = DeclineFiles(pipeline) if args.variant.startswith("decline") else None
    store = cache / f"replay-{args.variant}.json"
    done: dict[str, Any] = json.loads(store.read_text()) if store.exists() else {}
    for name, items in _items(cache, where, args.sets).items():
        items = items[: args.limit] if args.limit else items
        done[name] = {
            **done.get(name, {}),
            **run(
                pipeline,
                items,
                {"all": None, "changed": True, "unchanged": False}[args.turns],
                done.get(name, {}),
                declines,
            ),
        }
        store.write_text(json.dumps(done))
        print(name, json.dumps(figures(done[name])), file=sys.stderr, flush=True)
    print(json.dumps({name: figures(rows) for name, rows in done.items()}, indent=2))


def _keep_rewrites_to_answer_files() -> None:
    """The variant tried and not kept (issue 45): a follow-up that refers back or is too short (no reading
    of its own) also searches its rewrite within the files its answers came from, fused by rank, under the
    same drop rule (the rewrite's own candidates must hold one of those files)."""
    from kimas_desktop.context.dependence import TurnDecision
    from kimas_desktop.retrieval.turn_search import Reading, TurnSearch

    def sources(self: TurnDecision, history: Any) -> tuple[str, ...]:
        turns = self.turns if self.uses_history else range(self.topic[0], len(history)) if self.topic else ()
        return tuple(dict.fromkeys(f for i in turns if i < len(history) for f in history[i].sources))

    readings = TurnSearch.readings

    def kept(
        self: TurnSearch, question: str, history: Any, rewrite: Any, routes: Any, asked_routes: Any
    ) -> list[Reading]:
        out = readings(self, question, history, rewrite, routes, asked_routes)
        d = rewrite.decision
        if out[-1].files and d.uses_history and not d.own_reading:
            out[-1] = Reading(rewrite.query, out[-1].collections, out[-1].files)
        return out

    TurnDecision.sources = sources  # type: ignore[method-assign]
    TurnSearch.readings = kept  # type: ignore[method-assign]


if __name__ == "__main__":
    main()
