"""Deterministic stand-ins for the backends, for tests of our own logic (not of a model's behaviour).

``HashEmbedder`` maps each word to a SHA-256-seeded random vector and averages them, so texts that share
words are similar and the result never depends on Python's salted ``hash()``. ``ScriptedChatModel``
answers from a script and records every prompt it was given. ``WordOverlapReranker`` scores by shared
words. ``MemorySearcher`` is a ``ChunkSearcher`` held in memory; it passes the same contract suite as the
real one, ``indexer.LanceStore`` (``ChunkSearcherContract`` in tests/local_models/contracts.py).
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kimas_desktop.control import CancelToken
from kimas_desktop.errors import CollectionNotFoundError
from kimas_desktop.protocols import Embedder, SearchMode, Vector
from kimas_desktop.retrieval.fusion import reciprocal_rank_fusion
from kimas_desktop.tables import TableInfo
from kimas_desktop.text.words import content_words
from kimas_desktop.types import (
    ChatModelDescription,
    Chunk,
    CollectionInfo,
    DocumentCard,
    Hit,
    Message,
    Synopsis,
)

__all__ = ["HashEmbedder", "MemorySearcher", "MemoryShelf", "ScriptedChatModel", "WordOverlapReranker"]

_WORD = re.compile(r"\w+", re.UNICODE)


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


class HashEmbedder:
    """Bag-of-words embedding from SHA-256-seeded word vectors. Same text → same vector, everywhere."""

    def __init__(self, dim: int = 64, model_id: str = "fake/hash-embedder") -> None:
        self._dim = dim
        self._model_id = model_id
        self._cache: dict[str, np.ndarray] = {}
        self.calls = 0
        self.closed = 0  # how many times close() was called

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def max_tokens(self) -> int:
        return 128

    def warm_up(self) -> None:
        return None

    def _word_vector(self, word: str) -> np.ndarray:
        vec = self._cache.get(word)
        if vec is None:
            seed = int.from_bytes(hashlib.sha256(word.encode("utf-8")).digest()[:8], "little")
            vec = np.random.default_rng(seed).standard_normal(self._dim).astype(np.float32)
            self._cache[word] = vec
        return vec

    def _embed(self, texts: Sequence[str]) -> Vector:
        self.calls += 1
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for i, text in enumerate(texts):
            words = _words(text) or ["<empty>"]
            row = np.sum([self._word_vector(w) for w in words], axis=0)
            out[i] = row / (np.linalg.norm(row) or 1.0)
        return out

    def embed_query(self, texts: Sequence[str]) -> Vector:
        return self._embed(texts)

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        return self._embed(texts)

    def count_tokens(self, text: str) -> int:
        return len(_words(text))

    def reads(self, text: str) -> bool:
        """Hashes the words of any script."""
        return True

    def close(self) -> None:
        """Nothing to release; counted in ``closed`` so a test sees who closed it."""
        self.closed += 1


Script = Callable[[Sequence[Message], Mapping[str, Any] | None], str]


class ScriptedChatModel:
    """Replies from a list (in order, the last one repeating) or a function of (messages, schema).

    Every call is recorded in ``calls`` as (messages, json_schema); a reply that is an Exception
    instance is raised instead, to exercise fallbacks.
    """

    def __init__(
        self,
        replies: Sequence[str | BaseException] | Script = ("OK",),
        *,
        model_id: str = "fake/scripted-chat",
        context_size: int = 4096,
        judges: bool = False,
        writes: bool = True,
    ) -> None:
        self._replies = replies
        self._model_id = model_id
        self._context_size = context_size
        self._judges = judges
        self._writes = writes
        self._lock = threading.Lock()
        self.calls: list[tuple[list[Message], Mapping[str, Any] | None]] = []
        self.closed = 0  # how many times close() was called

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def context_size(self) -> int:
        return self._context_size

    def warm_up(self) -> None:
        return None

    def describe(self) -> ChatModelDescription:
        """``judges`` and ``writes`` as the test sets them: a fake stands for a model that cannot judge but
        whose answers are shown, unless told otherwise (``writes=False``: the embedded model, issue 69)."""
        return ChatModelDescription(
            self._model_id, self._context_size, self._judges, chat_template="fake", writes=self._writes
        )

    def _reply(self, messages: Sequence[Message], schema: Mapping[str, Any] | None) -> str:
        with self._lock:
            self.calls.append((list(messages), schema))
            if callable(self._replies):
                reply: str | BaseException = self._replies(messages, schema)
            else:
                index = min(len(self.calls) - 1, len(self._replies) - 1)
                reply = self._replies[index]
        if isinstance(reply, BaseException):
            raise reply
        return reply

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        json_schema: Mapping[str, Any] | None = None,
        cancel: CancelToken | None = None,
    ) -> str:
        if cancel is not None:
            cancel.raise_if_cancelled()
        return self._reply(messages, json_schema)

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        cancel: CancelToken | None = None,
    ) -> Iterator[str]:
        text = self._reply(messages, None)
        for word in re.findall(r"\S+\s*|\s+", text):
            if cancel is not None:
                cancel.raise_if_cancelled()
            yield word

    def count_tokens(self, text: str) -> int:
        return len(_words(text)) + text.count(".")

    def close(self) -> None:
        """Nothing to release; counted in ``closed`` so a test sees who closed it."""
        self.closed += 1


class WordOverlapReranker:
    """Scores texts by the share of the query's words they contain."""

    model_id = "fake/word-overlap"

    def __init__(self) -> None:
        self.closed = 0  # how many times close() was called

    def score(
        self, query: str, texts: Sequence[str], vectors: Sequence[Sequence[float] | None] = ()
    ) -> list[float]:
        q = set(_words(query))
        return [len(q & set(_words(t))) / (len(q) or 1) for t in texts]

    def close(self) -> None:
        """Nothing to release; counted in ``closed`` so a test sees who closed it."""
        self.closed += 1


