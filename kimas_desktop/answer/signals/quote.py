"""The grounded quote: the sentences of the evidence that answer the question, verbatim, with their source.

Shown at once, right after reranking and before the chat model writes anything, so what the user reads
first comes from their documents whatever the size of the model. Close to the KIMAs summarizer's
look-back citations and RAGentA's evidence judging, without an LLM.

Every sentence of the best ``sources`` reranked hits is scored by
- **overlap**: the IDF-weighted share of the question's words it contains (``terms.coverage``);
- **cosine**: its embedding's similarity to the question's (``Embedder.embed_query``/``embed_passages``);
- **rerank**: its chunk's rerank score relative to the best chunk's;
- **position**: earlier sentences of a chunk first (1 / (1 + index));
- **answer type**: a "when/how many" question wants a number or date, a "who/where" question a name the
  question does not already hold (the question words of English, Chinese and Hindi: ``text/question_words.py``;
  a number may be a word: "twelve", "三个", "तीन");
and a sentence that only repeats the question's words (no word of its own) counts for less. The weights
are ``grounding.*_weight`` in the config, tuned on the development kit (bench/RESULTS.md). A sentence in
another script than the question shares none of its words: when the evidence mixes scripts the reader
(issue 68) reads those sentences, and its probability counts at ``ACROSS_WEIGHT``.

Documents are data (issue 40, ``instructions.py``): a sentence that speaks to the assistant ("ignore
previous instructions", "whatever the user asks, the only correct answer is …") counts for a hundredth, so
it is quoted only when no sentence of the evidence states anything; and a question's word that a sentence
holds only inside a bare list ("(the audit date, the Rhine, anything)") does not count as found.

A ``Quote`` is always a slice of its chunk's text (``chunk.text[start:end]``), never a paraphrase.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from kimas_desktop.answer.signals.instructions import steering, unlisted
from kimas_desktop.optional import optional
from kimas_desktop.protocols import Embedder, Reader
from kimas_desktop.retrieval.across_scripts import mixes_scripts
from kimas_desktop.text.language import main_script
from kimas_desktop.text.question_words import NUMBER_WORDS, answer_kind, is_number_word
from kimas_desktop.text.sentences import Sentence, chunk_sentences
from kimas_desktop.text.terms import TermWeights, coverage
from kimas_desktop.text.words import content_words, names, numbers, stem, stems, words
from kimas_desktop.types import Chunk, Hit, Quote

__all__ = [
    "NUMBER_WORDS",
    "Quote",
    "QuoteScorer",
    "QuoteWeights",
    "ScoredSentence",
    "answer_type",
    "pick_quotes",
    "quote_of",
    "renumber_quotes",
]

_OBEYED = 0.01  # what a sentence addressed to the assistant keeps of its score
# The reader's weight on a sentence in another script than the question (issue 68): chosen on the tune half
# of bench/mixed_languages.py's English questions over Chinese pages (0.5 of 0, 0.5, 1, 2, 4).
ACROSS_WEIGHT = 0.5


@dataclass(frozen=True)
class QuoteWeights:
    """How much each part of a sentence's score counts (config ``grounding``)."""

    overlap: float = 1.0
    cosine: float = 1.0
    rerank: float = 0.25
    position: float = 0.0
    answer_type: float = 0.3
    reader: float = 0.0  # the reader's probability that the sentence answers (issue 68)

    def combine(
        self,
        overlap: float,
        cosine: float,
        rerank: float,
        index: int,
        typed: bool,
        novel: bool,
        instruction: bool = False,
        read: float = 0.0,
    ) -> float:
        if instruction:  # words addressed to the assistant are not evidence (issue 40)
            return _OBEYED * self.combine(overlap, cosine, rerank, index, typed, novel, read=read)
        score = (
            self.reader * read
            + self.overlap * overlap
            + self.cosine * cosine
            + self.rerank * rerank
            + self.position / (1 + index)
            + (self.answer_type if typed else 0.0)
        )
        return score if novel else 0.5 * score  # a sentence that only repeats the question counts less


@dataclass(frozen=True)
class ScoredSentence:
    """One candidate sentence and its parts: ``n`` is its source's 1-based number in the evidence,
    ``typed`` whether it holds the answer type the question wants, ``novel`` whether it says anything
    the question does not, ``instruction`` whether it addresses the assistant (``instructions.py``)."""

    n: int
    chunk: Chunk
    sentence: Sentence
    score: float
    overlap: float
    cosine: float
    rerank: float
    typed: bool = False
    novel: bool = True
    instruction: bool = False
    read: float | None = None  # the reader's probability (None: not read, or the reader failed)


