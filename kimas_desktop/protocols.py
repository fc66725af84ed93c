"""The seams between the pipeline and its backends. One small Protocol per role.

Contract for every implementation (after haystack's component contract): the constructor is cheap
and touches no file, model or network; heavy state is loaded lazily on first use or by ``warm_up()``;
``close()`` releases it (a worker process, a loaded model, connections), may be called more than once,
and is what the one owner of a model (``app.runtime.Runtime``) calls when the model is switched out or
the app ends.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from kimas_desktop.control import CancelToken
from kimas_desktop.types import (
    ChatModelDescription,
    Chunk,
    CollectionInfo,
    DocumentCard,
    Hit,
    Message,
    OnlineDocument,
    Synopsis,
)

__all__ = [
    "ChatModel",
    "ChunkSearcher",
    "Embedder",
    "OnlineSource",
    "Reader",
    "Reranker",
    "SearchMode",
    "Vector",
]

Vector = npt.NDArray[np.float32]
SearchMode = Literal["dense", "fts", "hybrid"]


@runtime_checkable
class ChatModel(Protocol):
    """A chat LLM. Implementations serialize calls themselves (one llama.cpp model is not thread-safe).

    ``cancel``: when that token is cancelled, the call ends as soon as it can (for llama.cpp, within one
    token or one compute step) and raises ``Cancelled``. Every error raised is a ``KimasError``.
    """

    @property
    def model_id(self) -> str: ...

    @property
    def context_size(self) -> int: ...

    def describe(self) -> ChatModelDescription:
        """What this model can do (loads it when it is not loaded yet)."""
        ...

    def warm_up(self) -> None: ...

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        json_schema: Mapping[str, Any] | None = None,
        cancel: CancelToken | None = None,
    ) -> str:
        """The whole reply. With ``json_schema`` the output is constrained to that schema."""
        ...

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        cancel: CancelToken | None = None,
    ) -> Iterator[str]:
        """The reply as text deltas."""
        ...

    def count_tokens(self, text: str) -> int:
        """Length of ``text`` in this model's own tokens."""
        ...

    def close(self) -> None:
        """Release the model (its worker process or connections). Idempotent: a second call does nothing."""
        ...


@runtime_checkable
class Embedder(Protocol):
    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    @property
    def max_tokens(self) -> int:
        """The model's real input window; chunks are sized to fit it."""
        ...

    def warm_up(self) -> None: ...

    def embed_query(self, texts: Sequence[str]) -> Vector:
        """Unit-normalized float32 matrix [len(texts), dim] for queries."""
        ...

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        """Unit-normalized float32 matrix [len(texts), dim] for stored passages."""
        ...

    def count_tokens(self, text: str) -> int:
        """Length of ``text`` in this model's tokenizer."""
        ...

    def reads(self, text: str) -> bool:
        """Whether this model's embedding of ``text`` means something: False for a question in a script the
        model was not trained on (an English-only model and a Chinese question), which is then searched and
        reranked by its words alone."""
        ...

    def close(self) -> None:
        """Release the model (its loaded weights or connections). Idempotent: a second call does nothing."""
        ...


@runtime_checkable
class Reranker(Protocol):
    @property
    def model_id(self) -> str: ...

    def score(
        self, query: str, texts: Sequence[str], vectors: Sequence[Sequence[float] | None] = ()
    ) -> list[float]:
        """One relevance score per text against the single ``query``; higher is better. ``vectors``,
        when given, holds each text's stored embedding (or None) for a scorer that embeds passages."""
        ...

    def close(self) -> None:
        """Release the model (its loaded weights or connections; never an embedder it was given, which has
        its own owner). Idempotent: a second call does nothing."""
        ...


@runtime_checkable
class Reader(Protocol):
    """Reads a question against texts (issue 68): one probability per text that it answers the question."""

    @property
    def model_id(self) -> str: ...

    def read(self, question: str, texts: Sequence[str]) -> list[float]:
        """In the texts' order (``[]`` for none). Raises only ``KimasError``s (a reader whose worker
        process crashed: ``ModelCrashedError``), and the answer is then read without it."""
        ...

    def close(self) -> None:
        """Release the model (a worker process, a session); idempotent."""
        ...


@runtime_checkable
class ChunkSearcher(Protocol):
    """Read side of the collection store, as the retrieval path sees it."""

    def collections(self) -> list[CollectionInfo]: ...

    def synopsis(self, collection: str) -> Synopsis | None: ...

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
        """Best ``k`` chunks of ``collection``, best first. Hybrid fuses dense and full-text. With
        ``sources`` (file paths), only chunks of those files."""
        ...

    def cards(self, collection: str) -> list[DocumentCard]:
        """The card and outline of each document of ``collection`` that has one (``indexer.upkeep.cards``)."""
        ...

    def section(self, collection: str, source: str, heading: str, *, limit: int) -> list[Chunk]:
        """The first ``limit`` chunks of ``source`` under ``heading`` (its sub-headings included), in order."""
        ...


@runtime_checkable
class OnlineSource(Protocol):
    """A knowledge source on the network (KIMAs §3.3.1): a web search engine or a domain's search API.

    ``search`` returns within ``timeout_s`` (what has not arrived by then is dropped), raises only
    ``SourceError`` (``UnsafeAddressError`` for an address it may not reach) or ``Cancelled``, and reaches
    no address but the source's own and the http(s) pages its results name.
    """

    @property
    def name(self) -> str: ...

    def search(
        self, query: str, *, timeout_s: float, cancel: CancelToken | None = None
    ) -> list[OnlineDocument]: ...

    def close(self) -> None: ...
