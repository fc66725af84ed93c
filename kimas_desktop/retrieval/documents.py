"""Questions about a whole document or one of its chapters (issue 25: document outlines and cards).

"What is the audit report about?" or "Summarize this document" is not answered by the three chunks that
happen to share its words; it is answered by the document's **card** (``indexer.upkeep.cards``: its title, its
most central sentences and its chapters). "What does chapter 2 say about the budget?" is answered from
chapter 2, found in the document's **outline**, not from wherever "budget" appears most.

``focus`` reads the question (no model): which document it is about (one it names by its title or file
name, else the only document there is, else the document of the best passage), and whether it asks about
the whole of it or points at a chapter or section. The pipeline then puts the card, or the chapter's
passages, at the head of the evidence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from kimas_desktop.text.words import stems
from kimas_desktop.trace import Reason
from kimas_desktop.types import Chunk, DocumentCard, Hit, Section

__all__ = [
    "CARD_HEADING",
    "DocumentFocus",
    "about_documents",
    "card_hit",
    "focus",
    "without_pointer",
]

CARD_HEADING = "Document card"

_WHOLE = re.compile(
    r"\b(what\s+(?:is|are|was|were)\b.*\babout\b|what\s+does\b.*\b(?:cover|discuss|describe|deal\s+with)\b"
    r"|summar(?:y|ise|ize|ising|izing)|overview|main\s+(?:points|ideas|topics|themes|findings)|gist"
    r"|tl;?dr|key\s+(?:points|takeaways))",
    re.IGNORECASE,
)
_DOCUMENT_WORDS = frozenset(
    "document doc file report paper book article pdf text manual guide note notes memo thesis essay chapter"
    " section part appendix presentation slides deck page".split()
)
_THIS = re.compile(
    r"\b(this|the|that|my|our)\s+(document|doc|file|report|paper|book|article|pdf|text|manual|guide|memo"
    r"|thesis|essay|presentation|deck)\b",
    re.IGNORECASE,
)
_NUMBER_WORDS = {w: i + 1 for i, w in enumerate("one two three four five six seven eight nine ten".split())}
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10}
_POINTER = re.compile(
    r"\b(chapter|section|part|appendix)\s+(\d+(?:\.\d+)*|[ivx]+|one|two|three|four|five|six|seven|eight"
    r"|nine|ten|[a-z])\b",
    re.IGNORECASE,
)
_EXTENSION = re.compile(r"(?<=\w)\.[A-Za-z][A-Za-z0-9]{0,4}\b")  # "Kenya.md" names Kenya
_GENERIC = frozenset(stems(" ".join(_DOCUMENT_WORDS) + " summarize summary overview main point idea topic"))


@dataclass(frozen=True)
class DocumentFocus:
    """What the question is about: ``card``'s document; the whole of it, or ``section`` of it."""

    collection: str
    card: DocumentCard
    section: Section | None
    why: str
    why_said: Reason | None = None  # ``why`` as a code (the trace says it in the page's language)

    @property
    def whole(self) -> bool:
        return self.section is None


def about_documents(question: str) -> bool:
    """Worded as a question about a whole document or a chapter (whether it is, ``focus`` decides)."""
    return _POINTER.search(question) is not None or _WHOLE.search(question) is not None


def focus(
    question: str, hits: Sequence[Hit], cards: Mapping[str, Sequence[DocumentCard]]
) -> DocumentFocus | None:
    """The document (and chapter) ``question`` asks about, or None for a question about facts. ``cards``:
    each searched collection's document cards; ``hits``: the evidence found so far, best first."""
    pointer = _POINTER.search(question)
    whole = _WHOLE.search(question) is not None
    if pointer is None and not whole:
        return None
    this = _THIS.search(question) is not None
    found = _document(question, hits, cards, named_only=pointer is None and not this, whole=pointer is None)
    if found is None:
        return None
    collection, card, how = found
    if pointer is None:
        why = Reason(f"a question about the whole of {how}", "whole_document", {"how": how})
        return DocumentFocus(collection, card, None, why.english, why)
    section = _section(card, pointer.group(1).lower(), pointer.group(2).lower())
    if section is None:
        return None
    title = section.title
    why = Reason(f"it points at '{title}' of {how}", "points_at", {"title": title, "how": how})
    return DocumentFocus(collection, card, section, why.english, why)


def _document(
    question: str,
    hits: Sequence[Hit],
    cards: Mapping[str, Sequence[DocumentCard]],
    *,
    named_only: bool,
    whole: bool,
) -> tuple[str, DocumentCard, Reason] | None:
    """The document the question names by its title or file name; else (unless ``named_only``) the only
    one, or the one the best passage comes from. A question about a whole document must name nothing
    but the document ("What was the dispute in Kenya about?" asks about a dispute, not about Kenya.pdf)."""
    asked = stems(_EXTENSION.sub("", question)) - _GENERIC
    best: tuple[float, str, DocumentCard] | None = None
    for collection, listed in cards.items():
        for card in listed:
            names = stems(card.title) | stems(re.sub(r"[_\-.]+", " ", Path(card.source).stem))
            shared = len(asked & (names - _GENERIC))
            if whole and asked - names:
                continue
            if shared and (best is None or shared > best[0]):
                best = (shared, collection, card)
    if best is not None:
        return best[1], best[2], _how(best[2], "(named in the question)", "named")
    if named_only:
        return None
    every = [(c, card) for c, listed in cards.items() for card in listed]
    if len(every) == 1:
        return every[0][0], every[0][1], _how(every[0][1], "(the only document)", "only_document")
    for h in hits:
        for card in cards.get(h.chunk.collection, ()):
            if card.source == h.chunk.source:
                how = _how(card, "(the document of the best passage)", "best_passage_document")
                return h.chunk.collection, card, how
    return None


def _how(card: DocumentCard, english: str, code: str) -> Reason:
    """How the document was found: by its title in the question, as the only one, by the best passage."""
    return Reason(f"'{card.title}' {english}", code, {"title": card.title})


def _section(card: DocumentCard, kind: str, label: str) -> Section | None:
    """The outline's heading that ``kind label`` ("chapter 2", "section 3.1", "part ii") names: a heading
    that says so ("Chapter 2: …", "2. …", "3.1 …"); for a chapter, else the n-th of the document's
    chapters ("part 2" of an exam is not the second chapter of whatever document came first)."""
    number = _NUMBER_WORDS.get(label) or _ROMAN.get(label) or (int(label) if label.isdigit() else None)
    shown = str(number) if number is not None else label
    says = re.compile(
        rf"^(?:{kind}\s+)?(?:{re.escape(shown)}|{re.escape(label)})(?:[.:)\s]|$)", re.IGNORECASE
    )
    for s in card.outline:
        if says.match(s.title.strip()) and (s.title.lower().startswith(kind) or shown[0].isdigit()):
            return s
    chapters = card.chapters()  # "chapter 2" of a document whose chapters are not numbered: its second
    if kind == "chapter" and number is not None and "." not in label and 1 <= number <= len(chapters):
        return chapters[number - 1]
    return None


def without_pointer(question: str) -> str:
    """The question without "chapter 2" and the like: what it asks of that chapter."""
    return re.sub(r"\s+", " ", _POINTER.sub(" ", question)).strip()


def card_hit(collection: str, card: DocumentCard, score: float) -> Hit:
    """The card as a passage of its document (cited as the document, without a page)."""
    chunk = Chunk(f"card:{card.source}", collection, card.source, card.text(), heading=CARD_HEADING)
    return Hit(chunk, score, origin="card")
