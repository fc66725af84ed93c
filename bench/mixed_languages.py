"""English questions over a collection that mixes English and Chinese documents (issue 68): does the
answering Chinese paragraph reach the candidates, the top 8 and the quote, with the reader and without.

    nice -n 5 .venv/bin/python -m bench.mixed_languages [--size 190] [--seed 68] [--weights 0 0.5 1 2]

Data: the Debian Reference (GPL-2+; Osamu Aoki and its translators), Debian's ``debian-reference-en`` and
``debian-reference-zh-cn`` packages, HTML under ``/usr/share/debian-reference``, read by
``bench.reader_sources``. Three collections, indexed by the product's own indexer with the embedded
multilingual-e5-small (``[embedding] name``; cached under ``bench/.cache/mixed-languages``, gitignored):

- **mixed**: the zh-cn pages of the held-out chapters (``HELDOUT_CHAPTERS``: ch04, ch08, ch12, which the
  reader is never trained on) and the English pages of every other chapter; nothing of the held-out
  chapters in English. The answer is Chinese.
- **mixed-en** (the control across scripts): the English pages of the held-out chapters and the zh-cn
  pages of every other chapter. The answer is English, among Chinese pages.
- **english** (the control): every chapter in English (one script: the product searches and reads it as
  before the reader).

Questions: known-item questions made as the Evaluation tab makes them (``app.evaluation.questions.
generate``, ``--seed``; its unanswerable controls left out) from the ENGLISH paragraphs of the held-out
chapters. The translations keep the English paragraph order, so a question's answering paragraph in the
mixed collection is the zh-cn paragraph at the same position; its gold chunks are the chunks of that
chapter's page in the answer's language that hold the paragraph (whitespace aside), or one of its sentences.

Measured with the product's ``Pipeline.retrieve`` in process (routing, hybrid search with the dense search
of the files in other scripts, rerank to the top 8) and its ``Grounder`` over the hits: the gold among the
searches' candidates, among the top 8, the quote taken from a gold chunk, the quote inside the answering
paragraph, and the evidence declined. The halves are ``bench.lexical.half``'s. On the tune half of the
mixed collection the reader's weight on a sentence in another script (``quote.ACROSS_WEIGHT``) is chosen
among ``--weights``; then, held out, each collection side by side in one run: the product with the
installed reader (``local_models/reader``) and without one.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.evaluation.questions import generate
from bench.devkit import rate
from bench.language_sets import index
from bench.lexical import half
from bench.machine import cpu_model
from bench.reader_sources import DEBIAN, HELDOUT_CHAPTERS, debian_chapters, debian_sections
from bench.recording import Recording
from kimas_desktop.text.sentences import split_sentences
from kimas_desktop.types import Chunk
from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "bench" / ".cache" / "mixed-languages"
COLLECTION = "debian"
PIECE_CHARS = 12  # a sentence this long (spaces aside) identifies its paragraph
TOP = 8
# Each collection: the language of the held-out chapters' pages, and of the others'.
LAYOUTS = {"mixed": ("zh-cn", "en"), "mixed-en": ("en", "zh-cn"), "english": ("en", "en")}


@dataclass(frozen=True)
class Asked:
    """One English question and its answering paragraph in each language (aligned by position)."""

    qid: str
    question: str
    chapter: str
    paragraph: dict[str, str]  # "en" and "zh-cn"


# --- data --------------------------------------------------------------------------------------------


def data_dir(cache: Path, name: str) -> Path:
    """One collection's data dir (``LAYOUTS``), indexed once by the product's indexer."""
    folder, data = cache / name / "docs", cache / name / "data"
    held, other = LAYOUTS[name]
    if not folder.exists():
        folder.mkdir(parents=True)
        for chapter in debian_chapters():
            lang = held if chapter in HELDOUT_CHAPTERS else other
            shutil.copy(DEBIAN / f"{chapter}.{lang}.html", folder / f"{chapter}.{lang}.html")
    index(data, COLLECTION, folder, embedding={"name": MULTILINGUAL_EMBEDDER, "auto": False})
    return data


def questions(size: int, seed: int) -> list[Asked]:
    """Known-item questions over the held-out chapters' English paragraphs, with their aligned paragraphs."""
    paragraphs: list[Chunk] = []
    aligned: dict[str, dict[str, str]] = {}
    for chapter in HELDOUT_CHAPTERS:
        for languages in debian_sections(chapter):
            by_lang = {s.lang: s for s in languages}
            for i, text in enumerate(by_lang["en"].paragraphs):
                source = f"{chapter}/{by_lang['en'].section}/{i}"
                aligned[source] = {lang: by_lang[lang].paragraphs[i] for lang in ("en", "zh-cn")}
                paragraphs.append(Chunk(source, "debian-en", source, text))
    made = generate({"debian-en": paragraphs}, size, seed=seed).questions
    return [Asked(q.qid, q.question, q.source.split("/")[0], aligned[q.source]) for q in made if q.answerable]


