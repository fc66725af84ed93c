"""BM25 with the text layer's tokens against simple baselines, retrieval-free (issue 42): does the one
tokenizer read Hindi and Chinese at least as well as the crude tokenizers a search engine falls back to?

- **Hindi** (``hindi_qa_bigbench_even``: 2,387 passages, 3,340 questions): answer-in-top-5 (a gold
  answer string inside one of the five best passages) with ``content_words`` (marks kept, Hindi
  stopwords) against a whitespace tokenizer (lower-cased ``str.split``) and the tokenizer before issue
  42. The questions are halved by a hash of their id: ``tune`` (the half any tuning may look at) and
  ``held-out`` (never looked at while building; the figure to quote).
- **Chinese**: the three Chinese papers (``../shared/papers/*.zh.txt``), one passage per non-empty line,
  and the 22 questions of ``bench/chinese_questions.json``, written and committed before the text layer
  was built and never tuned on: ``content_words`` (jieba) against character-bigram BM25 (bigrams of
  Chinese characters, Latin words whole: the classic CJK analyser) and the tokenizer before issue 42.

    python -m bench.text_scripts
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from bench.devkit import DEVKIT, read_jsonl
from bench.lexical import BM25, Tokenize, char_bigrams, half, whitespace
from kimas_desktop.text.words import content_words
from tests.kimas_desktop.text import words_before_42

PAPERS = Path(__file__).resolve().parents[2] / "shared" / "papers"
HERE = Path(__file__).resolve().parent


def _in_top(index: BM25, passages: Sequence[str], question: str, answers: Sequence[str], k: int = 5) -> bool:
    return any(a in passages[i] for i in index.top(question, k) for a in answers)


def hindi(tokenizers: dict[str, Tokenize]) -> dict[str, dict[str, float]]:
    folder = DEVKIT / "hindi_qa_bigbench_even"
    passages = [p["text"] for p in read_jsonl(folder / "corpus.jsonl")]
    answers = {a["_id"]: a["answers"] for a in read_jsonl(folder / "answers.jsonl")}
    questions = [q for q in read_jsonl(folder / "queries.jsonl") if answers.get(q["_id"])]
    out: dict[str, dict[str, float]] = {}
    for name, tokenize in tokenizers.items():
        index = BM25(passages, tokenize)
        hits: dict[str, list[bool]] = {"tune": [], "held-out": []}
        for q in questions:
            hits[half(q["_id"])].append(_in_top(index, passages, q["text"], answers[q["_id"]]))
        out[name] = {half: round(sum(v) / len(v), 3) for half, v in hits.items()}
        out[name]["n"] = len(questions)
    return out


def chinese(tokenizers: dict[str, Tokenize]) -> dict[str, dict[str, float]]:
    passages = [
        line.strip() for f in sorted(PAPERS.glob("*.zh.txt")) for line in f.read_text("utf-8").splitlines()
    ]
    passages = [p for p in passages if p]
    questions = json.loads((HERE / "chinese_questions.json").read_text("utf-8"))["questions"]
    out: dict[str, dict[str, float]] = {}
    for name, tokenize in tokenizers.items():
        index = BM25(passages, tokenize)
        found = [_in_top(index, passages, q["question"], q["answers"]) for q in questions]
        missed = [q["id"] for q, ok in zip(questions, found, strict=True) if not ok]
        out[name] = {"top5": round(sum(found) / len(found), 3), "n": len(found), "missed": missed}  # type: ignore[dict-item]
    return out


def main() -> None:
    before: Tokenize = words_before_42.content_words
    print("Hindi, answer in top 5:")
    for name, row in hindi(
        {"text layer": content_words, "whitespace": whitespace, "before 42": before}
    ).items():
        print(f"  {name:<12} {json.dumps(row)}")
    print("Chinese papers, 22 frozen questions, answer in top 5:")
    rows = chinese({"text layer": content_words, "char bigrams": char_bigrams, "before 42": before})
    for name, row in rows.items():
        print(f"  {name:<12} {json.dumps(row, ensure_ascii=False)}")


if __name__ == "__main__":
    main()
