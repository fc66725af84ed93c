"""What the reader costs (issue 68's acceptance): "Reading 24 candidates and their sentences: <= 250 ms p50 on
2 cores (quiet); first grounded words <= 1 s; the process's peak RSS grows by no more than 150 MB."

    nice -n 5 .venv/bin/python -m bench.reader_cost [--questions 40] [--candidates 24] [--threads N]

The shipped reader (``local_models/reader``, ``EmbeddedReader`` as ``embedded_reader()`` builds it: threads
min(4, cores) unless ``--threads``) on the held-out English questions over the mixed collection of
``bench.mixed_languages`` (the zh-cn pages of the Debian Reference's held-out chapters ch04, ch08, ch12 and
the English pages of the others; known-item questions made as the Evaluation tab makes them from the
English paragraphs of the held-out chapters, ``--size``/``--seed`` as there, the held-out half of
``bench.lexical.half``). The collection is the one that benchmark caches in ``bench/.cache/mixed-languages/
mixed`` (indexed here the same way when it is missing). Three measures:

- **reading**: per question, ``reader.read`` on the first ``--candidates`` distinct passages the question's
  searches found, then on all their sentences (``chunk_sentences``, as the quote splits them): the
  acceptance's reading, wider than the product's. Beside it, what the product itself sent the reader while
  answering (``AcrossScripts.order`` on the reranked candidates, the quote's sentences in the other script),
  timed by a wrapper, per question.
- **first grounded words**: the product's ``Pipeline.ask`` from the call to its ``QuoteReady`` event, with
  the reader and without, each question asked both ways in one run (which way first alternates).
- **peak RSS growth**: in a fresh process (``--rss-child``), the product's runtime answers the questions
  without the reader first; then the reader loads and reads (both readings above): growth of the peak RSS
  (``getrusage`` ``ru_maxrss``) from before the reader to after.

The reader's first reading loads it (``load + first read``, reported apart; not in the percentiles). Timing
figures are only as quiet as the machine: the report states the load average before and after. Prints a
markdown table and the command; ``--json`` writes the report too.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from bench.language_sets import index
from bench.lexical import half
from bench.machine import cpu_model
from bench.reader_sources import DEBIAN, HELDOUT_CHAPTERS, debian_chapters, debian_sections
from bench.recording import Recording
from kimas_desktop.text.sentences import chunk_sentences
from kimas_desktop.types import Chunk, Hit
from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "bench" / ".cache" / "mixed-languages"
COLLECTION = "debian"
TARGETS = {"reading": "<= 250 ms p50", "first grounded words": "<= 1 s", "peak RSS growth": "<= 150 MB"}


# --- data (as bench.mixed_languages makes it) -------------------------------------------------------------


def mixed_data(cache: Path) -> Path:
    """The mixed collection's data dir: the held-out chapters in zh-cn, the others in English."""
    folder, data = cache / "mixed" / "docs", cache / "mixed" / "data"
    if not folder.exists():
        folder.mkdir(parents=True)
        for chapter in debian_chapters():
            lang = "zh-cn" if chapter in HELDOUT_CHAPTERS else "en"
            shutil.copy(DEBIAN / f"{chapter}.{lang}.html", folder / f"{chapter}.{lang}.html")
        index(data, COLLECTION, folder, embedding={"name": MULTILINGUAL_EMBEDDER, "auto": False})
    return data


def held_out_questions(size: int, seed: int) -> list[str]:
    """``bench.mixed_languages``' English known-item questions on the held-out chapters, held-out half."""
    from app.evaluation.questions import generate

    paragraphs: list[Chunk] = []
    for chapter in HELDOUT_CHAPTERS:
        for languages in debian_sections(chapter):
            english = languages[0]
            for i, text in enumerate(english.paragraphs):
                source = f"{chapter}/{english.section}/{i}"
                paragraphs.append(Chunk(source, "debian-en", source, text))
    made = generate({"debian-en": paragraphs}, size, seed=seed).questions
    return [q.question for q in made if q.answerable and half(q.qid) != "tune"]


# --- the parts ------------------------------------------------------------------------------------------


