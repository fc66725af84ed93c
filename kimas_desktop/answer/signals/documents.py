"""Answers to questions about a whole document or one of its chapters, in the document's own words
(issue 25; ``retrieval/documents.py`` finds the document and puts its card or the chapter's passages first).

A model that cannot judge its sources (the embedded ones) retells a card loosely: the 135M model summed up
a guide to an orchard by its third sentence, "frost pockets". So for such a model the answer is the card's
own sentences (a whole document) or the chapter's grounded quote (what the chapter says about something),
cited; a capable model writes from the same evidence as usual.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kimas_desktop.answer.writing.citations import closest_passages
from kimas_desktop.retrieval.documents import DocumentFocus
from kimas_desktop.types import Citation, DocumentCard, Hit, Quote

__all__ = ["OwnWords", "card_answer", "card_quote", "in_own_words"]


@dataclass(frozen=True)
class OwnWords:
    """An answer made of the document's own sentences, with their citations."""

    text: str
    citations: tuple[Citation, ...]
    note: str


def card_quote(hits: Sequence[Hit], card: DocumentCard) -> Quote | None:
    """``card``'s central sentences as the grounded quote, numbered by the card passage's place in ``hits``
    (``retrieval/documents.card_hit``); None when the card is not there or has no sentences."""
    hit = next((h for h in hits if h.origin == "card" and h.chunk.source == card.source), None)
    start, end = card.synopsis_span()
    if hit is None or end <= start:
        return None
    return Quote(hits.index(hit) + 1, hit.chunk, start, end, hit.chunk.text[start:end], 1.0)


def card_answer(card: DocumentCard) -> str:
    """A whole document's answer in its card's words: its title, its central sentences, its chapters."""
    said = " ".join(" ".join(s.text.split()) for s in card.synopsis)
    text = f"“{card.title}”: {said}" if said else f"“{card.title}”."
    if card.contents():
        text += f" Its chapters: {'; '.join(card.contents())}."
    return text


def in_own_words(focus: DocumentFocus, hits: Sequence[Hit], quotes: Sequence[Quote]) -> OwnWords | None:
    """The document's answer in its own words (``quotes`` numbered as ``hits``), or None: the model
    writes (no card in the evidence, or no quote from the chapter)."""
    if focus.section is None:
        if not any(h.origin == "card" for h in hits):
            return None
        quote = card_quote(hits, focus.card)
        cited = closest_passages([quote] if quote else [])
        return OwnWords(card_answer(focus.card), cited, "from the document's card")
    if not quotes:
        return None
    text = f"“{focus.section.title}” says: " + " ".join(q.display for q in quotes)
    return OwnWords(text, closest_passages(quotes), "quoted from the chapter")
