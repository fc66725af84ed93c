"""Which embedding model suits a collection's languages, and a question's (issue 42): an English-only model
(the embedded default) ranks text in other languages poorly, so when most of a collection's documents are
in another language, or a question is, the app recommends the catalog's multilingual embedder.

collection_languages(store, collection) -> Counter[str]        documents per language code (their cards)
needs_multilingual(languages, embedding) -> bool               most are not English, the model reads English only
multilingual_advice(collection, languages, embedding) -> str   the CLI's sentence ("" when none is needed)
collections_advice(store, collections, embedding) -> dict      collection → the sentence, only those that need it
question_needs_multilingual(language, embedding) -> bool       a question's language code (``LanguageDetector``)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Protocol

from kimas_desktop.config import EmbeddingModelConfig
from kimas_desktop.types import DocumentCard
from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER, english_only

__all__ = [
    "SWITCH_BUTTON",
    "CardReader",
    "collection_languages",
    "collections_advice",
    "multilingual_advice",
    "needs_multilingual",
    "question_needs_multilingual",
]

SWITCH_BUTTON = "Use the multilingual embedding model"  # the one-click action's label (Knowledge tab, chat)
UNDETERMINED = "und"


class CardReader(Protocol):
    """What the advice reads from the store: each indexed document's card (its language among them)."""

    def cards(self, collection: str) -> Sequence[DocumentCard]: ...


def collection_languages(store: CardReader, collection: str) -> Counter[str]:
    """Documents per language (each file's, told at indexing: its card); files indexed before have none."""
    return Counter(c.language for c in store.cards(collection) if c.language and c.language != UNDETERMINED)


def needs_multilingual(languages: Counter[str], embedding: EmbeddingModelConfig) -> bool:
    """Most documents are not English and the configured embedding model reads English only."""
    other = sum(n for code, n in languages.items() if code != "en")
    return other * 2 > sum(languages.values()) and english_only(embedding)


def multilingual_advice(collection: str, languages: Counter[str], embedding: EmbeddingModelConfig) -> str:
    """The recommendation for ``collection`` (documents per language code), or "" when none is needed."""
    if not needs_multilingual(languages, embedding):
        return ""
    return (
        "most of these documents are not English and the embedding model reads English only: set "
        f'[embedding] name = "{MULTILINGUAL_EMBEDDER}" (installed with the app), then kimas reindex '
        f"{collection}; or press '{SWITCH_BUTTON}' in the app's Knowledge tab"
    )


def collections_advice(
    store: CardReader, collections: Iterable[str], embedding: EmbeddingModelConfig
) -> dict[str, str]:
    """The recommendation for each collection that needs one (none when the model reads every language)."""
    if not english_only(embedding):
        return {}
    advice = {
        name: multilingual_advice(name, collection_languages(store, name), embedding) for name in collections
    }
    return {name: text for name, text in advice.items() if text}


def question_needs_multilingual(language: str, embedding: EmbeddingModelConfig) -> bool:
    """A question in ``language`` (an ISO 639-1 code, "und" when unknown) is not English and the embedding
    model reads English only."""
    return language not in ("en", UNDETERMINED, "") and english_only(embedding)