class TimedReader:
    """The reader, each ``read`` timed: ``calls`` holds (texts, ms) since the last ``take``."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader
        self.model_id = reader.model_id
        self.calls: list[tuple[int, float]] = []

    def read(self, question: str, texts: Sequence[str]) -> list[float]:
        start = time.perf_counter()
        out: list[float] = self._reader.read(question, texts)
        self.calls.append((len(texts), (time.perf_counter() - start) * 1000))
        return out

    def take(self) -> list[tuple[int, float]]:
        calls, self.calls = self.calls, []
        return calls


class Rig:
    """The product's runtime over ``data``, its pipeline with the (timed) reader and without."""

    def __init__(self, data: Path, threads: int | None) -> None:
        from app.paths import read_config, resolve_paths
        from app.runtime import Runtime
        from local_models.reader.onnx_reader import EmbeddedReader

        paths = resolve_paths(str(data), None)
        self.runtime = Runtime(paths, read_config(paths))
        self.searcher = Recording(self.runtime.store(self.runtime.config))
        self.reader = TimedReader(EmbeddedReader(threads=threads))
        self.pipelines = {"with the reader": self._pipeline(self.reader), "without": self._pipeline(None)}

    def _pipeline(self, reader: Any) -> Any:
        from kimas_desktop.pipeline import Pipeline

        rt, config = self.runtime, self.runtime.config
        return Pipeline(
            config=config,
            chat=rt.chat(config),
            embedder=rt.embedder(config),
            reranker=rt.reranker(config),
            searcher=self.searcher,
            meaning=rt.meaning(config),
            reader=reader,
            tables=rt.table_answerer(config),
        )

    def first_quote(self, side: str, question: str) -> float:
        """Seconds from the call to ``Pipeline.ask`` to its quote (the rest of the answer is not asked for)."""
        from kimas_desktop.events import QuoteReady

        self.searcher.seen = []
        start = time.perf_counter()
        events = self.pipelines[side].ask(question)
        try:
            for event in events:
                if isinstance(event, QuoteReady):
                    return time.perf_counter() - start
        finally:
            events.close()
        return float("nan")

    def close(self) -> None:
        self.runtime.close()


def candidates(seen: Sequence[Hit], n: int) -> list[Chunk]:
    """The first ``n`` distinct passages the question's searches found."""
    found: dict[str, Chunk] = {}
    for hit in seen:
        found.setdefault(hit.chunk.chunk_id, hit.chunk)
    return list(found.values())[:n]


def read_candidates(reader: TimedReader, question: str, chunks: Sequence[Chunk]) -> list[tuple[int, float]]:
    """The passages read, then all their sentences: (texts, ms) of each reading."""
    sentences = [s.text for c in chunks for s in chunk_sentences(c)]
    reader.take()
    reader.read(question, [c.text for c in chunks])
    reader.read(question, sentences)
    return reader.take()


# --- measuring --------------------------------------------------------------------------------------------


def percentiles(values: Sequence[float]) -> dict[str, float]:
    ordered = sorted(v for v in values if v == v)
    if not ordered:
        return {"p50": float("nan"), "p95": float("nan"), "n": 0}
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered), 3), "p95": round(p95, 3), "n": len(ordered)}


def timing(rig: Rig, questions: Sequence[str], n: int) -> dict[str, Any]:
    """Per question: the product's answer to its quote both ways, what it sent the reader, and the
    acceptance's reading of ``n`` candidates and their sentences."""
    start = time.perf_counter()
    rig.reader.read(questions[0], ["Warm-up."])  # loads the reader
    load_ms = (time.perf_counter() - start) * 1000
    rig.reader.take()
    for side in rig.pipelines:  # the first answer of each pipeline loads the rest
        rig.first_quote(side, questions[0])
    rig.reader.take()
    quote: dict[str, list[float]] = {side: [] for side in rig.pipelines}
    product_ms, product_texts = [], []
    read: dict[str, list[float]] = {
        "passages": [],
        "sentences": [],
        "both": [],
        "texts": [],
        "sentence texts": [],
    }
    for k, question in enumerate(questions):
        sides = list(rig.pipelines) if k % 2 == 0 else list(reversed(rig.pipelines))
        for side in sides:
            rig.reader.take()
            quote[side].append(rig.first_quote(side, question))
            if side == "with the reader":
                calls, seen = rig.reader.take(), list(rig.searcher.seen)
                product_ms.append(sum(ms for _, ms in calls))
                product_texts.append(sum(t for t, _ in calls))
        (passages, passages_ms), (sentences, sentences_ms) = read_candidates(
            rig.reader, question, candidates(seen, n)
        )
        for key, value in (
            ("passages", passages_ms),
            ("sentences", sentences_ms),
            ("both", passages_ms + sentences_ms),
            ("texts", passages + sentences),
            ("sentence texts", sentences),
        ):
            read[key].append(value)
        said = f"{passages} passages in {passages_ms:.0f} ms, {sentences} sentences in {sentences_ms:.0f} ms"
        print(f"  {k + 1}/{len(questions)}: {said}", file=sys.stderr, flush=True)
    read_by_product = [ms for ms, t in zip(product_ms, product_texts, strict=True) if t]
    return {
        "reader load + first read (ms)": round(load_ms),
        "reading (ms)": percentiles(read["both"]),
        "the passages alone (ms)": percentiles(read["passages"]),
        "their sentences alone (ms)": percentiles(read["sentences"]),
        "texts read per question (mean)": round(statistics.mean(read["texts"]), 1),
        "sentences read per question (mean)": round(statistics.mean(read["sentence texts"]), 1),
        "the product's reading, questions it read for": percentiles(read_by_product),
        "texts the product read per question (mean)": round(statistics.mean(product_texts), 1),
        "first grounded words (s)": {side: percentiles(v) for side, v in quote.items()},
    }


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def rss_child(data: Path, questions: Sequence[str], n: int, threads: int | None) -> dict[str, float]:
    """In this (fresh) process: the product answers without the reader, then the reader loads and reads."""
    rig = Rig(data, threads)
    try:
        seen: list[list[Hit]] = []
        for question in questions:
            rig.first_quote("without", question)
            seen.append(list(rig.searcher.seen))
        before = peak_mb()
        for question, hits in zip(questions, seen, strict=True):
            read_candidates(rig.reader, question, candidates(hits, n))
            rig.first_quote("with the reader", question)
        after = peak_mb()
    finally:
        rig.close()
    return {
        "peak before (MB)": round(before),
        "peak after (MB)": round(after),
        "growth (MB)": round(after - before),
    }


