"""Which embedding model suits a collection's languages (issue 42): an English-only model (the embedded
default) ranks text in other languages poorly, so when most of a collection's documents are in another
language the app recommends the catalog's multilingual embedder."""

from __future__ import annotations

from collections import Counter

from kimas_desktop.config import EmbeddingModelConfig
from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER, english_only

__all__ = ["multilingual_advice"]


def multilingual_advice(collection: str, languages: Counter[str], embedding: EmbeddingModelConfig) -> str:
    """The recommendation for ``collection`` (documents per language code), or "" when none is needed."""
    other = sum(n for code, n in languages.items() if code != "en")
    if other * 2 <= sum(languages.values()) or not english_only(embedding):
        return ""
    return (
        "most of these documents are not English and the embedding model reads English only: set "
        f'[embedding] name = "{MULTILINGUAL_EMBEDDER}" (kimas models pull {MULTILINGUAL_EMBEDDER}), '
        f"then kimas reindex {collection}"
    )
