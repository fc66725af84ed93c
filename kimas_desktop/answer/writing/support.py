"""The support check (RAGentA's faithfulness check, without an LLM): is each answer sentence backed by the
sources the model was given? The sources that back it are the answer's citations.

For every sentence of the finished answer:
- its **facts** (numbers, dates and capitalized names) must each appear in a source; one that appears
  nowhere makes the sentence unsupported, whatever else it shares with the sources ("The answer is: 1013");
- so must the **question's words it repeats**: "What is the alpha module named?" answered "The alpha
  module is named TANGERINE" from a source about the beta module takes the question's premise for a fact;
  a word of the question that no source has at all counts as missing, except the word it asks by
  ("month" in "What month …?", ``answer_slot.slot_noun``: "in the month of June" from a source saying
  "June" claims nothing more) and its name for a source's own voice ("the writer" of a source saying "I");
- a sentence that **only restates the question** is no answer, however well the sources hold its words;
- a sentence that takes the question's words to **other names** (``answer_slot.about_another``) answers
  another question, however well a source holds it (the quote may be that passage);
- a sentence that **answers** the question (``answer_slot.addresses``) must hold **what the quote
  answers**: the quote's answer part (``answer_slot.answer_part``: "Nairobi" for "What is the capital of
  Kenya?"), or another fact of the sources in the same slot (the quote may be the wrong passage). "Kenya
  is the capital of Kenya." shares every word with the sources and still misses it;
- a sentence of an answer to a **when or how-many** question holds a number or a date (a count no date:
  "In March 2013" answers no "How many …?"), and one to a **who or where** question whose quote gives a
  name holds a name: "They gave their name to a region in France." answers no "When …?", however well a
  source holds its words. The slot is the question's own question word (``quote.answer_type``:
  "Why … when asked?" asks no date);
- otherwise it is supported when a source sentence contains enough of its words (``lexical``: the share
  of its content words in the best source sentence, by a light stem) or means nearly the same
  (``cosine``: embedding similarity to the best source sentence).
Each result says why a sentence is marked (``SentenceSupport.reason``) and points at the source sentence
that supports it best, so a citation can highlight a sentence, not only a chunk.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kimas_desktop.answer.signals.answer_slot import (
    ABOUT,
    MARKER,
    about_another,
    addresses,
    answer_part,
    facts,
    restates,
    slot_noun,
)
from kimas_desktop.answer.signals.quote import answer_type
from kimas_desktop.protocols import Embedder
from kimas_desktop.text.sentences import Sentence, chunk_sentences, split_sentences
from kimas_desktop.text.words import content_words, numbers, stem, stems, words
from kimas_desktop.types import Hit, Quote, SentenceSupport, SupportReason

__all__ = ["SentenceSupport", "SupportChecker", "SupportReport", "facts", "uses_quote"]

_ABOUT = ABOUT
_MARKER = MARKER  # a sentence of citation markers alone ("[1]") is no claim
# "Tex.", "Calif.": a capitalized word and a period the sentence goes on after ("Burkburnett, Tex., about"),
# not the word that ends a sentence ("in Kent. It was": no abbreviation of "Kentucky"); see ``_Sources``
_ABBREVIATION = re.compile(r"(?<!\w)(\w{3,})\.(?=,|\s+[a-z0-9])")


# What a question calls the one who says "I" or "we" in a source ("What coupon does the writer have?" of "I
# have a 20% off coupon"): no premise a source must hold when a source speaks in the first person.
_VOICE = frozenset(
    stem(w) for w in "writer author poster reviewer user speaker narrator person customer buyer owner".split()
)
_FIRST_PERSON = re.compile(r"(?<![\w.])(?:i|me|my|we|our)(?![\w.])")


@dataclass(frozen=True)
class SupportReport:
    sentences: tuple[SentenceSupport, ...]

    @property
    def unsupported(self) -> int:
        return sum(1 for s in self.sentences if not s.supported)


def _lower(text: str) -> str:
    """Lower case that matches a name however its capital was written: "İstanbul".lower() keeps the dot
    as a combining mark ("i̇stanbul"), which "Istanbul" in an answer does not have."""
    return text.lower().replace("\u0307", "")


def _contains_fact(fact: str, text_lower: str, text_numbers: set[str]) -> bool:
    if fact[0].isdigit():
        return fact in text_numbers
    return re.search(r"(?<!\w)" + re.escape(_lower(fact)), text_lower) is not None


def uses_quote(answer: str, quote: str, question: str) -> bool | None:
    """Whether the answer uses the grounded quote: it repeats at least one of the quote's facts (numbers,
    names) that the question does not already hold, or, when the quote has none, a third of its other
    words. None when there is nothing to compare. False means the model ignored or contradicted the
    passage the user was shown first."""
    if not answer.strip() or not quote.strip():
        return None
    asked = {f.lower() for f in facts(question)} | {w.lower() for w in words(question)}
    quote_facts = [f for f in facts(quote) if f.lower() not in asked]
    if quote_facts:
        lower = answer.lower()
        return any(_contains_fact(f, lower, set(numbers(answer))) for f in quote_facts)
    own = stems(quote) - stems(question)
    if not own:
        return None
    return len(own & stems(answer)) / len(own) >= 1 / 3


@dataclass(frozen=True)
class _Sources:
    """The sources' sentences and what each holds, measured once per answer."""

    pool: list[tuple[int, Sentence]]
    lower: list[str]
    numbers: list[set[str]]
    stems: list[set[str]]
    all_lower: str
    all_numbers: set[str]
    everywhere: set[str]
    abbreviations: frozenset[str]
    labels: set[str]  # the words of the file names and headings that no source sentence holds

    @classmethod
    def of(cls, hits: Sequence[Hit]) -> _Sources:
        pool = [(n, s) for n, hit in enumerate(hits, 1) for s in chunk_sentences(hit.chunk)]
        # what the model read of each source: its text, and the file name and heading it was labelled by
        # ("Based on Amazon Reviews 1585, …" names the source's heading, no fact of its own)
        all_text = " ".join(f"{h.chunk.text} {h.chunk.file_name} {h.chunk.heading}" for h in hits)
        sentence_stems = [stems(s.text) for _, s in pool]
        labels = stems(" ".join(f"{h.chunk.file_name} {h.chunk.heading}" for h in hits))
        return cls(
            pool,
            [_lower(s.text) for _, s in pool],
            [set(numbers(s.text)) for _, s in pool],
            sentence_stems,
            _lower(all_text),
            set(numbers(all_text)),
            stems(_lower(all_text)),
            frozenset(_lower(m) for m in _ABBREVIATION.findall(all_text) if m[0].isupper() and m.isalpha()),
            labels.difference(*sentence_stems),
        )

    def hold(self, fact: str) -> bool:
        """A source holds the fact, or a name's abbreviation ("Tex." for "Texas", "Calif." for
        "California": a capitalized word of three letters or more and a period inside a sentence, that the
        name begins with)."""
        if _contains_fact(fact, self.all_lower, self.all_numbers):
            return True
        low = _lower(fact)
        return not fact[0].isdigit() and any(low.startswith(a) and low != a for a in self.abbreviations)