@dataclass
class MemoryShelf:
    """A ``TableShelf`` in memory, with ``arrow`` as the indexer's shelf has it: ``add`` puts a table and its
    rows (a ``pyarrow.Table`` with ``_row``) in."""

    held: dict[str, tuple[TableInfo, Any]] = field(default_factory=dict)

    def add(self, info: TableInfo, rows: Any) -> None:
        self.held[info.table_id] = (info, rows)

    def tables(self, collection: str, source: str) -> list[TableInfo]:
        return [i for i, _ in self.held.values() if (i.collection, i.source) == (collection, source)]

    def arrow(self, table: TableInfo) -> Any:
        return self.held[table.table_id][1]


@dataclass
class MemorySearcher:
    """A ``ChunkSearcher`` in memory: ``add`` puts chunks in; it embeds them at search time.

    Its synopsis is every chunk vector as a centroid, and the chunks' word counts, as the real one keeps.
    """

    embedder: Embedder
    chunks: dict[str, list[Chunk]] = field(default_factory=dict)
    searches: list[tuple[str, str]] = field(default_factory=list)
    shelf: MemoryShelf = field(default_factory=MemoryShelf)  # the tables of its files, as the store's

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
            CollectionInfo(
                name,
                (),
                self.embedder.model_id,
                self.embedder.dim,
                len({c.source for c in cs}),
                len(cs),
                None,
            )
            for name, cs in self.chunks.items()
        ]

    def cards(self, collection: str) -> list[DocumentCard]:
        return []  # documents in memory have no cards

    def section(self, collection: str, source: str, heading: str, *, limit: int) -> list[Chunk]:
        inside = [
            c
            for c in self.chunks.get(collection, [])
            if c.source == source and (c.heading == heading or c.heading.startswith(heading + " > "))
        ]
        return inside[:limit]

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
        self,
        collection: str,
        *,
        text: str,
        vector: Vector,
        k: int,
        mode: SearchMode = "hybrid",
        sources: Sequence[str] = (),
    ) -> list[Hit]:
        self.searches.append((collection, text))
        if collection not in self.chunks:
            raise CollectionNotFoundError(f"there is no collection named '{collection}'")
        cs = [c for c in self.chunks[collection] if not sources or c.source in sources]
        if not cs:
            return []
        vecs = self.embedder.embed_passages([c.text for c in cs])
        stored = {c.chunk_id: tuple(float(x) for x in v) for c, v in zip(cs, vecs, strict=True)}

        def hit(chunk: Chunk, score: float) -> Hit:
            return Hit(chunk, score, vector=stored[chunk.chunk_id])

        dense = sorted(
            (hit(c, float(s)) for c, s in zip(cs, vecs @ np.asarray(vector), strict=True)),
            key=lambda h: h.score,
            reverse=True,
        )[:k]
        q = set(content_words(text))
        lexical = sorted(
            (hit(c, float(len(q & set(content_words(c.text))))) for c in cs),
            key=lambda h: h.score,
            reverse=True,
        )
        lexical = [h for h in lexical if h.score > 0][:k]
        if mode == "dense":
            return dense
        if mode == "fts":
            return lexical
        return reciprocal_rank_fusion([dense, lexical])[:k]
