"""An in-memory ChunkSearcher for unit tests of the pipeline logic (the real one is LanceStore).

Its synopsis is every chunk vector as a centroid, and the chunks' word counts, as the real one keeps."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from kimas_desktop.protocols import Embedder, SearchMode, Vector
from kimas_desktop.retrieval.fusion import reciprocal_rank_fusion
from kimas_desktop.text.words import content_words
from kimas_desktop.types import Chunk, CollectionInfo, Hit, Synopsis


@dataclass
class MemorySearcher:
    embedder: Embedder
    chunks: dict[str, list[Chunk]] = field(default_factory=dict)
    searches: list[tuple[str, str]] = field(default_factory=list)

    def add(self, collection: str, texts: list[str], source: str = "/docs/file.md") -> list[Chunk]:
        made = [
            Chunk(
                f"{collection}-{len(self.chunks.get(collection, [])) + i}",
                collection,
                source,
                t,
                line_start=10 * i + 1,
                line_end=10 * i + 9,
            )
            for i, t in enumerate(texts)
        ]
        self.chunks.setdefault(collection, []).extend(made)
        return made

    def use_embedder(self, embedder: Embedder) -> None:
        """It embeds at search time, so a collection never needs re-embedding: it just uses ``embedder``."""
        self.embedder = embedder

    def collections(self) -> list[CollectionInfo]:
        return [
            CollectionInfo(name, (), self.embedder.model_id, self.embedder.dim, 1, len(cs), None)
            for name, cs in self.chunks.items()
        ]

    def synopsis(self, collection: str) -> Synopsis | None:
        cs = self.chunks.get(collection)
        if not cs:
            return None
        vecs = self.embedder.embed_passages([c.text for c in cs])
        terms = Counter(w for c in cs for w in content_words(c.text))
        return Synopsis(
            collection,
            tuple(tuple(float(x) for x in v) for v in vecs),
            len(cs),
            terms=terms,
            term_total=sum(terms.values()),
        )

    def search(
        self, collection: str, *, text: str, vector: Vector, k: int, mode: SearchMode = "hybrid"
    ) -> list[Hit]:
        self.searches.append((collection, text))
        cs = self.chunks.get(collection, [])
        if not cs:
            return []
        vecs = self.embedder.embed_passages([c.text for c in cs])
        dense = sorted(
            (Hit(c, float(s)) for c, s in zip(cs, vecs @ np.asarray(vector), strict=True)),
            key=lambda h: h.score,
            reverse=True,
        )[:k]
        q = set(content_words(text))
        lexical = sorted(
            (Hit(c, float(len(q & set(content_words(c.text))))) for c in cs),
            key=lambda h: h.score,
            reverse=True,
        )
        lexical = [h for h in lexical if h.score > 0][:k]
        if mode == "dense":
            return dense
        if mode == "fts":
            return lexical
        return reciprocal_rank_fusion([dense, lexical])[:k]
