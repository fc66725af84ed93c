"""Chinese follow-ups over the seed papers (issue 69): does a follow-up bind to the previous turn's subject?

    nice -n 5 .venv/bin/python -m bench.chinese_followups [--cache bench/.cache/chinese_followups]

``bench/chinese_followups.json`` holds Chinese conversations of 3–4 turns written from the seed papers
(``../shared/papers``). Every turn after the first is asked through the product's real pipeline
(``Pipeline.retrieve``: the context manager's decision and rewrite, routing, retrieval, rerank) over the
papers indexed as one collection with multilingual-e5-small, with the turns before it (answers naming their
paper) as the history. The chat model is the embedded one, so the rewrite is the heuristic one.

- a **follow-up** (它, 它的, 其, 该框架, 第二个阶段 …) is **bound** when its search query names its
  subject (one of the subject's aliases, as a whole word) and no subject of an earlier turn that lives in
  another paper (the RAGentA-after-KAG trap), unless the question names it itself;
- a **shift** (names a new subject) is **wrongly bound** when its query names the previous turn's subject
  from another paper that the question does not name;
- **top-1 paper**: the passage ranked first comes from the subject's paper.

Figures on the tune and held-out halves (``bench.lexical.half`` of the conversation id); rules are fitted
on the tune half only.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.lexical import half
from bench.workspace import configure, index_folders
from kimas_desktop.text.words import words
from kimas_desktop.types import Message

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ROOT.parent / "shared" / "papers"
SET = Path(__file__).resolve().parent / "chinese_followups.json"
EMBEDDER = "multilingual-e5-small"  # what a new library of Chinese papers is built with (FirstEmbedder)


@dataclass(frozen=True)
class Subject:
    name: str
    aliases: tuple[str, ...]
    file: str


@dataclass(frozen=True)
class Item:
    """One measured turn: its question, the turns before it, what it must bind to and what it must not."""

    qid: str
    conversation: str
    kind: str  # "follow-up" | "shift"
    question: str
    history: tuple[Message, ...]
    subject: Subject
    avoid: tuple[Subject, ...]  # earlier subjects from other papers the query must not name


def load(folder: Path) -> list[Item]:
    """The set's measured turns; an answer in the history names the paper of its turn's subject."""
    data = json.loads(SET.read_text("utf-8"))
    subjects = {n: Subject(n, tuple(s["aliases"]), s["file"]) for n, s in data["subjects"].items()}
    items: list[Item] = []
    for conv in data["conversations"]:
        turns = conv["turns"]
        for k, turn in enumerate(turns):
            if turn["kind"] not in ("follow-up", "shift"):
                continue
            history: list[Message] = []
            for t in turns[:k]:
                source = str(folder / subjects[t["subject"]].file)
                history += [Message("user", t["q"]), Message("assistant", t["a"], (source,))]
            subject = subjects[turn["subject"]]
            earlier = turns[:k] if turn["kind"] == "follow-up" else turns[k - 1 : k]
            avoid = {
                subjects[t["subject"]].name: subjects[t["subject"]]
                for t in earlier
                if subjects[t["subject"]].file != subject.file
            }
            qid = f"{conv['id']}-{k}"
            items.append(
                Item(qid, conv["id"], turn["kind"], turn["q"], tuple(history), subject, tuple(avoid.values()))
            )
    return items


def names(text: str, subject: Subject) -> bool:
    """Whether ``text`` names ``subject`` (an alias as a whole word, case folded)."""
    tokens = {w.casefold() for w in words(text)}
    return any(a.casefold() in tokens for a in subject.aliases)


def judge(item: Item, query: str, top: Sequence[str]) -> dict[str, Any]:
    """The row of one turn: what its query names and where its first passages come from."""
    wrong = [s.name for s in item.avoid if names(query, s) and not names(item.question, s)]
    row: dict[str, Any] = {
        "id": item.qid,
        "half": half(item.conversation),
        "kind": item.kind,
        "question": item.question,
        "query": query,
        "names_subject": names(query, item.subject),
        "wrong_subjects": wrong,
        "top1_paper": bool(top) and top[0] == item.subject.file,
        "top": list(top),
    }
    row["bound"] = row["names_subject"] and not wrong
    return row


def prepare(cache: Path) -> tuple[Any, Path]:
    """The product's pipeline over the seed papers, indexed once into ``cache``."""
    from app.paths import read_config, resolve_paths
    from app.runtime import Runtime

    folder = cache / "papers"
    if not folder.exists():
        shutil.copytree(PAPERS, folder, ignore=shutil.ignore_patterns("README.md"))
    data = cache / "data"
    if not (data / "config.toml").exists():
        runtime = configure(data, {"papers": folder}, embedding={"name": EMBEDDER})
        index_folders(runtime, {"papers": folder})
    paths = resolve_paths(str(data), None)
    return Runtime(paths, read_config(paths, preset=None)).pipeline(), folder.resolve()


def share(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    flags = [bool(r[key]) for r in rows]
    return {"share": round(sum(flags) / len(flags), 3) if flags else None, "n": len(flags)}


def figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in ("tune", "held-out"):
        mine = [r for r in rows if r["half"] == part]
        follow = [r for r in mine if r["kind"] == "follow-up"]
        shifts = [r for r in mine if r["kind"] == "shift"]
        out[part] = {
            "follow-ups bound to the previous turn's subject": share(follow, "bound"),
            "follow-ups naming an older subject of another paper": share(
                [{"x": bool(r["wrong_subjects"])} for r in follow], "x"
            ),
            "follow-ups, top-1 passage from the subject's paper": share(follow, "top1_paper"),
            "topic shifts wrongly bound": share([{"x": bool(r["wrong_subjects"])} for r in shifts], "x"),
            "topic shifts, top-1 passage from the subject's paper": share(shifts, "top1_paper"),
        }
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "chinese_followups"))
    p.add_argument("--out", default="", help="write every turn's row here (JSON)")
    args = p.parse_args()
    pipeline, folder = prepare(Path(args.cache))
    rows = []
    for item in load(folder):
        result = pipeline.retrieve(item.question, item.history)
        top = [Path(h.chunk.source).name for h in result.hits[:5]]
        row = judge(item, result.query, top)
        row["depends"] = result.decision.depends if result.decision else None
        rows.append(row)
        print(item.qid, row["bound"], row["query"][:120], file=sys.stderr, flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(rows, ensure_ascii=False, indent=1), "utf-8")
    print(json.dumps(figures(rows), ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
