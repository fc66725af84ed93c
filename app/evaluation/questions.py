"""A test set made from the user's own collections (issue 26), without an LLM.

**Known-item questions** (the simulated queries of Azzopardi, de Rijke & Balog, "Building simulated
queries for known-item topics", SIGIR 2007): a person remembers a passage and asks for it. For a sample of
chunks spread over the files, the generator takes the chunk's most distinctive sentence (the highest
inverse document frequency among its words, over the collection's own chunks) and asks about a phrase of
it, worded as a person asks ("What do the documents say about the Calloway signal box?", in the
sentence's language: ``phrases``). The sentence is the expected evidence: a hit finds it when it holds
the sentence, whatever the chunk size, so one test set serves runs with other chunking. The sentence's
most distinctive word left out of the question (a name or a number when it has one) is the answer the
grounded quote should contain. A sentence with no phrase to ask about (two to four words) is asked about
with four of its words drawn by how distinctive they are, as before.

Such questions are easier than a person's real ones (their words are the passage's own): ``EASINESS``
says so next to the figures. Use them to compare settings.

**Unanswerable controls**: a known-item question whose most distinctive word is swapped for a place the
collections never mention (from a short list); the documents are on the question's topic but lack its key
fact, so the right outcome is a decline.

Reads chunks only; never writes to the collections.
"""

from __future__ import annotations

import math
import random
import time
import uuid
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

from app.evaluation.phrases import Phrase, ask_about, best_phrase, language_of, swapped
from kimas_desktop.text.scripts import has_unspaced
from kimas_desktop.text.sentences import chunk_sentences, ends_sentence
from kimas_desktop.text.words import STOPWORDS, is_name, numbers, stem, stems, width, words
from kimas_desktop.types import Chunk

EVIDENCE_WORDS = (8, 45)  # a sentence this long (in words) can be asked about and quoted
QUERY_WORDS = 4
UNANSWERABLE_SHARE = 0.2
EASINESS = (
    "Known-item questions are easier than real questions (they use the passage's own words): use them to "
    "compare settings, not as a grade of the answers you will get."
)
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
    return [w for w in words(text) if w.lower() not in STOPWORDS and (width(w) > 2 or w.isdigit())]


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


def _unlabelled(sentence: str) -> str:
    """The sentence without a label line before it (a manual's "Tip" or "Note" box; a table's caption):
    one or two words with no sentence end, then the sentence on the next line."""
    label, _, rest = sentence.partition("\n")
    if rest.strip() and len(label.split()) <= 2 and not ends_sentence(label):
        return rest
    return sentence


def _best_sentence(chunk: Chunk, idf: _Idf) -> str | None:
    best, best_score = None, 0.0
    for s in chunk_sentences(chunk):
        text = " ".join(_unlabelled(s.text).split())
        n = len(words(text))
        if not (EVIDENCE_WORDS[0] <= n <= EVIDENCE_WORDS[1]) or not _prose(text):
            continue
        weights = sorted((idf(w) for w in set(_content(text))), reverse=True)[:5]
        score = sum(weights)
        if len(weights) >= QUERY_WORDS + 1 and score > best_score:
            best, best_score = text, score
    return best


def _answer(sentence: str, idf: _Idf) -> str:
    """The sentence's most distinctive name or number (its most distinctive word when it has none)."""
    tokens = words(sentence)
    marked = {w for i, w in enumerate(tokens) if is_name(w, i)} | set(numbers(sentence))
    by_idf = sorted(dict.fromkeys(_content(sentence)), key=idf, reverse=True)
    return next((w for w in by_idf if w in marked), by_idf[0])


def _drawn(sentence: str, answer: str, idf: _Idf, rng: random.Random) -> Phrase:
    """Four of the sentence's words drawn by how distinctive they are, in its order: the phrase of a
    sentence with no run of two to four words to ask about."""
    content = list(dict.fromkeys(_content(sentence)))
    pool = [w for w in content if w != answer]
    picked: list[str] = []
    while pool and len(picked) < QUERY_WORDS:
        w = rng.choices(pool, weights=[max(0.1, idf(x)) for x in pool])[0]
        picked.append(w)
        pool.remove(w)
    ordered = tuple(w for w in content if w in picked)  # in the sentence's order, as a person recalls it
    return Phrase(_joined(ordered), ordered, language_of(sentence))  # asked in the sentence's language


def _joined(tokens: Sequence[str]) -> str:
    """The words as their scripts write them: Chinese or Japanese ones unspaced, a space next to any other
    ("Debian main アーカイブ")."""
    out = tokens[0] if tokens else ""
    for a, b in pairwise(tokens):
        out += ("" if has_unspaced(a) and has_unspaced(b) else " ") + b
    return out


def _known_item(
    chunk: Chunk, sentence: str, idf: _Idf, rng: random.Random, qid: str
) -> tuple[EvalQuestion, Phrase]:
    answer = _answer(sentence, idf)
    phrase = best_phrase(sentence, idf, answer) or _drawn(sentence, answer, idf, rng)
    question = EvalQuestion(qid, ask_about(phrase), True, chunk.collection, chunk.source, sentence, answer)
    return question, phrase


def _control(phrase: Phrase, idf: Callable[[str], float], foreign: str, qid: str) -> EvalQuestion:
    key = max(phrase.words, key=idf)
    text = ask_about(phrase, swapped(phrase, key, foreign))
    return EvalQuestion(qid, text, False, origin="control")


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
    phrases: dict[str, Phrase] = {}
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
            question, phrases[question.qid] = _known_item(
                chunk, sentence, idfs[name], rng, f"k{len(questions) + 1}"
            )
            questions.append(question)
            if progress:
                progress(len(questions), size)
    foreign = [f for f in FOREIGN if not any(idf.mentions(f) for idf in idfs.values())]
    sources = [q for q in questions if q.answerable]
    rng.shuffle(sources)
    for i, q in enumerate(sources[:n_controls]):
        idf = idfs[q.collection]
        questions.append(_control(phrases[q.qid], idf, foreign[i % len(foreign)], f"u{i + 1}"))
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
