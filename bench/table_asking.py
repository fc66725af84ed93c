"""Table questions through the product's whole ask path, for the table benchmarks: the files written to a
folder, indexed into a fresh data dir by `kimas index` (the product's indexer into LanceDB, the embedding
model it chooses for a new library, or the one named), and every question asked by `kimas ask --batch
--json` (``app.runtime``'s pipeline with the embedded models: search, the table answer, the answer policy).
A follow-up is asked after its question, with that question and its answer (and the files it cited) as the
conversation. A library, not a benchmark.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.devkit import kimas_batch
from bench.workspace import ROOT, configure

__all__ = ["Asked", "ask_all", "index_files"]


def index_files(files: dict[str, bytes], cache: Path, collection: str, embedder: str = "") -> Path:
    """``files`` (name → bytes) written to ``cache/docs`` and indexed by `kimas index` into the data dir
    ``cache/data`` (emptied first); ``embedder``: an embedding model to name in the config first ("": the
    one `kimas index` chooses for a new library). The data dir."""
    shutil.rmtree(cache, ignore_errors=True)
    docs, data = cache / "docs", cache / "data"
    docs.mkdir(parents=True)
    for name, raw in files.items():
        (docs / name).write_bytes(raw)
    if embedder:
        configure(data, {}, embedding={"name": embedder}).close()
    cmd = [sys.executable, "-m", "cli.main", "index", str(docs), "--data-dir", str(data)]
    done = subprocess.run(
        [*cmd, "--collection", collection, "--quiet"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise SystemExit(f"kimas index failed:\n{done.stderr[-3000:]}")
    print(done.stdout.strip(), done.stderr.strip(), file=sys.stderr)
    return data


@dataclass(frozen=True)
class Asked:
    """One question to ask: its id, its text, and the question it follows ("" for none)."""

    id: str
    question: str
    after: str = ""


def ask_all(data: Path, asked: Sequence[Asked]) -> dict[str, dict[str, Any]]:
    """Each question's `kimas ask --json` result by id. The questions a follow-up follows are asked first
    (again, when they are in ``asked`` too: each is its conversation's first question)."""
    befores = sorted({a.after for a in asked if a.after})
    first = [{"id": a.id, "question": a.question} for a in asked if not a.after]
    first += [{"id": f"before {i}", "question": q} for i, q in enumerate(befores)]
    out = kimas_batch("ask", data, first, "--json")
    said = {q: out[f"before {i}"] for i, q in enumerate(befores)}
    follow = [
        {"id": a.id, "question": a.question, "history": _history(a.after, said[a.after])}
        for a in asked
        if a.after
    ]
    if follow:
        out |= kimas_batch("ask", data, follow, "--json")
    return out


def _history(question: str, answer: dict[str, Any]) -> list[dict[str, Any]]:
    cited = list(dict.fromkeys(c["source"] for c in answer.get("citations") or []))
    return [
        {"role": "user", "content": question},
        {"role": "assistant", "content": answer.get("answer") or "", "sources": cited},
    ]
