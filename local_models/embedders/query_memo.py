"""``QueryMemo``: an ``Embedder`` that embeds each recent query text once.

One question is compared with many things on its way to an answer: routing, every retrieval agent, the
reranker, the grounded quote and the turn decision each ask for the embedding of the same text, and each
ask costs a model call (15–40 ms on a laptop CPU, a round trip for a remote embedder). The memo keeps the
last few hundred query vectors by text; passages are never kept (indexing streams millions of them).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from kimas_desktop.protocols import Embedder, Vector


class QueryMemo:
    def __init__(self, inner: Embedder, *, size: int = 256) -> None:
        self.inner = inner
        self._size = size
        self._memo: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def max_tokens(self) -> int:
        return self.inner.max_tokens

    def warm_up(self) -> None:
        self.inner.warm_up()

    def embed_query(self, texts: Sequence[str]) -> Vector:
        with self._lock:
            known = {t: self._memo[t] for t in texts if t in self._memo}
            for t in known:
                self._memo.move_to_end(t)
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        if missing:
            fresh = np.asarray(self.inner.embed_query(missing), dtype=np.float32)
            known.update(zip(missing, fresh, strict=True))
            with self._lock:
                self._memo.update(zip(missing, fresh, strict=True))
                while len(self._memo) > self._size:
                    self._memo.popitem(last=False)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([known[t] for t in texts])  # a new array: callers may write to it

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        return self.inner.embed_passages(texts)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def reads(self, text: str) -> bool:
        return self.inner.reads(text)

    def close(self) -> None:
        """Close the embedder it wraps (the memo owns it: the runtime builds the two as one)."""
        self.inner.close()
