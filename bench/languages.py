"""Retrieval in every language through the product (issue 42): Hindi against whitespace BM25, and the
Debian Reference in English, German, Japanese and Chinese against the classic tokenizers.

- **Hindi** (``hindi_qa_bigbench_even``): the 2,387 passages as one file each, indexed by `kimas index`
  (embedded models), every question of a half through `kimas retrieve --batch`. Answer in the top 5: a gold
  answer string inside one of the five passages it returns. The baseline is BM25 (k1 1.2, b 0.75) with a
  whitespace tokenizer over the same passages. The halves are ``bench.text_scripts``' (a hash of the id):
  the Hindi stemmer was chosen on ``tune``; ``held-out`` is the figure to quote.
- **Debian Reference** (`apt-get install debian-reference-de debian-reference-ja debian-reference-zh-cn
  debian-reference-en`, HTML under ``/usr/share/debian-reference``): one collection per language, the same
  guide in each. Known-item questions made by ``kimas eval``'s generator (``app.evaluation.questions``:
  four distinctive words of a passage's sentence), asked as the words alone, written as the language
  writes them (Chinese and Japanese words without spaces between them). Recall@5: a returned passage holds
  the sentence (``questions.finds``). Baselines over the product's own chunks: BM25 with a whitespace
  tokenizer, and for Chinese and Japanese with character bigrams.

    python -m bench.languages [--hindi-half held-out] [--hindi-limit N] [--debian-size 100] [--languages en de ja zh-cn]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.evaluation.questions import EvalQuestion, finds, generate
from bench.devkit import DEVKIT, kimas_batch, rate, read_jsonl
from bench.grounding import hits_of
from bench.lexical import BM25, char_bigrams, half, whitespace
from bench.workspace import configure
from kimas_desktop.text.scripts import has_unspaced
from kimas_desktop.text.words import words
from kimas_desktop.types import Chunk

ROOT = Path(__file__).resolve().parents[1]
DEBIAN = Path("/usr/share/debian-reference")


def index(data: Path, collection: str, folder: Path) -> None:
    configure(data, {collection: folder})
    cmd = [sys.executable, "-m", "cli.main", "index", str(folder), "--data-dir", str(data)]
    subprocess.run([*cmd, "--collection", collection, "--quiet"], cwd=ROOT, check=True)


def retrieve(data: Path, questions: dict[str, str]) -> dict[str, list[Chunk]]:
    found = kimas_batch("retrieve", data, [{"id": k, "question": q} for k, q in questions.items()])
    return {k: [h.chunk for h in hits_of(r)][:5] for k, r in found.items()}


def hindi(cache: Path, which: str, limit: int | None = None) -> dict[str, Any]:
    folder, data = cache / "hindi" / "docs", cache / "hindi" / "data"
    passages = [p["text"] for p in read_jsonl(DEVKIT / "hindi_qa_bigbench_even" / "corpus.jsonl")]
    if not folder.exists():
        folder.mkdir(parents=True)
        for i, text in enumerate(passages):
            (folder / f"p{i:05d}.txt").write_text(text + "\n", "utf-8")
    index(data, "hindi", folder)
    answers = {
        a["_id"]: a["answers"] for a in read_jsonl(DEVKIT / "hindi_qa_bigbench_even" / "answers.jsonl")
    }
    qs = {
        q["_id"]: q["text"]
        for q in read_jsonl(DEVKIT / "hindi_qa_bigbench_even" / "queries.jsonl")
        if answers.get(q["_id"]) and half(q["_id"]) == which
    }
    qs = dict(list(qs.items())[:limit])
    found = retrieve(data, qs)
    product = [any(a in c.text for c in found[k] for a in answers[k]) for k in qs]
    out = {"half": which, "questions": len(qs), "product": rate(product)}
    chunks = [c.text for c in chunks_of(data, "hindi")]
    for unit, texts in (("passages", passages), ("the product's chunks", chunks)):
        bm25 = BM25(texts, whitespace)
        hits = [any(a in texts[i] for i in bm25.top(q, 5) for a in answers[k]) for k, q in qs.items()]
        out[f"whitespace BM25 over {unit}"] = rate(hits)
    return out


def asked(q: EvalQuestion) -> str:
    """The question's words as the language writes them: no space between two words of an unspaced script."""
    terms = q.question.removeprefix("What do the documents say about ").removesuffix("?").split()
    out = terms[:1]
    for w in terms[1:]:
        out.append(w if has_unspaced(w) and has_unspaced(out[-1]) else " " + w)
    return "".join(out)


def chunks_of(data: Path, collection: str) -> list[Chunk]:
    from app.paths import read_config, resolve_paths
    from app.runtime import Runtime

    paths = resolve_paths(str(data), None)
    runtime = Runtime(paths, read_config(paths))
    try:
        return list(runtime.store().chunks(collection))
    finally:
        runtime.close()


def baseline(chunks: Sequence[Chunk], qs: Sequence[EvalQuestion], tokenize: Any) -> float | None:
    bm25 = BM25([c.text for c in chunks], tokenize)
    return rate([any(finds(q.evidence, q.source, chunks[i]) for i in bm25.top(asked(q), 5)) for q in qs])


def debian(cache: Path, lang: str, size: int) -> dict[str, Any]:
    folder, data = cache / f"debian-{lang}" / "docs", cache / f"debian-{lang}" / "data"
    if not folder.exists():
        folder.mkdir(parents=True)
        for f in sorted(DEBIAN.glob(f"*.{lang}.html")):
            shutil.copy(f, folder / f.name)
    index(data, "debian", folder)
    chunks = chunks_of(data, "debian")
    qs = [q for q in generate({"debian": chunks}, size, seed=42).questions if q.answerable]
    found = retrieve(data, {q.qid: asked(q) for q in qs})
    out: dict[str, Any] = {
        "language": lang,
        "chunks": len(chunks),
        "questions": len(qs),
        "example": asked(qs[0]) if qs else "",
        "product recall@5": rate([any(finds(q.evidence, q.source, c) for c in found[q.qid]) for q in qs]),
        "whitespace BM25": baseline(chunks, qs, whitespace),
    }
    if lang in ("ja", "zh-cn"):
        out["bigram BM25"] = baseline(chunks, qs, lambda t: char_bigrams(t) + _kana_bigrams(t))
    return out


def _kana_bigrams(text: str) -> list[str]:
    """Bigrams of kana runs (``char_bigrams`` reads Chinese characters only)."""
    out: list[str] = []
    for w in words(text):
        if any("\u3040" <= ch <= "\u30ff" for ch in w):
            out += [w[i : i + 2] for i in range(max(len(w) - 1, 1))]
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hindi-half", default="held-out", choices=["held-out", "tune", "none"])
    p.add_argument("--hindi-limit", type=int, default=None, help="only the half's first N questions")
    p.add_argument("--debian-size", type=int, default=100, help="known-item questions per language")
    p.add_argument("--languages", nargs="*", default=["en", "de", "ja", "zh-cn"])
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "languages"))
    args = p.parse_args()
    cache = Path(args.cache)
    report: dict[str, Any] = {}
    if args.hindi_half != "none":
        report["hindi"] = hindi(cache, args.hindi_half, args.hindi_limit)
        print(json.dumps(report["hindi"]), file=sys.stderr, flush=True)
    for lang in args.languages:
        report[f"debian {lang}"] = debian(cache, lang, args.debian_size)
        print(json.dumps(report[f"debian {lang}"], ensure_ascii=False), file=sys.stderr, flush=True)
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