def rss(data: Path, questions: Sequence[str], n: int, threads: int | None) -> dict[str, float]:
    cmd = [sys.executable, "-m", "bench.reader_cost", "--rss-child", str(data), "--candidates", str(n)]
    cmd += ["--threads", str(threads)] if threads else []
    done = subprocess.run(cmd, input=json.dumps(list(questions)), capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"the RSS process failed:\n{done.stderr[-2000:]}")
    got: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return got


def table(report: dict[str, Any]) -> str:
    """The figures as a markdown table: measure, with the reader, without, target."""
    t, m = report["timing"], report["peak RSS"]
    q, sent = t["first grounded words (s)"], t["the product's reading, questions it read for"]
    rows = [
        ("measure", "with the reader", "without", "target"),
        ("---", "---", "---", "---"),
        (
            f"reading {report['candidates']} candidates + their sentences, ms p50 / p95 "
            f"({t['texts read per question (mean)']} texts a question)",
            _pair(t["reading (ms)"]),
            "-",
            TARGETS["reading"],
        ),
        (f"... the {report['candidates']} passages alone", _pair(t["the passages alone (ms)"]), "-", "-"),
        (
            f"... their sentences alone ({t['sentences read per question (mean)']} a question)",
            _pair(t["their sentences alone (ms)"]),
            "-",
            "-",
        ),
        (
            "what the product sent the reader, ms p50 / p95 "
            f"({t['texts the product read per question (mean)']} texts a question; {sent['n']} questions read)",
            _pair(sent),
            "-",
            "-",
        ),
        (
            "first grounded words (Pipeline.ask to QuoteReady), s p50 / p95",
            _pair(q["with the reader"], ".2f"),
            _pair(q["without"], ".2f"),
            TARGETS["first grounded words"],
        ),
        ("reader load + first read, ms", str(t["reader load + first read (ms)"]), "-", "-"),
        (
            f"peak RSS, MB (fresh process: {m['peak before (MB)']} before the reader)",
            f"+{m['growth (MB)']}",
            "-",
            TARGETS["peak RSS growth"],
        ),
    ]
    return "\n".join("| " + " | ".join(r) + " |" for r in rows)


def _pair(p: dict[str, float], fmt: str = ".0f") -> str:
    return f"{p['p50']:{fmt}} / {p['p95']:{fmt}}"


def main(argv: Iterable[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--questions", type=int, default=40, help="held-out questions measured (the first N)")
    p.add_argument("--candidates", type=int, default=24)
    p.add_argument("--threads", type=int, default=None, help="the reader's threads (default: the product's)")
    p.add_argument("--size", type=int, default=190, help="as bench.mixed_languages")
    p.add_argument("--seed", type=int, default=68)
    p.add_argument("--cache", default=str(CACHE))
    p.add_argument("--json", default="", help="also write the report here")
    p.add_argument("--rss-child", default="", help=argparse.SUPPRESS)
    args = p.parse_args(list(argv) if argv is not None else None)
    if args.rss_child:
        asked = json.loads(sys.stdin.read())
        print(json.dumps(rss_child(Path(args.rss_child), asked, args.candidates, args.threads)))
        return
    data = mixed_data(Path(args.cache))
    questions = held_out_questions(args.size, args.seed)[: args.questions]
    load_before = os.getloadavg()[0]
    rig = Rig(data, args.threads)
    try:
        timed = timing(rig, questions, args.candidates)
    finally:
        rig.close()
    report = {
        "command": " ".join(["python -m bench.reader_cost", *(argv if argv is not None else sys.argv[1:])]),
        "date": time.strftime("%Y-%m-%d"),
        "cpu": f"{cpu_model()}, {os.cpu_count()} cores",
        "load average before / after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "questions": len(questions),
        "candidates": args.candidates,
        "timing": timed,
        "peak RSS": rss(data, questions[: min(len(questions), 10)], args.candidates, args.threads),
    }
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, ensure_ascii=False), "utf-8")
    print(
        f"`{report['command']}` ({report['date']}, {report['cpu']}, load {report['load average before / after']})"
    )
    print()
    print(table(report))


if __name__ == "__main__":
    main()
