"""How long the Evaluation tab's default run takes (issue 46): the seed papers (``../shared/papers/``, English
and Chinese files as two collections) indexed with the embedded models, the default test set made
(``DEFAULT_QUESTIONS``), then run with ``DEFAULT_ANSWERS`` questions answered by the chat model, as
`kimas eval` and the tab do (``Evaluation.run``). Prints the wall time, the seconds a question takes
(retrieval only, answered), the estimate of time left as the run saw it at a quarter, half and three
quarters of the way, and the size that fits a budget at those speeds. Each question's CPU seconds (this
process and the model worker it starts) are printed too: on a shared machine the wall time follows the
load, the CPU time does not, and on a quiet 2-core machine a question's wall time lies between its CPU
time over 2 (both cores busy) and its CPU time.

    python -m bench.eval_time [--questions N] [--answers N] [--budget 120] [--preset P]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import time
from itertools import pairwise
from pathlib import Path

import psutil

from app.evaluation.evaluation import DEFAULT_ANSWERS, DEFAULT_QUESTIONS, Evaluation
from app.evaluation.run import RunProgress
from app.paths import resolve_paths
from bench.workspace import configure, index_folders
from kimas_desktop.config import load_config

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ROOT.parent / "shared" / "papers"
CACHE = ROOT / "bench" / ".cache" / "eval_time"


def folders(cache: Path) -> dict[str, Path]:
    """The seed papers as two collections: the English ones and the Chinese ones."""
    out = {"papers": cache / "docs" / "papers", "papers-zh": cache / "docs" / "papers-zh"}
    for folder in out.values():
        folder.mkdir(parents=True, exist_ok=True)
    for f in PAPERS.glob("*.txt"):
        shutil.copy(f, out["papers-zh" if f.name.endswith(".zh.txt") else "papers"] / f.name)
    return out


def prepare(cache: Path) -> Path:
    data = cache / "data"
    shutil.rmtree(data, ignore_errors=True)
    runtime = configure(data, folders(cache))
    try:
        print(f"indexed in {index_folders(runtime, folders(cache)):.1f} s")
    finally:
        runtime.close()
    return data


def _load() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (None where the OS has none: Windows)."""
    return [round(x, 1) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            name = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
    except OSError:
        name = platform.processor()
    return f"{name} × {os.cpu_count()}"


LOAD_BEFORE = _load()


def fits(retrieve_s: float, answer_s: float, budget: float, answers: int) -> int:
    """Questions a run of ``answers`` answered ones can hold within ``budget`` seconds."""
    return int((budget - answers * answer_s) / retrieve_s) + answers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=DEFAULT_QUESTIONS)
    ap.add_argument("--answers", type=int, default=DEFAULT_ANSWERS)
    ap.add_argument("--budget", type=float, default=120.0)
    ap.add_argument("--preset", default=None)
    ap.add_argument("--keep", action="store_true", help="reuse the indexed data dir of the last run")
    args = ap.parse_args()
    global LOAD_BEFORE
    data = CACHE / "data" if args.keep and (CACHE / "data").exists() else prepare(CACHE)
    LOAD_BEFORE = _load()
    paths = resolve_paths(str(data), None)
    from app.runtime import Runtime

    runtime = Runtime(paths, load_config(paths.config_file))
    evaluation = Evaluation(runtime, lambda: load_config(paths.config_file), paths.config_file)
    try:
        start = time.perf_counter()
        test_set = evaluation.build_set(args.questions)
        made = time.perf_counter() - start
        seen: list[tuple[float, RunProgress, float]] = []
        start = time.perf_counter()
        run = evaluation.run(
            test_set.set_id,
            args.preset,
            answers=args.answers,
            progress=lambda p: seen.append((time.perf_counter() - start, p, _cpu_seconds())),
        )
        wall = time.perf_counter() - start
    finally:
        runtime.close()
    report(run, test_set.questions, made, wall, seen, args)


def _cpu_seconds() -> float:
    """CPU seconds of this process and its children (the model worker), user and system."""
    me = psutil.Process()
    total = 0.0
    for proc in [me, *me.children(recursive=True)]:
        try:
            t = proc.cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system
    return total


def report(run, questions, made, wall, seen, args) -> None:  # type: ignore[no-untyped-def]
    plain = [r.seconds for r in run.results if not r.asked and r.seconds is not None]
    asked = [r.seconds for r in run.results if r.asked and r.seconds is not None]
    cpu = [b[2] - a[2] for a, b in pairwise(seen)]  # from the second question on
    kinds = [r.asked for r in run.results[1:]]
    cpu_plain = [c for c, k in zip(cpu, kinds, strict=False) if not k]
    cpu_asked = [c for c, k in zip(cpu, kinds, strict=False) if k]
    r_s, a_s = statistics.fmean(plain), statistics.fmean(asked) if asked else 0.0
    estimates = []
    for share in (0.25, 0.5, 0.75):
        at, p, _ = seen[min(len(seen) - 1, int(share * len(seen)))]
        estimates.append(
            {"at_s": round(at, 1), "said_left_s": p.seconds_left, "was_left_s": round(wall - at, 1)}
        )
    out = {
        "cpu": _cpu(),
        "load_before_after": [LOAD_BEFORE, _load()],
        "questions": len(questions),
        "answered": len(asked),
        "status": run.status,
        "set_made_s": round(made, 1),
        "run_s": round(wall, 1),
        "retrieval_only_s_mean": round(r_s, 3),
        "retrieval_only_s_median": round(statistics.median(plain), 3),
        "answered_s_mean": round(a_s, 2),
        "answered_s_median": round(statistics.median(asked), 2) if asked else None,
        "answered_s": asked,
        "cpu_s_retrieval_only_mean": round(statistics.fmean(cpu_plain), 3) if cpu_plain else None,
        "cpu_s_answered": [round(c, 1) for c in cpu_asked],
        "estimates": estimates,
        f"questions_within_{args.budget:g}_s_with_{args.answers}_answered": fits(
            r_s, a_s, args.budget, args.answers
        ),
        "figures": run.metrics.get("all", {}),
    }
    print(json.dumps(out, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
