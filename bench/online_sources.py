"""An online source beside the local answer (issue 24): does a slow source delay the grounded quote?

    nice .venv/bin/python -m bench.online_sources [--questions 20] [--delay 5] [--preset routed]

SQuAD-Shifts `new_wiki` articles indexed by the product's indexer; the same questions through
`kimas ask --batch --json` (the real embedded models) with three configs, one after another in one run:

- **local**: no online source;
- **joins**: a SearXNG-style source asked with every question (``use = "always"``), whose search answers
  after ``--delay`` seconds (a server on 127.0.0.1 in this process), time limit 8 s: its pages join;
- **dropped**: the same source with a 3 s limit: it is dropped at the limit.

Reported: the grounded quote's time (the trace's ``quote.at_ms``), the first token and the whole answer,
medians, and the paired median differences against **local** on the same questions; how many answers had
web passages, and the sources' errors.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench.devkit import kimas_batch, squad_questions, write_squad
from bench.workspace import configure, index_folders

ROOT = Path(__file__).resolve().parents[1]

DOMAIN = "squadshifts_new_wiki"
PAGE = """<html><head><title>Rhine shipping</title></head><body><article><h1>Rhine shipping</h1>
<p>Barges on the Rhine moved about 300 million tonnes of goods in 2019, most of them between Rotterdam and
the Ruhr. The river is navigable from Basel to the North Sea.</p></article></body></html>"""


def serve(delay: float) -> tuple[ThreadingHTTPServer, str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            base = f"http://127.0.0.1:{self.server.server_address[1]}"
            if self.path.startswith("/search"):
                time.sleep(delay)
                rows = [
                    {"title": f"Page {i}", "url": f"{base}/page/{i}", "content": "Shipping."}
                    for i in range(2)
                ]
                body, kind = json.dumps({"results": rows}).encode(), "application/json"
            else:
                body, kind = PAGE.encode(), "text/html; charset=utf-8"
            try:
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass  # the source stopped waiting

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def config(path: Path, preset: str, base: str | None, timeout_s: float) -> Path:
    lines = [f'preset = "{preset}"']
    if base is not None:
        lines += [
            "[sources.web]",
            'kind = "searxng"',
            f'base_url = "{base}"',
            "enabled = true",
            'use = "always"',
            f"timeout_s = {timeout_s}",
        ]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def stage(result: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((s for s in result.get("trace", {}).get("stages", []) if s["stage"] == name), None)


def quote_ms(result: dict[str, Any]) -> float | None:
    s = stage(result, "quote")
    return None if s is None else float(s["at_ms"])


def first_token_ms(result: dict[str, Any]) -> float | None:
    s = stage(result, "first_token")
    return None if s is None else float(s["ms"])


def total_ms(result: dict[str, Any]) -> float | None:
    return result.get("timings_ms", {}).get("total")


def median(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return round(statistics.median(kept)) if kept else None


def paired(base: dict[str, Any], other: dict[str, Any], measure: Any) -> dict[str, Any]:
    both = [(measure(base[q]), measure(other[q])) for q in base if q in other]
    diffs = [b - a for a, b in both if a is not None and b is not None]
    return {
        "questions": len(diffs),
        "median_difference_ms": round(statistics.median(diffs)) if diffs else None,
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--questions", type=int, default=20)
    p.add_argument("--delay", type=float, default=5.0, help="seconds the source's search takes")
    p.add_argument("--preset", default="routed")
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "online"))
    args = p.parse_args()
    cache = Path(args.cache)
    docs, data = cache / "docs" / "wiki", cache / "data"
    where = write_squad(DOMAIN, docs)
    index_folders(configure(data, {"wiki": docs}), {"wiki": docs})
    questions = squad_questions(DOMAIN, where, args.questions, seed=24)
    items = [{"id": q.qid, "question": q.text} for q in questions]
    server, base = serve(args.delay)
    runs: dict[str, dict[str, Any]] = {}
    try:
        for name, url, limit in (("local", None, 8.0), ("joins", base, 8.0), ("dropped", base, 3.0)):
            cfg = config(cache / f"config-{name}.toml", args.preset, url, limit)
            t = time.perf_counter()
            runs[name] = kimas_batch("ask", data, items, "--json", "--config", str(cfg))
            print(f"{name}: {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    finally:
        server.shutdown()
    report: dict[str, Any] = {"questions": len(items), "delay_s": args.delay, "preset": args.preset}
    for name, results in runs.items():
        online = [stage(r, "online") for r in results.values()]
        report[name] = {
            "quote_ms_median": median([quote_ms(r) for r in results.values()]),
            "first_token_ms_median": median([first_token_ms(r) for r in results.values()]),
            "total_ms_median": median([total_ms(r) for r in results.values()]),
            "answers_with_web_passages": sum(1 for s in online if s and s["passages"]),
            "source_errors": sorted({s["error"] for s in online if s and s["error"]}),
            "errors": [r["error"] for r in results.values() if "error" in r],
        }
        if name != "local":
            report[name]["paired_vs_local"] = {
                "quote": paired(runs["local"], results, quote_ms),
                "first_token": paired(runs["local"], results, first_token_ms),
                "total": paired(runs["local"], results, total_ms),
            }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
