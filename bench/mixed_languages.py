"""English questions over a collection that mixes English and Chinese documents (issue 68): does the
answering Chinese paragraph reach the candidates, the top 8 and the quote, and which query-time option helps.

    nice -n 19 .venv/bin/python -m bench.mixed_languages [--size 190] [--seed 68] [--alphas 1 2 3 4 6]

Data: the Debian Reference (GPL-2+; Osamu Aoki and its translators), Debian's ``debian-reference-en`` and
``debian-reference-zh-cn`` packages, HTML under ``/usr/share/debian-reference``, read by
``bench.reader_sources``. Two collections, indexed by the product's own indexer with the embedded
multilingual-e5-small (``[embedding] name``; cached under ``bench/.cache/mixed-languages``, gitignored):

- **mixed**: the zh-cn pages of the held-out chapters (``HELDOUT_CHAPTERS``: ch04, ch08, ch12, which the
  reader is never trained on) and the English pages of every other chapter; nothing of the held-out
  chapters in English.
- **english** (the control): every chapter in English.

Questions: known-item questions made as the Evaluation tab makes them (``app.evaluation.questions.
generate``, ``--seed``; its unanswerable controls left out) from the ENGLISH paragraphs of the held-out
chapters. The translations keep the English paragraph order, so a question's answering paragraph in the
mixed collection is the zh-cn paragraph at the same position; its gold chunks are the chunks of that
chapter's zh-cn page that hold the paragraph (whitespace aside), or one of its sentences. In the control the
answering paragraph is the English one.

Measured with the product's ``Pipeline.retrieve`` in process (routing, hybrid search, rerank to the top 8)
and its ``Grounder`` over the hits: the gold among the searches' candidates, among the top 8, the quote
taken from a gold chunk, and the quote inside the answering paragraph. Query-time options, tried on the
store as the pipeline sees it (``QueryTimeSearcher``; no product code changed):

- **(a) language centering**: the question vector less ``alpha`` x the mean e5 passage vector of the
  question's language (means of en, de, ja and zh-cn paragraphs of the training chapters ch01-ch03 only),
  normalized again, in every dense search. ``alpha`` is chosen on the tune half (``bench.lexical.half``):
  the most gold in the mixed collection's top 8 among the alphas that keep the English collection's top 8
  where it was; every figure printed for a choice is the held-out half's.
- **(b) dense candidates in the other scripts**: a second dense search kept to the files whose main
  script is not the question's (``sources=``), fused with the product's list by reciprocal rank.
- (c) the glossary run the other way: not tried (no English-to-Chinese glossary to run cheaply).
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.evaluation.phrases import language_of
from app.evaluation.questions import generate
from bench.devkit import rate
from bench.language_sets import index
from bench.lexical import half
from bench.reader_sources import DEBIAN, HELDOUT_CHAPTERS, debian_chapters, debian_sections
from kimas_desktop.retrieval.fusion import reciprocal_rank_fusion
from kimas_desktop.text.language import main_script
from kimas_desktop.text.sentences import split_sentences
from kimas_desktop.types import Chunk, Hit
from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "bench" / ".cache" / "mixed-languages"
COLLECTION = "debian"
TRAIN_CHAPTERS = ("ch01", "ch02", "ch03")  # the language means come from these only
MEAN_LANGUAGES = ("en", "de", "ja", "zh-cn")
MEAN_PARAGRAPHS = 150  # per language
PIECE_CHARS = 12  # a sentence this long (spaces aside) identifies its paragraph
TOP = 8


@dataclass(frozen=True)
class Asked:
    """One English question and its answering paragraph in each language (aligned by position)."""

    qid: str
    question: str
    chapter: str
    paragraph: dict[str, str]  # "en" and "zh-cn"


@dataclass(frozen=True)
class Option:
    name: str
    alpha: float = 0.0  # (a): the share of the question language's mean taken off the question vector
    other_scripts: bool = False  # (b)


# --- data --------------------------------------------------------------------------------------------


def data_dirs(cache: Path) -> dict[str, Path]:
    """The two collections' data dirs (``mixed``, ``english``), indexed once by the product's indexer."""
    out = {}
    for name in ("mixed", "english"):
        folder, data = cache / name / "docs", cache / name / "data"
        if not folder.exists():
            folder.mkdir(parents=True)
            for chapter in debian_chapters():
                lang = "zh-cn" if name == "mixed" and chapter in HELDOUT_CHAPTERS else "en"
                shutil.copy(DEBIAN / f"{chapter}.{lang}.html", folder / f"{chapter}.{lang}.html")
        index(data, COLLECTION, folder, embedding={"name": MULTILINGUAL_EMBEDDER, "auto": False})
        out[name] = data
    return out


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


def language_means(embed: Callable[[list[str]], np.ndarray], path: Path) -> dict[str, np.ndarray]:
    """Per language, the mean e5 passage vector (as the product stores them: centered, unit) of
    ``MEAN_PARAGRAPHS`` paragraphs of the training chapters, written once to ``path``."""
    if path.exists():
        stored = np.load(path)
        return {lang: stored[lang] for lang in stored.files}
    means = {}
    sections = [s for chapter in TRAIN_CHAPTERS for aligned in debian_sections(chapter) for s in aligned]
    for lang in MEAN_LANGUAGES:
        texts = [p for s in sections if s.lang == lang for p in s.paragraphs if len(p) >= 40]
        step = max(1, len(texts) // MEAN_PARAGRAPHS)
        means[lang] = np.asarray(embed(texts[::step][:MEAN_PARAGRAPHS]).mean(axis=0), dtype=np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, **{k: v for k, v in means.items()})  # type: ignore[arg-type]
    return means


# --- the options ---------------------------------------------------------------------------------------


def centered(vector: Any, mean: np.ndarray | None, alpha: float) -> np.ndarray:
    """``vector`` less ``alpha`` x ``mean``, normalized again (unchanged without a mean)."""
    v = np.asarray(vector, dtype=np.float32).reshape(-1)
    if mean is None or not alpha:
        return v
    out = v - alpha * mean
    norm = float(np.linalg.norm(out))
    return out / norm if norm else v


def mean_language(text: str) -> str:
    """The key of ``language_means`` for a question ("zh" asks with the zh-cn mean)."""
    lang = language_of(text)
    return "zh-cn" if lang == "zh" else lang


class QueryTimeSearcher:
    """The store as the pipeline sees it (a ``ChunkSearcher``), with an ``Option`` applied to each search;
    it keeps every hit it returned (``seen``: the candidates of the current question)."""

    def __init__(
        self, store: Any, option: Option, means: dict[str, np.ndarray], scripts: dict[str, str]
    ) -> None:
        self._store = store
        self.option = option
        self.means = means
        self._scripts = scripts  # file → its main script
        self.seen: list[Hit] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def search(
        self,
        collection: str,
        *,
        text: str,
        vector: Any,
        k: int,
        mode: Any = "hybrid",
        sources: Sequence[str] = (),
    ) -> list[Hit]:
        opt = self.option
        if mode != "fts":
            vector = centered(vector, self.means.get(mean_language(text)), opt.alpha)
        hits: list[Hit] = self._store.search(
            collection, text=text, vector=vector, k=k, mode=mode, sources=sources
        )
        script = main_script(text)
        other = [f for f, s in self._scripts.items() if s != script]
        if opt.other_scripts and mode != "fts" and not sources and other:
            kept = self._store.search(collection, text=text, vector=vector, k=k, mode="dense", sources=other)
            hits = reciprocal_rank_fusion([hits, kept])[:k]
        self.seen += hits
        return hits


def file_scripts(chunks: Iterable[Chunk]) -> dict[str, str]:
    """Each file's main script, over its first chunks."""
    texts: dict[str, list[str]] = {}
    for c in chunks:
        texts.setdefault(c.source, []).append(c.text)
    return {f: main_script(" ".join(t[:20])) for f, t in texts.items()}