def squashed(text: str) -> str:
    return "".join(text.split())


def pieces(paragraph: str) -> list[str]:
    """The paragraph's sentences long enough to tell it apart, whitespace removed (any script)."""
    found = [squashed(s.text) for s in split_sentences(paragraph, "prose")]
    return [p for p in found if len(p) >= PIECE_CHARS] or [squashed(paragraph)]


def holds(text: str, paragraph: str) -> bool:
    """Whether ``text`` holds the paragraph, or one of its sentences, or lies inside it."""
    flat, whole = squashed(text), squashed(paragraph)
    return bool(flat) and (whole in flat or flat in whole or any(p in flat for p in pieces(paragraph)))


def gold_chunks(chunks: Sequence[Chunk], chapter: str, lang: str, paragraph: str) -> set[str]:
    page = f"{chapter}.{lang}.html"
    return {c.chunk_id for c in chunks if Path(c.source).name == page and holds(c.text, paragraph)}


# --- measuring -----------------------------------------------------------------------------------------


class Rig:
    """One data dir's pipelines (``Runtime.own_pipeline``'s parts, the store wrapped; with the reader and
    without) and grounders (as ``Pipeline`` builds them), the gold chunks in ``lang``'s pages."""

    def __init__(self, data: Path, lang: str) -> None:
        from app.paths import read_config, resolve_paths
        from app.runtime import Runtime

        paths = resolve_paths(str(data), None)
        self.runtime = Runtime(paths, read_config(paths))
        self.store = self.runtime.store(self.runtime.config)
        self.chunks = self.store.chunks(COLLECTION)
        self.lang = lang
        self.searcher = Recording(self.store)
        self.reader = self.runtime.reader(self.runtime.config)
        self.parts = {"with the reader": self._parts(self.reader), "without": self._parts(None)}

    def _parts(self, reader: Any) -> tuple[Any, Any]:
        from kimas_desktop.answer.signals.grounding import Grounder
        from kimas_desktop.pipeline import Pipeline

        rt, config = self.runtime, self.runtime.config
        embedder, meaning = rt.embedder(config), rt.meaning(config)
        pipeline = Pipeline(
            config=config,
            chat=rt.chat(config),
            embedder=embedder,
            reranker=rt.reranker(config),
            searcher=self.searcher,
            meaning=meaning,
            reader=reader,
            tables=rt.table_answerer(config),
        )
        reads = meaning if meaning is not None and config.grounding.meaning == "multilingual" else embedder
        return pipeline, Grounder(reads, config.grounding, reader)

    def gold(self, q: Asked) -> set[str]:
        return gold_chunks(self.chunks, q.chapter, self.lang, q.paragraph[self.lang])

    def ask(self, q: Asked, gold: set[str], side: str) -> dict[str, bool]:
        """Where the gold is for one question, and whether the evidence is declined."""
        pipeline, grounder = self.parts[side]
        self.searcher.seen = []
        result = pipeline.retrieve(q.question)
        synopses = [self.store.synopsis(name) for name in result.active]
        grounding = grounder.ground(q.question, result.hits, synopses, query=result.query)
        mine = [x for x in grounding.quotes if x.chunk.chunk_id in gold]
        return {
            "gold in candidates": any(h.chunk.chunk_id in gold for h in self.searcher.seen),
            f"gold in top {TOP}": any(h.chunk.chunk_id in gold for h in result.hits[:TOP]),
            "quote from a gold chunk": bool(mine),
            "quote in the answering paragraph": any(holds(x.text, q.paragraph[self.lang]) for x in mine),
            "declined": not grounding.answerability.answerable,
        }

    def run(self, side: str, asked: Sequence[Asked]) -> dict[str, Any]:
        start = time.perf_counter()
        rows = [self.ask(q, g, side) for q in asked if (g := self.gold(q))]
        out: dict[str, Any] = {"side": side, "questions": len(rows)}
        for key in rows[0] if rows else ():
            out[key] = rate([r[key] for r in rows])
        out["s per question"] = round((time.perf_counter() - start) / max(1, len(rows)), 2)
        print(json.dumps(out), file=sys.stderr, flush=True)
        return out

    def close(self) -> None:
        self.runtime.close()


