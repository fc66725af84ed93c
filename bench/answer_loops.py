"""Loops and what the embedded model's writing adds (issue 69), measured through the product's own path:
`kimas ask --batch --json --preset full` with the embedded chat model (SmolLM2-135M), on held-out questions
in English and Chinese. The figures per question set are ``bench.loops.tally``'s (the loop detector, written
apart from the product's stream guard, and the definitions are in its docstring).

Question sets (the held-out half of each, ``bench.lexical.half``; nothing here is tuned, so the tune half is
not asked):
- ``en``: answerable SQuAD-Shifts questions (new Wikipedia and NYT domains, all their passages indexed as
  one collection per domain, one Markdown file per article: ``bench.devkit.write_squad_holdout``); gold: the
  dev kit's answer strings.
- ``zh-frozen``: the Chinese questions of ``bench/chinese_questions.json`` over the seed papers
  (``../shared/papers/``, one collection, multilingual-e5-small as a new Chinese library gets it); gold:
  their answers.
- ``zh-generated``: the Evaluation tab's known-item questions (``app.evaluation.questions.generate``, seed
  69) over the chunks of the Chinese papers, those it words in Chinese ("文档中关于…是怎么说的？"; a phrase it
  takes for English, often code, gets the English wording and is left out); gold: the evidence's word the question
  leaves out (``EvalQuestion.answer``, a weaker gold than the frozen set's).
- ``zh-debian``: as many more (to ``--zh`` in all) of the same generator's questions worded in Chinese over
  the Debian Reference in Chinese (``/usr/share/debian-reference/*.zh-cn.html``, seed 42 as
  ``bench.language_answers`` asks them), its own data dir.

The product runs from ``git archive`` of ``--ref`` (default HEAD) unpacked in the cache, so other changes in
the working tree do not enter the run. Each answer is appended to ``asked-SET-REF.jsonl`` as it comes, so a
run resumes where it stopped; the sets are asked in alternating rounds of ``--chunk`` questions, so a run
cut short has figures for each.

    nice -n 5 .venv/bin/python -m bench.answer_loops [--en 150] [--zh 100] [--chunk 25] [--ref REF]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.evaluation.phrases import ASK
from app.evaluation.questions import EvalQuestion, generate
from bench.devkit import write_squad_holdout
from bench.language_sets import DEBIAN, chunks_of
from bench.lexical import half
from bench.loops import Shown, tally
from bench.workspace import configure, old_tree

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ROOT.parent / "shared" / "papers"
QUESTIONS = Path(__file__).resolve().parent / "chinese_questions.json"
DOMAINS = ("squadshifts_new_wiki", "squadshifts_nyt")
ZH_ASK = ASK["zh"].partition("{}")[0]  # a generated question in Chinese words (a code phrase gets English)
WARM_UP = "warm-up"  # asked first in every batch and left out: the model's load is not an answer's time

Item = tuple[str, str, tuple[str, ...]]  # id, question, gold


def _index(tree: Path, data: Path, folders: dict[str, Path], **sections: Any) -> None:
    """Index each folder with the product's `kimas index` (once: the data dir keeps a mark)."""
    if (data / ".indexed").exists():
        return
    data, folders = data.resolve(), {name: f.resolve() for name, f in folders.items()}
    configure(data, folders, **sections)
    for name, folder in folders.items():
        cmd = [sys.executable, "-m", "cli.main", "index", str(folder), "--data-dir", str(data)]
        subprocess.run([*cmd, "--collection", name, "--quiet"], cwd=tree, check=True, stdout=sys.stderr)
    (data / ".indexed").write_text("")


def held_out_chinese(made: Sequence[EvalQuestion]) -> list[Item]:
    """The generated known-item questions worded in Chinese, of the held-out half, with their gold word."""
    return [
        (q.qid, q.question, (q.answer,))
        for q in made
        if q.answerable and q.answer and q.question.startswith(ZH_ASK) and half(q.qid) == "held-out"
    ]


