"""Peak memory (RSS of the whole process tree: the app and its model workers) while answering questions.

    .venv/bin/python -m bench.memory --root /tmp/before --root . [--questions 50] [--articles N]

Each ``--root`` is a checkout of KIMAs Desktop run with this interpreter (say, the last release in a git
worktree next to the current tree), measured one after the other on the same indexed collections:
``kimas ask --batch`` on the questions, then the app (``launch.py``) answering the same questions through
its Gradio API, as the browser does. RSS is sampled every 50 ms over the process and all its descendants.
Indexes two SQuAD-Shifts domains of the development kit once (in --cache).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.devkit import squad_questions, write_squad
from bench.machine import cpu_model, tree_rss
from bench.workspace import link_subset

ROOT = Path(__file__).resolve().parents[1]

DOMAINS = ("squadshifts_new_wiki", "squadshifts_nyt")


class PeakSampler:
    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, tree_rss(self.pid))
            time.sleep(0.05)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def prepare(cache: Path, n: int, articles: int = 0) -> tuple[Path, list[dict[str, Any]]]:
    """Index the domains once (``articles``: only their first N articles, in a data dir of its own) and
    pick ``n`` questions whose passages are indexed."""
    data = cache / ("data" if not articles else f"data-first-{articles}")
    questions = []
    for name in DOMAINS:
        folder = cache / "docs" / name
        where = write_squad(name, folder)
        if articles:
            kept = sorted(set(where.values()))[:articles]
            folder = cache / f"first-{articles}" / name
            if not folder.exists():
                link_subset(cache / "docs" / name, kept, folder)
            where = {pid: f"{name}-{file}" for pid, file in where.items() if file in kept}
        questions += squad_questions(name, where, 10**6)[: n // len(DOMAINS) + 1]
        if not (data / f".indexed-{name}").exists():
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "cli.main",
                    "index",
                    str(folder),
                    "--collection",
                    name.split("_", 1)[1],
                    "--data-dir",
                    str(data),
                ],
                cwd=ROOT,
                check=True,
                stdout=subprocess.DEVNULL,
            )
            (data / f".indexed-{name}").touch()
    return data, [{"id": q.qid, "question": q.text} for q in questions[:n]]


def cli_run(root: Path, data: Path, items: list[dict[str, Any]]) -> tuple[int, float]:
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        f.writelines(json.dumps(it) + "\n" for it in items)
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "ask", "--batch", f.name, "--json", "--data-dir", str(data)],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    sampler = PeakSampler(proc.pid)
    code = proc.wait()
    peak = sampler.stop()
    os.unlink(f.name)
    if code:
        raise SystemExit(f"kimas ask --batch failed in {root} (exit {code})")
    return peak, time.perf_counter() - started


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def app_run(root: Path, data: Path, items: list[dict[str, Any]]) -> tuple[int, float]:
    from gradio_client import Client

    port = free_port()
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False"}
    proc = subprocess.Popen(
        [sys.executable, "launch.py", "--data-dir", str(data), "--port", str(port)],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    sampler = PeakSampler(proc.pid)
    try:
        deadline = time.time() + 120
        while True:
            try:
                # The app refuses a state change without its own page's Origin (ui/server/web_guard.py).
                origin = {"Origin": f"http://127.0.0.1:{port}"}
                client = Client(f"http://127.0.0.1:{port}/", verbose=False, headers=origin)
                break
            except Exception:
                if time.time() > deadline or proc.poll() is not None:
                    raise SystemExit(f"the app in {root} did not start") from None
                time.sleep(1)
        started = time.perf_counter()
        answered = 0
        for item in items:
            # As the page does: the question box's submit puts the question into a session state
            # ("/lambda"), then "/on_submit" answers it in the session's conversation (its input is the
            # sidebar search); it returns the chat messages first.
            client.predict(item["question"], api_name="/lambda")
            messages, *_ = client.predict("", api_name="/on_submit")
            answered += bool(messages) and messages[-1].get("role") == "assistant"
        elapsed = time.perf_counter() - started
        if answered < len(items):
            raise SystemExit(f"the app answered {answered} of {len(items)} questions")
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
    return sampler.stop(), elapsed


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", action="append", required=True, type=Path)
    p.add_argument("--questions", type=int, default=50)
    p.add_argument("--parts", nargs="+", choices=["cli", "app"], default=["cli", "app"])
    p.add_argument("--articles", type=int, default=0, help="index only each domain's first N articles")
    p.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache" / "memory")
    args = p.parse_args()
    data, items = prepare(args.cache, args.questions, args.articles)
    print(f"CPU: {cpu_model()}; {len(items)} questions")
    print("| code | what | peak RSS (process tree) | wall time |")
    print("|---|---|---|---|")
    for part in args.parts:
        for root in args.root:
            peak, wall = (cli_run if part == "cli" else app_run)(root.resolve(), data, items)
            what = "`kimas ask --batch --json`" if part == "cli" else "app (launch.py, Gradio API)"
            print(f"| {root} | {what} | {peak / 2**20:.0f} MB | {wall:.0f} s |", flush=True)


if __name__ == "__main__":
    main()