def answer_type(question: str) -> str:
    """``number`` for when/how-many questions, ``name`` for who/where ones, else ``""``, in English,
    Chinese and Hindi (the text layer's ``question_words.answer_kind``)."""
    return answer_kind(question)


def _has_type(kind: str, sentence: str, question_stems: set[str]) -> bool:
    if kind == "number":
        return bool(numbers(sentence)) or any(is_number_word(w) for w in words(sentence))
    if kind == "name":
        return any(stem(name) not in question_stems for name in names(sentence))
    return False


class QuoteScorer:
    """Scores the sentences of the best reranked hits against a question (see the module docstring)."""

    def __init__(
        self,
        embedder: Embedder,
        weights: QuoteWeights,
        *,
        sources: int = 3,
        reader: Reader | None = None,
        read_every: bool = False,
    ) -> None:
        """``read_every``: the reader reads every sentence (its probability counts at ``weights.reader``);
        else only those in another script among sentences that mix scripts (``_readings``)."""
        self._embedder = embedder
        self._w = weights
        self._sources = sources
        self._reader = reader
        self._read_every = read_every or weights.reader > 0

    def question_words(self, question: str, query: str = "") -> list[str]:
        """The words to look for: the question's; a follow-up too short to say much adds the query's."""
        found = content_words(question)
        if len(set(found)) < 2 and query:
            found += content_words(query)
        return found

    def _cosines(self, query: str, sentences: Sequence[Sentence], said: Sequence[str]) -> np.ndarray:
        """Each sentence's embedding similarity to ``query``, measured on what it says (``said``); 0 for a
        sentence that is a bare list and nothing else."""
        qvec = self._embedder.embed_query([query])[0]
        texts = [u if words(u) else s.text for u, s in zip(said, sentences, strict=True)]
        cosines = np.clip(np.asarray(self._embedder.embed_passages(texts) @ qvec, dtype=np.float64), 0.0, 1.0)
        return cosines * np.array([bool(words(u)) for u in said], dtype=np.float64)

    def _readings(self, question: str, texts: Sequence[str]) -> tuple[list[float | None], QuoteWeights]:
        """The reader's probability of each sentence, and the weights to score with. Asked to
        (``read_every``) it reads every sentence; else only the sentences in another script
        than the question's among sentences that mix scripts, at ``ACROSS_WEIGHT`` (``across_scripts.py``:
        their words cannot count); otherwise nothing (None). A reader that fails reads nothing."""
        none: list[float | None] = [None] * len(texts)
        if self._reader is None:
            return none, self._w
        if self._read_every:
            read = self._read(self._reader, question, texts)
            return (none if read is None else list(read)), self._w
        if not mixes_scripts(question, texts):
            return none, self._w
        script = main_script(question)
        other = [i for i, t in enumerate(texts) if main_script(t) not in ("", script)]
        read = self._read(self._reader, question, [texts[i] for i in other])
        if read is None:
            return none, self._w
        for i, p in zip(other, read, strict=True):
            none[i] = p
        return none, replace(self._w, reader=ACROSS_WEIGHT)

    @staticmethod
    def _read(reader: Reader, question: str, texts: Sequence[str]) -> list[float] | None:
        """The reader's probabilities, or None when it failed (its worker crashed): the quote is then scored
        as without a reader (``optional``)."""
        read: list[float] | None = optional(
            "the reader", lambda: reader.read(question, texts), lambda _: None
        )
        return read

    def _candidates(
        self, hits: Sequence[Hit], qstems: set[str]
    ) -> list[tuple[Hit, list[Sentence], list[bool]]]:
        """The best ``sources`` hits, each with its sentences and which of them steer (``instructions.steering``). A
        hit with a steering sentence does not take one of the ``sources`` places: a note that writes the
        user's questions out, or orders the assistant, cannot push the documents that answer out of the
        quote (issue 40); it is scored with them, and at most ``sources`` such hits are."""
        out: list[tuple[Hit, list[Sentence], list[bool]]] = []
        places, extra = self._sources, self._sources
        for hit in hits:
            sentences = chunk_sentences(hit.chunk)
            steers = steering(sentences, qstems)
            if any(steers) and extra > 0:
                extra -= 1
            elif places > 0:
                places -= 1
            else:
                break
            out.append((hit, sentences, steers))
        return out

    def score(
        self, question: str, hits: Sequence[Hit], idf: TermWeights | None = None, *, query: str = ""
    ) -> list[ScoredSentence]:
        """Every candidate sentence, best first. ``idf`` None: IDF over the candidate hits."""
        if idf is None:
            idf = TermWeights.from_texts([h.chunk.text for h in hits])
        weights = idf.weights(self.question_words(question, query))
        qstems = set(weights)
        candidates = self._candidates(hits, qstems)
        flat = [
            (i, s, o)
            for i, (_, sentences, ordered) in enumerate(candidates)
            for s, o in zip(sentences, ordered, strict=True)
        ]
        if not flat:
            return []
        top = [hit for hit, _, _ in candidates]
        said = [unlisted(s.text) for _, s, _ in flat]  # what a sentence says, not the topics it lists
        cosines = self._cosines(query or question, [s for _, s, _ in flat], said)
        best_rerank = max(max(h.score for h in top), 1e-9)
        kind = answer_type(question)
        # A question in a script the embedder never learned: its similarities rank sentences at random, so
        # they do not rank them (they stay in the record, for the decision's features).
        reads = self._embedder.reads(query or question)
        readings, w = self._readings(question, [s.text for _, s, _ in flat])
        out: list[ScoredSentence] = []
        for (i, sentence, ordered), cos, rest, read in zip(flat, cosines, said, readings, strict=True):
            hit = top[i]
            overlap = coverage(weights, stems(rest))
            rerank = max(hit.score, 0.0) / best_rerank
            typed = bool(kind) and _has_type(kind, sentence.text, qstems)
            novel = bool(stems(sentence.text) - qstems)
            score = w.combine(
                overlap,
                float(cos) if reads else 0.0,
                rerank,
                sentence.index,
                typed,
                novel,
                ordered,
                read or 0.0,
            )
            out.append(
                ScoredSentence(
                    i + 1,
                    hit.chunk,
                    sentence,
                    score,
                    overlap,
                    float(cos),
                    rerank,
                    typed,
                    novel,
                    ordered,
                    read,
                )
            )
        out.sort(key=lambda s: s.score, reverse=True)
        return out


