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

import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.devkit import DEVKIT, read_jsonl
from kimas_desktop.text.words import content_words
from tests.kimas_desktop.text import words_before_42

PAPERS = Path(__file__).resolve().parents[2] / "shared" / "papers"
HERE = Path(__file__).resolve().parent
Tokenize = Callable[[str], list[str]]
_RUN = re.compile(r"\w+")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


class BM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75) over passages tokenized by ``tokenize``."""

    def __init__(self, passages: Sequence[str], tokenize: Tokenize, k1: float = 1.2, b: float = 0.75) -> None:
        self._tokenize = tokenize
        self._docs = [Counter(tokenize(p)) for p in passages]
        self._lengths = [sum(d.values()) for d in self._docs]
        self._avg = sum(self._lengths) / max(len(self._docs), 1)
        df: Counter[str] = Counter(t for d in self._docs for t in d)
        n = len(self._docs)
        self._idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
        self._postings: dict[str, list[int]] = {}
        for i, d in enumerate(self._docs):
            for t in d:
                self._postings.setdefault(t, []).append(i)
        self._k1, self._b = k1, b

    def top(self, query: str, k: int = 5) -> list[int]:
        scores: dict[int, float] = {}
        for t in set(self._tokenize(query)):
            idf = self._idf.get(t, 0.0)
            for i in self._postings.get(t, ()):
                tf = self._docs[i][t]
                norm = self._k1 * (1 - self._b + self._b * self._lengths[i] / self._avg)
                scores[i] = scores.get(i, 0.0) + idf * tf * (self._k1 + 1) / (tf + norm)
        return sorted(scores, key=lambda i: scores[i], reverse=True)[:k]


def whitespace(text: str) -> list[str]:
    return text.lower().split()


def char_bigrams(text: str) -> list[str]:
    """Chinese characters as overlapping bigrams (a lone one as itself), other words whole, lower-cased."""
    out: list[str] = []
    for run in _RUN.findall(text.lower()):
        for piece in re.split(f"({_HAN.pattern}+)", run):
            if not piece:
                continue
            if _HAN.match(piece):
                out += [piece[i : i + 2] for i in range(max(len(piece) - 1, 1))]
            else:
                out.append(piece)
    return out


def _half(qid: str) -> str:
    return "tune" if hashlib.sha256(qid.encode()).digest()[0] % 2 == 0 else "held-out"


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
            hits[_half(q["_id"])].append(_in_top(index, passages, q["text"], answers[q["_id"]]))
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