# --- measuring -----------------------------------------------------------------------------------------


class Rig:
    """One data dir's pipeline (``Runtime.own_pipeline``'s parts, the store wrapped) and grounder (as
    ``Pipeline`` builds it), the gold chunks in ``lang``'s pages."""

    def __init__(self, data: Path, lang: str, means: dict[str, np.ndarray]) -> None:
        from app.paths import read_config, resolve_paths
        from app.runtime import Runtime
        from kimas_desktop.answer.signals.grounding import Grounder
        from kimas_desktop.pipeline import Pipeline

        paths = resolve_paths(str(data), None)
        self.runtime = Runtime(paths, read_config(paths))
        config = self.runtime.config
        self.store = self.runtime.store(config)
        self.chunks = self.store.chunks(COLLECTION)
        self.lang = lang
        self.searcher = QueryTimeSearcher(self.store, Option("baseline"), means, file_scripts(self.chunks))
        rt = self.runtime
        embedder, meaning, reader = rt.embedder(config), rt.meaning(config), rt.reader(config)
        self.pipeline = Pipeline(
            config=config,
            chat=self.runtime.chat(config),
            embedder=embedder,
            reranker=self.runtime.reranker(config),
            searcher=self.searcher,
            meaning=meaning,
            reader=reader,
            tables=self.runtime.table_answerer(config),
        )
        reads = meaning if meaning is not None and config.grounding.meaning == "multilingual" else embedder
        self.grounder = Grounder(reads, config.grounding, reader)

    def scripts(self) -> int:
        """How many main scripts the collection's files are in."""
        return len(set(file_scripts(self.chunks).values()))

    def gold(self, q: Asked) -> set[str]:
        return gold_chunks(self.chunks, q.chapter, self.lang, q.paragraph[self.lang])

    def ask(self, q: Asked, gold: set[str], ground: bool) -> dict[str, bool]:
        """Where the gold is for one question under the searcher's option."""
        self.searcher.seen = []
        result = self.pipeline.retrieve(q.question)
        row = {
            "gold in candidates": any(h.chunk.chunk_id in gold for h in self.searcher.seen),
            f"gold in top {TOP}": any(h.chunk.chunk_id in gold for h in result.hits[:TOP]),
        }
        if ground:
            synopses = [self.store.synopsis(name) for name in result.active]
            quotes = self.grounder.ground(q.question, result.hits, synopses, query=result.query).quotes
            mine = [x for x in quotes if x.chunk.chunk_id in gold]
            row["quote from a gold chunk"] = bool(mine)
            row["quote in the answering paragraph"] = any(holds(x.text, q.paragraph[self.lang]) for x in mine)
        return row

    def run(self, option: Option, asked: Sequence[Asked], ground: bool) -> dict[str, Any]:
        self.searcher.option = option
        start = time.perf_counter()
        rows = [self.ask(q, g, ground) for q in asked if (g := self.gold(q))]
        out: dict[str, Any] = {"option": option.name, "questions": len(rows)}
        for key in rows[0] if rows else ():
            out[key] = rate([r[key] for r in rows])
        out["s per question"] = round((time.perf_counter() - start) / max(1, len(rows)), 2)
        print(json.dumps(out), file=sys.stderr, flush=True)
        return out

    def close(self) -> None:
        self.runtime.close()


