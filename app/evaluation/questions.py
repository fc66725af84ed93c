"""A test set made from the user's own collections (issue 26), without an LLM.

**Known-item questions** (the simulated queries of Azzopardi, de Rijke & Balog, "Building simulated
queries for known-item topics", SIGIR 2007): a person remembers a passage and asks for it with a few of its
words. For a sample of chunks spread over the files, the generator takes the chunk's most distinctive
sentence (the highest inverse document frequency among its words, over the collection's own chunks), draws
four of its words with a probability that grows with how distinctive they are (so a question mixes rare and
common words, as people's do), and asks about them. The sentence is the expected evidence: a hit finds it
when it holds the sentence, whatever the chunk size, so one test set serves runs with other chunking. The
sentence's most distinctive word left out of the question (a name or a number when it has one) is the
answer the grounded quote should contain.

**Unanswerable controls**: a known-item question whose most distinctive word is swapped for a place the
collections never mention (from a short list); the documents are on the question's topic but lack its key
fact, so the right outcome is a decline.

Reads chunks only; never writes to the collections.
"""

from __future__ import annotations

import math
import random
import re
import time
import uuid
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kimas_desktop.text.sentences import chunk_sentences
from kimas_desktop.text.words import STOPWORDS, is_name, numbers, stem, stems, words
from kimas_desktop.types import Chunk

EVIDENCE_WORDS = (8, 45)  # a sentence this long (in words) can be asked about and quoted
QUERY_WORDS = 4
UNANSWERABLE_SHARE = 0.2
# Places for the unanswerable controls; one the collections never mention stands in for the key fact.
FOREIGN = (
    "Reykjavik Ulaanbaatar Tegucigalpa Nouakchott Vientiane Paramaribo Ashgabat Bujumbura Thimphu Podgorica "
    "Windhoek Antananarivo Chisinau Dushanbe Funafuti Gaborone Honiara Lilongwe Majuro Maseru Moroni Ngerulmud "
    "Nukualofa Palikir Tarawa Yaren Apia Asmara Bishkek Djibouti Malabo Mbabane Niamey Ouagadougou Roseau"
).split()


@dataclass(frozen=True)
class EvalQuestion:
    qid: str
    question: str
    answerable: bool
    collection: str = ""  # where the evidence is ("" for an unanswerable control)
    source: str = ""  # the file that holds it
    evidence: str = ""  # the passage (a sentence) that answers it
    answer: str = ""  # a word of the evidence the question does not contain
    origin: str = "known-item"  # known-item, control, or user


@dataclass(frozen=True)
class TestSet:
    set_id: str
    created: float
    method: str
    collections: tuple[str, ...]
    questions: tuple[EvalQuestion, ...] = field(default=())

    @property
    def answerable(self) -> int:
        return sum(q.answerable for q in self.questions)


def _content(text: str) -> list[str]:
    return [w for w in words(text) if w.lower() not in STOPWORDS and (len(w) > 2 or w.isdigit())]


class _Idf:
    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.n = max(1, len(chunks))
        self.df: Counter[str] = Counter()
        for c in chunks:
            self.df.update({stem(w.lower()) for w in _content(c.text)})

    def __call__(self, word: str) -> float:
        return math.log((self.n + 1) / (self.df.get(stem(word.lower()), 0) + 0.5))

    def mentions(self, word: str) -> bool:
        return self.df.get(stem(word.lower()), 0) > 0


def _prose(text: str) -> bool:
    letters = sum(ch.isalpha() for ch in text)
    return letters > 0.6 * len(text) and not text.lstrip().startswith(("|", "```", "#"))


def _best_sentence(chunk: Chunk, idf: _Idf) -> str | None:
    best, best_score = None, 0.0
    for s in chunk_sentences(chunk):
        text = " ".join(s.text.split())
        n = len(words(text))
        if not (EVIDENCE_WORDS[0] <= n <= EVIDENCE_WORDS[1]) or not _prose(text):
            continue
        weights = sorted((idf(w) for w in set(_content(text))), reverse=True)[:5]
        score = sum(weights)
        if len(weights) >= QUERY_WORDS + 1 and score > best_score:
            best, best_score = text, score
    return best


