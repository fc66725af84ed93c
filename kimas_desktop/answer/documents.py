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

from kimas_desktop.answer.citations import closest_passages
from kimas_desktop.retrieval.documents import DocumentFocus
from kimas_desktop.types import Citation, Hit, Quote

__all__ = ["OwnWords", "card_answer", "card_quote", "in_own_words"]

_CONTENTS = " Contents: "


@dataclass(frozen=True)
class OwnWords:
    """An answer made of the document's own sentences, with their citations."""

    text: str
    citations: tuple[Citation, ...]
    note: str


def card_quote(hit: Hit, n: int = 1) -> Quote | None:
    """The card's central sentences as the grounded quote (the card passage is ``card_hit``'s: its title,
    then those sentences, then its contents)."""
    text = hit.chunk.text
    title = text.split(". ", 1)[0]
    start = len(title) + 2
    if not text.startswith(title + ". ") or start >= len(text):
        return None
    end = text.find(_CONTENTS, start)
    end = len(text) if end < 0 else end
    return Quote(n, hit.chunk, start, end, text[start:end], 1.0)


def card_answer(hit: Hit) -> str:
    """A whole document's answer in its card's words: its title, its central sentences, its chapters."""
    quote = card_quote(hit)
    title = hit.chunk.text.split(". ", 1)[0]
    text = f"“{title}”: {quote.display}" if quote is not None else f"“{title}”."
    contents = hit.chunk.text.find(_CONTENTS)
    if contents >= 0:
        text += " Its chapters: " + hit.chunk.text[contents + len(_CONTENTS) :]
    return text


def in_own_words(focus: DocumentFocus, hits: Sequence[Hit], quotes: Sequence[Quote]) -> OwnWords | None:
    """The document's answer in its own words (``quotes`` numbered as ``hits``), or None: the model
    writes (no card in the evidence, or no quote from the chapter)."""
    if focus.section is None:
        card = next((h for h in hits if h.origin == "card"), None)
        if card is None:
            return None
        quote = card_quote(card, hits.index(card) + 1)
        return OwnWords(
            card_answer(card), closest_passages([quote] if quote else []), "from the document's card"
        )
    if not quotes:
        return None
    text = f"“{focus.section.title}” says: " + " ".join(q.display for q in quotes)
    return OwnWords(text, closest_passages(quotes), "quoted from the chapter")