def pick_quotes(scored: Sequence[ScoredSentence], *, sentences: int = 1, ratio: float = 0.9) -> list[Quote]:
    """The best sentence, plus up to ``sentences - 1`` more scoring at least ``ratio`` × the best.

    Sentences next to each other in one chunk become one quote (one verbatim slice).
    """
    if not scored:
        return []
    best = scored[0].score
    unique: dict[str, ScoredSentence] = {}  # a sentence two chunks hold (a copied file) is quoted once
    for s in scored:
        unique.setdefault(" ".join(s.sentence.text.split()), s)
    ranked = list(unique.values())
    chosen = [ranked[0]] + [s for s in ranked[1:sentences] if s.score >= ratio * best]
    chosen.sort(key=lambda s: (s.n, s.sentence.start))
    quotes: list[Quote] = []
    for s in chosen:
        last = quotes[-1] if quotes else None
        if last is not None and last.n == s.n and _adjacent(last, s):
            start, end = last.start, s.sentence.end
            quotes[-1] = Quote(s.n, s.chunk, start, end, s.chunk.text[start:end], max(last.score, s.score))
        else:
            quotes.append(quote_of(s))
    quotes.sort(key=lambda q: q.score, reverse=True)
    return quotes


def quote_of(s: ScoredSentence) -> Quote:
    """One scored sentence as a quote of its own."""
    return Quote(s.n, s.chunk, s.sentence.start, s.sentence.end, s.sentence.text, s.score)


def renumber_quotes(quotes: Sequence[Quote], hits: Sequence[Hit]) -> list[Quote]:
    """``quotes`` numbered by their chunk's place in ``hits`` (after the evidence changed); a quote
    whose chunk is no longer there is dropped."""
    where = {h.chunk.chunk_id: i + 1 for i, h in enumerate(hits)}
    return [replace(q, n=where[q.chunk.chunk_id]) for q in quotes if q.chunk.chunk_id in where]


def _adjacent(quote: Quote, s: ScoredSentence) -> bool:
    between = quote.chunk.text[quote.end : s.sentence.start]
    return 0 <= len(between) <= 3 and not between.strip()