def _known_item(chunk: Chunk, sentence: str, idf: _Idf, rng: random.Random, qid: str) -> EvalQuestion:
    content = list(dict.fromkeys(_content(sentence)))
    tokens = words(sentence)
    marked = {w for i, w in enumerate(tokens) if is_name(w, i)} | set(numbers(sentence))
    by_idf = sorted(content, key=idf, reverse=True)
    answer = next((w for w in by_idf if w in marked), by_idf[0])
    pool = [w for w in content if w != answer]
    picked: list[str] = []
    while pool and len(picked) < QUERY_WORDS:
        w = rng.choices(pool, weights=[max(0.1, idf(x)) for x in pool])[0]
        picked.append(w)
        pool.remove(w)
    ordered = [w for w in content if w in picked]  # in the sentence's order, as a person recalls it
    return EvalQuestion(
        qid,
        f"What do the documents say about {' '.join(ordered)}?",
        True,
        chunk.collection,
        chunk.source,
        sentence,
        answer,
    )


def _control(q: EvalQuestion, idf: Callable[[str], float], foreign: str, qid: str) -> EvalQuestion:
    terms = re.sub(r"^What do the documents say about |\?$", "", q.question).split()
    key = max(terms, key=idf)
    swapped = " ".join(foreign if t == key else t for t in terms)
    return EvalQuestion(qid, f"What do the documents say about {swapped}?", False, origin="control")


def _spread(chunks: Sequence[Chunk], rng: random.Random) -> list[Chunk]:
    """The chunks in an order that visits every file before a second chunk of any."""
    by_file: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_file.setdefault(c.source, []).append(c)
    queues = list(by_file.values())
    for q in queues:
        rng.shuffle(q)
    rng.shuffle(queues)
    out: list[Chunk] = []
    while queues:
        queues = [q for q in queues if q]
        out.extend(q.pop() for q in queues)
    return out


def generate(
    chunks_by_collection: Mapping[str, Sequence[Chunk]],
    size: int = 200,
    *,
    seed: int = 26,
    progress: Callable[[int, int], None] | None = None,
) -> TestSet:
    """``size`` questions over the collections (in proportion to their chunks), a fifth of them
    unanswerable controls."""
    rng = random.Random(seed)
    total = sum(len(c) for c in chunks_by_collection.values()) or 1
    n_controls = round(size * UNANSWERABLE_SHARE)
    n_known = size - n_controls
    idfs = {name: _Idf(chunks) for name, chunks in chunks_by_collection.items()}
    questions: list[EvalQuestion] = []
    for name, chunks in chunks_by_collection.items():
        want = max(1, round(n_known * len(chunks) / total)) if chunks else 0
        made = 0
        for chunk in _spread(chunks, rng):
            if made >= want:
                break
            sentence = _best_sentence(chunk, idfs[name])
            if sentence is None:
                continue
            made += 1
            questions.append(_known_item(chunk, sentence, idfs[name], rng, f"k{len(questions) + 1}"))
            if progress:
                progress(len(questions), size)
    foreign = [f for f in FOREIGN if not any(idf.mentions(f) for idf in idfs.values())]
    sources = [q for q in questions if q.answerable]
    rng.shuffle(sources)
    for i, q in enumerate(sources[:n_controls]):
        idf = idfs[q.collection]
        questions.append(_control(q, idf, foreign[i % len(foreign)], f"u{i + 1}"))
    if progress:
        progress(len(questions), len(questions))
    return TestSet(
        uuid.uuid4().hex[:12],
        time.time(),
        "known-item questions without an LLM",
        tuple(chunks_by_collection),
        tuple(questions),
    )


def finds(evidence: str, source: str, chunk: Chunk) -> bool:
    """Whether ``chunk`` holds the expected evidence: the sentence (whitespace aside) in the same file, or
    most of its words when a chunk boundary cuts it; any chunk of the file when only the file is known."""
    if not source or Path(chunk.source) != Path(source):
        return False
    if not evidence:  # a question the user added names only the file
        return True
    if " ".join(evidence.split()) in " ".join(chunk.text.split()):
        return True
    want = stems(evidence)
    return bool(want) and len(want & stems(chunk.text)) >= 0.8 * len(want)