def _held(word: str, stems_held: set[str]) -> bool:
    """A word's stem is held; a short "-ed" word's is also held by its base ("used" by "use": the light stem
    cuts no ending that would leave fewer than three letters)."""
    return stem(word) in stems_held or (word.lower().endswith("ed") and stem(word[:-1]) in stems_held)


def _wants_value(kind: str, wanted: Sequence[str]) -> bool:
    """The question's slot (``kind``: ``quote.answer_type``) takes a value no sentence can answer it
    without: a number or a date for a when or how-many question, a name for a who or where question
    whose quote gives one."""
    return kind == "number" or (kind == "name" and bool(wanted))


def _words_from_quote(question: str, sentence: str, quote: str, sources: _Sources) -> bool:
    """Half or more of what the sentence adds to the question is what the quote adds to it, or is in a
    source sentence at least as close to the question as the quote (the quote may be the wrong passage):
    "Structural engineers are responsible for design and analysis." does not answer who designs the
    elements of a structure from "Entry-level structural engineers may design the individual elements"."""
    own = stems(MARKER.sub(" ", sentence)) - stems(question) - ABOUT
    told = stems(quote) - stems(question) - ABOUT
    if len(own & told) >= len(own) / 2:
        return True
    asked = stems(question) - ABOUT
    bar = len(asked & stems(quote))
    return any(len(asked & held) >= bar and len(own & held) >= len(own) / 2 for held in sources.stems)