def chosen_alpha(mixed: dict[float, dict[str, Any]], english: dict[float, dict[str, Any]]) -> float:
    """On the tune half, the alpha with the most gold in the mixed collection's top 8 (the smallest on a
    tie) among those that keep the English collection's top 8 where it was (alpha 0)."""
    top = f"gold in top {TOP}"
    kept = [a for a in sorted(mixed) if (english[a][top] or 0.0) >= (english[0.0][top] or 0.0)]
    return max(kept, key=lambda a: (mixed[a][top] or 0.0, -a))


def measure(rigs: dict[str, Rig], asked: Sequence[Asked], alphas: Sequence[float]) -> dict[str, Any]:
    tune = [q for q in asked if half(q.qid) == "tune"]
    held = [q for q in asked if half(q.qid) != "tune"]
    report: dict[str, Any] = {"tune questions": len(tune), "held-out questions": len(held)}
    mixed = rigs["mixed"]
    sweep = {
        name: {a: rig.run(Option(f"(a) alpha {a}", alpha=a), tune, ground=False) for a in (0.0, *alphas)}
        for name, rig in rigs.items()
    }
    report["tune half, alpha sweep"] = sweep
    best = chosen_alpha(sweep["mixed"], sweep["english"])
    report["chosen alpha"] = best
    options = [
        Option("baseline (the product today)"),
        Option(f"(a) language centering, alpha {best}", alpha=best),
        Option("(b) dense candidates in the other scripts", other_scripts=True),
        Option(f"(a) + (b), alpha {best}", alpha=best, other_scripts=True),
    ]
    # In a collection of one script (b) finds no other-script file, so it searches as the product does.
    report["held-out half, (b)'s list alone"] = other_script_ranks(mixed, held, (0.0, best))
    report["held-out half"] = {
        name: [rig.run(o, held, ground=True) for o in options if rig.scripts() > 1 or not o.other_scripts]
        for name, rig in rigs.items()
    }
    return report