def measure(rigs: dict[str, Rig], asked: Sequence[Asked], weights: Sequence[float]) -> dict[str, Any]:
    """On the tune half, the reader's weight on a sentence in another script (``quote.ACROSS_WEIGHT``) with
    the most quotes in the answering paragraph of the mixed collection (the smallest on a tie); then each
    collection of the held-out half, with the reader and without."""
    from kimas_desktop.answer.signals import quote

    tune = [q for q in asked if half(q.qid) == "tune"]
    held = [q for q in asked if half(q.qid) != "tune"]
    report: dict[str, Any] = {"tune questions": len(tune), "held-out questions": len(held)}
    key = "quote in the answering paragraph"
    sweep: dict[float, dict[str, Any]] = {}
    for w in weights:
        quote.ACROSS_WEIGHT = w
        sweep[w] = rigs["mixed"].run("with the reader", tune)
    best = max(sweep, key=lambda w: (sweep[w][key] or 0.0, -w))
    quote.ACROSS_WEIGHT = best
    report["tune half, mixed, with the reader, by weight"] = {str(w): r for w, r in sweep.items()}
    report["chosen weight"] = best
    report["held out"] = {name: [rig.run(side, held) for side in rig.parts] for name, rig in rigs.items()}
    return report


def main(argv: Iterable[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--size", type=int, default=190, help="questions generated (a fifth, the controls, dropped)"
    )
    p.add_argument("--seed", type=int, default=68)
    p.add_argument("--cache", default=str(CACHE))
    p.add_argument("--collections", nargs="+", default=list(LAYOUTS), choices=list(LAYOUTS))
    p.add_argument("--weights", type=float, nargs="+", default=[0.0, 0.5, 1.0, 2.0])
    args = p.parse_args(list(argv) if argv is not None else None)
    cache = Path(args.cache)
    asked = questions(args.size, args.seed)
    rigs = {n: Rig(data_dir(cache, n), LAYOUTS[n][0]) for n in args.collections}
    try:
        report = {
            "command": " ".join(["python -m bench.mixed_languages", *sys.argv[1:]]),
            "date": time.strftime("%Y-%m-%d"),
            "cpu": cpu_model(),
            "held-out chapters": list(HELDOUT_CHAPTERS),
            "reader": getattr(next(iter(rigs.values())).reader, "model_id", "none installed"),
            **measure(rigs, asked, args.weights),
        }
    finally:
        for rig in rigs.values():
            rig.close()
    (cache / "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False), "utf-8")
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