def _answer_reason(
    question: str, sentence: str, wanted: Sequence[str], quote: str, sources: _Sources
) -> SupportReason:
    """Why a sentence does not answer though its words may be sourced: it only restates the question, or
    it answers it without what the quote answers (``wanted``) or a value in that slot from a source
    sentence at least as close to the question as the quote (the quote may be the wrong passage). A value
    from a passage further away does not do: "The answer is: 1013" from a passage on Æthelred's flight to
    Normandy in 1013, asked when the Normans were in Normandy, is a sourced number and a wrong answer."""
    if not question:
        return ""
    if restates(question, sentence):
        return "restates the question"
    if about_another(question, sentence):
        return "misses the answer"  # the question's words, asked of other names
    kind = answer_type(question)
    said = answer_part(question, sentence)
    if not said and _wants_value(kind, wanted):
        return "misses the answer"  # "When …?" answered without a number or a date says no when
    if not quote or not addresses(question, sentence):
        return ""
    if not wanted:  # the quote answers in common words: the sentence must take its words from there
        return "" if _words_from_quote(question, sentence, quote, sources) else "misses the answer"
    if {f.lower() for f in said} & {f.lower() for f in wanted}:
        return ""
    asked = stems(question) - ABOUT
    bar = len(asked & stems(quote))
    for k, held in enumerate(sources.stems):
        if len(asked & held) >= bar and any(
            _contains_fact(f, sources.lower[k], sources.numbers[k]) for f in said
        ):
            return ""
    told = stems(quote) - stems(question) - ABOUT
    if not kind and len(told & stems(sentence)) >= len(told) / 2:
        return ""  # an open question: the sentence retells most of what the quote adds to it
    return "misses the answer"


class SupportChecker:
    """Checks answer sentences against numbered sources (``hits[n - 1]`` is source ``n``)."""

    def __init__(self, embedder: Embedder, *, lexical: float = 0.6, cosine: float = 0.75) -> None:
        self._embedder = embedder
        self._lexical = lexical
        self._cosine = cosine

    def check(
        self, answer: str, hits: Sequence[Hit], question: str = "", quotes: Sequence[Quote] = ()
    ) -> SupportReport:
        """``question``: its words that no source has must not reappear in the answer as if they were
        facts, and a sentence must not only restate it; ``quotes``: the grounded quote, whose answer part
        a sentence that answers the question must hold."""
        sentences = [s for s in split_sentences(answer, "markdown") if words(_MARKER.sub(" ", s.text))]
        sources = _Sources.of(hits) if hits else None
        if not sentences or sources is None or not sources.pool:
            return SupportReport(tuple(self._unsupported(s) for s in sentences))
        avec = self._embedder.embed_query([s.text for s in sentences])
        pvec = self._embedder.embed_passages([s.text for _, s in sources.pool])
        sims = np.asarray(avec @ pvec.T, dtype=np.float64)
        named = slot_noun(question)  # "month" in "What month …?": the slot's name, not a premise
        if _FIRST_PERSON.search(sources.all_lower):
            named |= _VOICE  # "the writer", "the poster": whoever says "I" in a source
        held = sources.everywhere | named
        unsourced = {stem(w): w for w in content_words(question) if not _held(w, held)}
        quote = " ".join(q.text for q in quotes)
        wanted = answer_part(question, quote) if quote else ()
        out = []
        for i, sentence in enumerate(sentences):
            reason = _answer_reason(question, sentence.text, wanted, quote, sources)
            out.append(self._one(sentence, sims[i], sources, unsourced, reason, wanted))
        return SupportReport(tuple(out))

    def _one(
        self,
        sentence: Sentence,
        sims: np.ndarray,
        sources: _Sources,
        unsourced: dict[str, str],
        reason: SupportReason,
        wanted: Sequence[str],
    ) -> SentenceSupport:
        own = stems(sentence.text) - _ABOUT - sources.labels  # naming a source's label is no claim to back
        lexical = [len(own & ps) / len(own) if own else 0.0 for ps in sources.stems]
        combined = [max(lx, float(c)) for lx, c in zip(lexical, sims, strict=True)]
        own_facts = facts(sentence.text)
        if own_facts:  # the best evidence holds the sentence's numbers and names, not only its words
            for k in range(len(sources.pool)):
                held = sum(_contains_fact(f, sources.lower[k], sources.numbers[k]) for f in own_facts)
                combined[k] += held / len(own_facts)
        j = int(np.argmax(combined))
        missing = tuple(f for f in own_facts if not sources.hold(f)) + tuple(
            w for st, w in unsourced.items() if st in own
        )
        best_lex, best_cos = max(lexical), float(sims.max())
        if missing:
            reason = "not in the sources"
        elif not reason and best_lex < self._lexical and best_cos < self._cosine:
            reason = "weakly backed"
        n, src = sources.pool[j]
        lacks = tuple(wanted) if reason in ("restates the question", "misses the answer") else ()
        return SentenceSupport(
            sentence.text,
            sentence.start,
            sentence.end,
            not reason,
            round(best_lex, 3),
            round(best_cos, 3),
            n,
            src.start,
            src.end,
            missing,
            reason,
            lacks,
        )

    @staticmethod
    def _unsupported(s: Sentence) -> SentenceSupport:
        return SentenceSupport(
            s.text, s.start, s.end, False, 0.0, 0.0, missing=tuple(facts(s.text)), reason="not in the sources"
        )
