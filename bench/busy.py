"""A busy laptop: the app answers while it indexes a large upload, side by side with answering on a quiet
machine, in one run (issue 28).

    nice -n 5 .venv/bin/python -m bench.busy [--questions 20] [--articles 8] [--big 2000]

The app as people run it (``DesktopApp`` over the real runtime and the embedded models, in this process):
collection ``wiki`` holds the first ``--articles`` SQuAD-Shifts new_wiki articles (the questions come from
them); collection ``big`` holds ``--big`` passages of the other three domains, one file each (a large
upload). Each question is asked three ways, turn about (the order rotates per question), each in a new
conversation with the chat model's prompt cache emptied first:

- ``quiet``: nothing else runs;
- ``busy``: ``big`` is being re-embedded from its files (the indexer's whole work: reading, chunking,
  embedding, writing) when the question is asked; the app's own policy holds (syncs wait while an
  answer is written);
- ``busy, no hold``: the same, with the hold switched off (every sync runs beside the answer, as before
  issue 28).

Reported per way: first token and total (median, p90), the first token's paired ratio to ``quiet``, and
every LLM step that fell back or hit its time limit (from the answer's trace). Prints one JSON report.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from app.desktop import DesktopApp
from app.paths import resolve_paths
from app.runtime import Runtime
from app.settings.config_store import ConfigStore
from bench.devkit import DEVKIT, SQUAD, squad_questions, write_squad
from bench.machine import cpu_model
from kimas_desktop.config import CollectionConfig, load_config
from kimas_desktop.trace import AgenticStage, AnswerCheckStage, FirstTokenStage, TotalStage

ROOT = Path(__file__).resolve().parents[1]

WIKI = "squadshifts_new_wiki"
WAYS = ("quiet", "busy", "busy, no hold")


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def prepare(cache: Path, n_articles: int, n_big: int) -> tuple[Path, Path, list[Any]]:
    docs = cache / "docs"
    where = write_squad(WIKI, docs / "all")
    kept = sorted(set(where.values()))[:n_articles]
    wiki = docs / "wiki"
    wiki.mkdir(parents=True, exist_ok=True)
    for name in kept:
        target = wiki / name
        if not target.exists():
            target.write_text((docs / "all" / name).read_text("utf-8"), "utf-8")
    questions = squad_questions(WIKI, {p: f for p, f in where.items() if f in kept}, 10**6)
    big = docs / "big"
    big.mkdir(parents=True, exist_ok=True)
    others = [d for d in SQUAD if d != WIKI]
    rows = [r for d in others for r in _jsonl(DEVKIT / d / "corpus.jsonl")]
    for i, row in enumerate(rows[:n_big]):
        target = big / f"p{i:05}.md"
        if not target.exists():
            target.write_text(f"# {row.get('title') or row['_id']}\n\n{row['text'].strip()}\n", "utf-8")
    return wiki, big, questions


def wait(condition: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def ask(desk: DesktopApp, question: str) -> dict[str, Any]:
    """One answer in a new conversation, the model's prompt cache emptied first (each way asks the same
    question, and a cached prompt would start the later ways' answers at once)."""
    clear = getattr(desk.runtime.chat(desk.config), "clear_cache", None)
    if clear is not None:
        clear()
    conv = desk.chat.new_conversation()
    turns = list(desk.chat.ask(conv, question))
    turn = turns[-1] if turns else None
    assert turn is not None and turn.trace is not None, f"no answer: {turn}"
    trace = turn.trace
    first = trace.find(FirstTokenStage)
    total = trace.find(TotalStage)
    limits = [
        f"{type(s).__name__}: {s.fallback}"
        for s in trace.stages
        if isinstance(s, AgenticStage | AnswerCheckStage) and s.fallback
    ]
    return {
        "first_token_ms": first.ms if first else None,
        "total_ms": total.ms if total else None,
        "limits": limits,
        "error": turn.error,
    }


def start_busy(desk: DesktopApp) -> None:
    """Re-embed ``big`` from its files and return once it is embedding."""
    desk.indexing.submit("big", "bench", reembed=True)
    assert wait(lambda: desk.indexing.state().active and desk.indexing.state().files_done > 0, 120), (
        "the re-embedding did not start"
    )


def stop_busy(desk: DesktopApp) -> None:
    desk.indexing.cancel("big")
    assert wait(desk.indexing.idle, 120), "the re-embedding did not stop"


def p90(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.9 * len(values)) - 1)]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--questions", type=int, default=20)
    p.add_argument("--articles", type=int, default=8)
    p.add_argument("--big", type=int, default=2000, help="passages in the large upload")
    p.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache" / "busy")
    args = p.parse_args()
    wiki, big, questions = prepare(args.cache, args.articles, args.big)
    data = args.cache / "data"
    paths = resolve_paths(str(data), None)
    config = load_config(paths.config_file).updated(
        collections={
            "wiki": CollectionConfig(folders=[str(wiki)]).model_dump(),
            "big": CollectionConfig(folders=[str(big)]).model_dump(),
        },
    )
    desk = DesktopApp(Runtime(paths, config), ConfigStore(paths.config_file, config))
    desk.start(sync=False)
    results: dict[str, list[dict[str, Any]]] = {w: [] for w in WAYS}
    try:
        t = time.perf_counter()
        for name in ("wiki", "big"):
            desk.indexing.submit(name, "bench")
        assert wait(
            lambda: desk.indexing.idle() and all(c.chunks for c in desk.knowledge.collections()), 3600
        )
        print(f"indexed in {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
        ask(desk, questions[0].text)  # warm up: models loaded, caches filled
        hold = desk.chat._answering  # the app's policy: syncs wait while an answer is written
        for i, q in enumerate(questions[1 : args.questions + 1]):
            order = WAYS[i % 3 :] + WAYS[: i % 3]
            for way in order:
                desk.chat._answering = nullcontext if way == "busy, no hold" else hold
                if way != "quiet":
                    start_busy(desk)
                out = ask(desk, q.text)
                if way != "quiet":
                    out["indexing_still_running"] = desk.indexing.state().active
                    stop_busy(desk)
                results[way].append(out)
                print(i, way, json.dumps(out), file=sys.stderr, flush=True)
    finally:
        desk.chat._answering = desk.indexing.answering
        desk.close()
    report: dict[str, Any] = {"cpu": cpu_model(), "questions": len(results["quiet"])}
    quiet = [r["first_token_ms"] for r in results["quiet"]]
    for way, rows in results.items():
        first = [r["first_token_ms"] for r in rows if r["first_token_ms"] is not None]
        total = [r["total_ms"] for r in rows if r["total_ms"] is not None]
        ratios = [
            r["first_token_ms"] / q
            for r, q in zip(rows, quiet, strict=True)
            if r["first_token_ms"] is not None and q
        ]
        report[way] = {
            "first_token_ms_median": round(statistics.median(first)) if first else None,
            "first_token_ms_p90": round(p90(first)) if first else None,
            "total_ms_median": round(statistics.median(total)) if total else None,
            "first_token_ratio_to_quiet_median": round(statistics.median(ratios), 2) if ratios else None,
            "answers": len(first),
            "limits_hit": [x for r in rows for x in r["limits"]],
            "errors": [r["error"] for r in rows if r["error"]],
            "indexing_ran_through": sum(1 for r in rows if r.get("indexing_still_running")),
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
