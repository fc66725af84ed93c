"""What the language benchmarks share (`bench.languages`, `bench.language_answers`): the Hindi dev kit and
the Debian Reference indexed through the product, their questions, the product's chunks, and the BM25
baselines over them (see `bench.languages`' docstring for the figures' definitions)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.evaluation.phrases import ASK
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


def index(data: Path, collection: str, folder: Path, **sections: Any) -> None:
    """Index ``folder`` into ``collection`` of ``data`` with `kimas index` (``sections``: config overrides,
    e.g. ``embedding={"name": "multilingual-e5-small"}``)."""
    configure(data, {collection: folder}, **sections)
    cmd = [sys.executable, "-m", "cli.main", "index", str(folder), "--data-dir", str(data)]
    subprocess.run([*cmd, "--collection", collection, "--quiet"], cwd=ROOT, check=True)


def retrieve(data: Path, questions: dict[str, str]) -> dict[str, list[Chunk]]:
    found = kimas_batch("retrieve", data, [{"id": k, "question": q} for k, q in questions.items()])
    return {k: [h.chunk for h in hits_of(r)][:5] for k, r in found.items()}


def hindi(cache: Path, which: str, limit: int | None = None, **sections: Any) -> dict[str, Any]:
    folder, data = cache / "hindi" / "docs", cache / "hindi" / "data"
    passages = [p["text"] for p in read_jsonl(DEVKIT / "hindi_qa_bigbench_even" / "corpus.jsonl")]
    if not folder.exists():
        folder.mkdir(parents=True)
        for i, text in enumerate(passages):
            (folder / f"p{i:05d}.txt").write_text(text + "\n", "utf-8")
    index(data, "hindi", folder, **sections)
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
    """The phrase the question asks about, alone: the question without its template (``phrases.ASK``, in
    the phrase's language: "文档中关于{}是怎么说的？"), no space between two words of an unspaced script."""
    text = q.question
    for template in ASK.values():
        head, _, tail = template.partition("{}")
        if text.startswith(head) and text.endswith(tail) and len(text) > len(head) + len(tail):
            text = text[len(head) : len(text) - len(tail)]
            break
    terms = text.split()
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


def debian_data(cache: Path, lang: str, **sections: Any) -> Path:
    """The data dir of the Debian Reference in ``lang``, indexed (once: a second call finds nothing new)."""
    folder, data = cache / f"debian-{lang}" / "docs", cache / f"debian-{lang}" / "data"
    if not folder.exists():
        folder.mkdir(parents=True)
        for f in sorted(DEBIAN.glob(f"*.{lang}.html")):
            shutil.copy(f, folder / f.name)
    index(data, "debian", folder, **sections)
    return data


def debian(cache: Path, lang: str, size: int, **sections: Any) -> dict[str, Any]:
    data = debian_data(cache, lang, **sections)
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