def other_script_ranks(rig: Rig, asked: Sequence[Asked], alphas: Sequence[float]) -> dict[str, Any]:
    """(b)'s own list alone: the gold among the best n of a dense search kept to the other-script files,
    with the question vector as the product makes it and centered (does centering reorder a language?)."""
    embedder = rig.runtime.embedder(rig.runtime.config)
    other = [f for f, s in file_scripts(rig.chunks).items() if s != "LATIN"]
    ranks: dict[float, list[int]] = {a: [] for a in alphas}
    for q in asked:
        gold, vector = rig.gold(q), embedder.embed_query([q.question])[0]
        for a in alphas:
            v = centered(vector, rig.searcher.means.get("en"), a)
            hits = rig.store.search(COLLECTION, text=q.question, vector=v, k=50, mode="dense", sources=other)
            ranks[a].append(next((i for i, h in enumerate(hits) if h.chunk.chunk_id in gold), 50))
    return {
        f"alpha {a}": {f"gold in the best {n}": rate([r < n for r in found]) for n in (1, 8, 12, 50)}
        for a, found in ranks.items()
    }


def machine() -> str:
    found = subprocess.run(["grep", "-m1", "model name", "/proc/cpuinfo"], capture_output=True, text=True)
    return found.stdout.split(":", 1)[-1].strip() or platform.processor()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--size", type=int, default=190, help="questions generated (a fifth, the controls, dropped)"
    )
    p.add_argument("--seed", type=int, default=68)
    p.add_argument("--alphas", type=float, nargs="+", default=[1.0, 2.0, 3.0, 4.0, 6.0])
    p.add_argument("--cache", default=str(CACHE))
    args = p.parse_args()
    cache = Path(args.cache)
    dirs = data_dirs(cache)
    asked = questions(args.size, args.seed)
    rigs = {"mixed": Rig(dirs["mixed"], "zh-cn", {}), "english": Rig(dirs["english"], "en", {})}
    try:
        embedder = rigs["mixed"].runtime.embedder(rigs["mixed"].runtime.config)
        means = language_means(embedder.embed_passages, cache / "language_means.npz")
        for rig in rigs.values():
            rig.searcher.means = means
        report = {
            "command": " ".join(["python -m bench.mixed_languages", *sys.argv[1:]]),
            "date": time.strftime("%Y-%m-%d"),
            "cpu": machine(),
            "held-out chapters": list(HELDOUT_CHAPTERS),
            "mean norms": {k: round(float(np.linalg.norm(v)), 3) for k, v in means.items()},
            **measure(rigs, asked, args.alphas),
        }
    finally:
        for rig in rigs.values():
            rig.close()
    (cache / "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False), "utf-8")
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
