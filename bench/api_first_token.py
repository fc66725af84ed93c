"""Time to the first streamed token through the OpenAI-compatible API against the app's own streaming path
(issue 44), paired, same machine, same run.

    nice .venv/bin/python -m bench.api_first_token [--questions 20] [--articles 8]

The app as ``kimas serve`` runs it, in this process: ``DesktopApp`` over the real runtime and the embedded
models, collection ``wiki`` holding the first ``--articles`` SQuAD-Shifts new_wiki articles (the questions
come from them), and its API started by ``start_api`` (the same call ``kimas serve`` makes) on a free port
of 127.0.0.1. Each question is asked two ways, turn about (the order alternates per question), each in a
new conversation with the chat model's prompt cache emptied first:

- ``app``: the Chat tab's path, ``desk.chat.ask`` (the ``AnswerRun`` thread and its queue), clocked from
  the call to the first turn whose answer has a word;
- ``api``: ``POST /v1/chat/completions`` with ``stream: true`` over real HTTP (token, guards, rate limit,
  the app's answering hold and the chat kept of it), clocked from sending the request to the first
  ``chat.completion.chunk`` whose ``delta.content`` has a word.

Reported: each way's first token (median, p90) and the paired ratio api/app (median, p90). Target: the
median ratio within 1.10. Prints one JSON report.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from app.desktop import DesktopApp
from app.paths import resolve_paths
from app.runtime import Runtime
from app.settings.config_store import ConfigStore
from app.tools.api_token import ApiToken
from bench.devkit import squad_questions, write_squad
from bench.machine import cpu_model
from kimas_desktop.config import CollectionConfig, load_config
from ui.server.api_server import RunningApi, start_api

ROOT = Path(__file__).resolve().parents[1]
WAYS = ("app", "api")
WIKI = "squadshifts_new_wiki"


def wait(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def p90(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.9 * len(values)) - 1)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def prepare_wiki(cache: Path, n_articles: int) -> tuple[Path, list[Any]]:
    """The first ``n_articles`` new_wiki articles as files, and the questions about them."""
    docs = cache / "docs"
    where = write_squad(WIKI, docs / "all")
    kept = sorted(set(where.values()))[:n_articles]
    wiki = docs / "wiki"
    wiki.mkdir(parents=True, exist_ok=True)
    for name in kept:
        if not (wiki / name).exists():
            (wiki / name).write_text((docs / "all" / name).read_text("utf-8"), "utf-8")
    return wiki, squad_questions(WIKI, {p: f for p, f in where.items() if f in kept}, 10**6)


def empty_cache(desk: DesktopApp) -> None:
    """Each way asks the same question: a cached prompt would start the later way's answer at once."""
    clear = getattr(desk.runtime.chat(desk.config), "clear_cache", None)
    if clear is not None:
        clear()


def app_first_token(desk: DesktopApp, question: str) -> float | None:
    """Seconds from asking in a new chat to the first turn with a word of answer (the Chat tab's path)."""
    empty_cache(desk)
    t0, first = time.perf_counter(), None
    for turn in desk.chat.ask(desk.chat.new_conversation(), question):
        if first is None and turn.answer.strip():
            first = time.perf_counter() - t0
    return first


def api_first_token(desk: DesktopApp, client: httpx.Client, question: str) -> float | None:
    """Seconds from sending a streamed chat completion to its first chunk with a word of content."""
    empty_cache(desk)
    body = {"model": "kimas", "messages": [{"role": "user", "content": question}], "stream": True}
    t0, first = time.perf_counter(), None
    with client.stream("POST", "/chat/completions", json=body) as reply:
        reply.raise_for_status()
        for line in reply.iter_lines():
            if first is not None or not line.startswith("data: {"):
                continue
            delta = json.loads(line.removeprefix("data: "))["choices"][0]["delta"]
            if (delta.get("content") or "").strip():
                first = time.perf_counter() - t0
    return first


def start(args: argparse.Namespace) -> tuple[DesktopApp, RunningApi, list[Any]]:
    wiki, questions = prepare_wiki(args.cache, args.articles)
    paths = resolve_paths(str(args.cache / "data"), None)
    config = load_config(paths.config_file).updated(
        collections={"wiki": CollectionConfig(folders=[str(wiki)]).model_dump()},
        server={**load_config(paths.config_file).server.model_dump(), "api_port": free_port()},
    )
    desk = DesktopApp(Runtime(paths, config), ConfigStore(paths.config_file, config))
    desk.start(sync=False)
    desk.indexing.submit("wiki", "bench")
    assert wait(lambda: desk.indexing.idle() and all(c.chunks for c in desk.knowledge.collections()), 3600)
    running = start_api(
        desk.runtime, lambda: desk.config, paths.config_file, desk.indexing.answering, desk.history.save
    )
    assert running is not None, "the API did not start"
    return desk, running, questions


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"questions": len(rows)}
    for way in WAYS:
        firsts = [r[way] for r in rows if r[way] is not None]
        out[way] = {
            "first_token_ms_median": round(1000 * statistics.median(firsts)) if firsts else None,
            "first_token_ms_p90": round(1000 * p90(firsts)) if firsts else None,
            "answers_with_a_word": len(firsts),
        }
    ratios = [r["api"] / r["app"] for r in rows if r["api"] and r["app"]]
    out["api_over_app_median"] = round(statistics.median(ratios), 3) if ratios else None
    out["api_over_app_p90"] = round(p90(ratios), 3) if ratios else None
    out["within_10_percent"] = bool(ratios) and statistics.median(ratios) <= 1.10
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--questions", type=int, default=20)
    p.add_argument("--articles", type=int, default=8)
    p.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache" / "api_first_token")
    args = p.parse_args()
    desk, running, questions = start(args)
    token = ApiToken(desk.runtime.paths.config_file).read()
    rows: list[dict[str, Any]] = []
    try:
        with httpx.Client(
            base_url=running.url, headers={"Authorization": f"Bearer {token}"}, timeout=600
        ) as c:
            app_first_token(desk, questions[0].text)  # warm up: models loaded, caches filled
            api_first_token(desk, c, questions[0].text)
            for i, q in enumerate(questions[1 : args.questions + 1]):
                row: dict[str, Any] = {"question": q.text}
                for way in WAYS if i % 2 == 0 else WAYS[::-1]:
                    row[way] = (
                        app_first_token(desk, q.text) if way == "app" else api_first_token(desk, c, q.text)
                    )
                rows.append(row)
                print(i, json.dumps(row), file=sys.stderr, flush=True)
    finally:
        running.close()
        desk.close()
    print(json.dumps({"cpu": cpu_model(), **summary(rows)}, indent=2))


if __name__ == "__main__":
    main()