def english(cache: Path, tree: Path, n: int) -> tuple[Path, list[Item]]:
    folders = {d: cache / "docs" / d for d in DOMAINS}
    items: list[Item] = []
    for d in DOMAINS:
        asked = write_squad_holdout(d, folders[d], 0, 8 * n).answerable
        kept = [q for q in asked if q.answers and half(q.qid) == "held-out"]
        items += [(q.qid, q.text, q.answers) for q in kept[: -(-n // len(DOMAINS))]]
    data = cache / "squad"
    _index(tree, data, folders)
    return data, items[:n]


def chinese(cache: Path, tree: Path, n: int) -> tuple[Path, list[Item], list[Item]]:
    """The seed papers' data dir, the frozen questions and the generated ones (``n`` in all)."""
    folder, data = cache / "docs" / "papers", cache / "papers"
    if not folder.exists():
        shutil.copytree(PAPERS, folder, ignore=shutil.ignore_patterns("README.md"))
    _index(tree, data, {"papers": folder}, embedding={"name": "multilingual-e5-small"})
    frozen = [
        (q["id"], q["question"], tuple(q["answers"]))
        for q in json.loads(QUESTIONS.read_text("utf-8"))["questions"]
        if half(q["id"]) == "held-out"
    ][:n]
    zh = [c for c in chunks_of(data, "papers") if c.source.endswith(".zh.txt")]
    generated = held_out_chinese(generate({"papers": zh}, 400, seed=69).questions)  # fixed: n takes a prefix
    return data, frozen, generated[: n - len(frozen)]


def debian(cache: Path, tree: Path, n: int) -> tuple[Path, list[Item]]:
    """The Debian Reference in Chinese (zh-cn), its data dir and ``n`` generated questions worded in Chinese
    (seed 42, as ``bench.language_answers`` asks them)."""
    folder, data = cache / "docs" / "debian-zh-cn", cache / "debian-zh-cn"
    if not folder.exists():
        folder.mkdir(parents=True)
        for f in sorted(DEBIAN.glob("*.zh-cn.html")):
            shutil.copy(f, folder / f.name)
    _index(tree, data, {"debian": folder}, embedding={"name": "multilingual-e5-small"})
    return data, held_out_chinese(generate({"debian": chunks_of(data, "debian")}, 400, seed=42).questions)[:n]


def ask(tree: Path, data: Path, items: list[Item], saved: Path) -> None:
    """Ask ``items`` with `kimas ask --batch --json --preset full`, appending each answer to ``saved`` as it
    comes (a warm-up question first, not kept)."""
    if not items:
        return
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as f:
        f.write(json.dumps({"id": WARM_UP, "question": items[0][1]}, ensure_ascii=False) + "\n")
        f.writelines(json.dumps({"id": i, "question": q}, ensure_ascii=False) + "\n" for i, q, _ in items)
    cmd = [sys.executable, "-m", "cli.main", "ask", "--batch", f.name, "--data-dir", str(data)]
    with (
        subprocess.Popen(
            [*cmd, "--json", "--preset", "full"],
            cwd=tree,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
        ) as proc,
        saved.open("a", encoding="utf-8") as out,
    ):
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.strip() and json.loads(line).get("id") != WARM_UP:
                out.write(line if line.endswith("\n") else line + "\n")
                out.flush()
    os.unlink(f.name)
    if proc.returncode:
        raise SystemExit(f"kimas ask failed ({proc.returncode}) on a batch of {len(items)}")


def answered(saved: Path) -> dict[str, dict[str, Any]]:
    if not saved.exists():
        return {}
    rows = (json.loads(ln) for ln in saved.read_text("utf-8").splitlines() if ln.strip())
    return {r["id"]: r for r in rows}


def run(cache: Path, tree: Path, ref: str, sets: dict[str, tuple[Path, list[Item]]], chunk: int) -> None:
    """Ask every set's questions not yet answered, ``chunk`` of each set in turn."""
    while True:
        asked_any = False
        for name, (data, items) in sets.items():
            saved = cache / f"asked-{name}-{ref}.jsonl"
            done = answered(saved)
            todo = [it for it in items if it[0] not in done][:chunk]
            if todo:
                ask(tree, data, todo, saved)
                asked_any = True
                print(f"{name}: {len(done) + len(todo)} of {len(items)}", file=sys.stderr, flush=True)
        if not asked_any:
            return


def report(cache: Path, ref: str, sets: dict[str, tuple[Path, list[Item]]]) -> dict[str, Any]:
    """Each set's figures, then each language's (the sets named ``LANG-…`` together)."""
    rows: dict[str, list[Shown]] = {}
    for name, (_, items) in sets.items():
        done = answered(cache / f"asked-{name}-{ref}.jsonl")
        rows[name] = [Shown.of(i, gold, done[i]) for i, _, gold in items if i in done]
    out: dict[str, Any] = {name: tally(shown) for name, shown in rows.items()}
    for lang in sorted({name.partition("-")[0] for name in rows if "-" in name}):
        out[f"{lang} (all)"] = tally(
            [r for name, shown in rows.items() if name.startswith(lang) for r in shown]
        )
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--en", type=int, default=150, help="English questions")
    p.add_argument("--zh", type=int, default=100, help="Chinese questions (the frozen ones first)")
    p.add_argument("--chunk", type=int, default=25, help="questions of each set per round")
    p.add_argument("--ref", default="HEAD", help="the git ref of the product asked (resume: the same one)")
    p.add_argument("--report-only", action="store_true", help="the figures of the answers kept so far")
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "answer_loops"))
    args = p.parse_args()
    cache = Path(args.cache)
    ref = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", args.ref], capture_output=True, text=True, check=True
    ).stdout.strip()
    tree = old_tree(cache, ref, prefix="tree")
    en_data, en = english(cache, tree, args.en)
    zh_data, frozen, generated = chinese(cache, tree, args.zh)
    sets = {
        "en": (en_data, en),
        "zh-frozen": (zh_data, frozen),
        "zh-generated": (zh_data, generated),
        "zh-debian": debian(cache, tree, args.zh - len(frozen) - len(generated)),
    }
    if not args.report_only:
        run(cache, tree, ref, sets, args.chunk)
    print(json.dumps({"ref": ref, **report(cache, ref, sets)}, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
