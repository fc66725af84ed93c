"""Embedding-clustering routing (KIMAs §3.3.2): which collections a query should go to. No LLM.

score(c) = scale_c × ((1 − w_c) × max_k cos(q, centroid_ck) + w_c × max_j cos(q, mixin_cj))

where the mix-in vectors embed the collection's hand-written description and example texts and ``w_c`` is
its ``mixin_weight`` (the centroid term alone when it has no mix-in). The ``top_k`` best collections are
activated, plus any scoring above ``threshold``; with routing off every collection is activated (scores are
still computed for the trace).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from kimas_desktop.config import Config
from kimas_desktop.protocols import ChunkSearcher, Embedder, Vector
from kimas_desktop.types import Route


class CentroidRouter:
    def __init__(self, searcher: ChunkSearcher, embedder: Embedder, config: Config) -> None:
        self._searcher = searcher
        self._embedder = embedder
        self._config = config
        self._mixins: dict[tuple[str, ...], Vector] = {}
        self._lock = threading.Lock()

    def _mixin_vectors(self, collection: str) -> Vector | None:
        cc = self._config.collection(collection)
        texts = tuple(t for t in (cc.description, *cc.examples) if t.strip())
        if not texts or cc.mixin_weight == 0:
            return None
        with self._lock:
            vecs = self._mixins.get(texts)
        if vecs is None:
            vecs = self._embedder.embed_passages(list(texts))
            with self._lock:
                self._mixins[texts] = vecs
        return vecs

    def score(self, query_vector: Vector, collections: Sequence[str]) -> list[Route]:
        """Every collection's routing score, best first."""
        q = np.asarray(query_vector, dtype=np.float32).reshape(-1)
        routes = []
        for name in collections:
            synopsis = self._searcher.synopsis(name)
            centroid = 0.0
            if synopsis is not None and synopsis.centroids:
                c = np.asarray(synopsis.centroids, dtype=np.float32)
                c /= np.linalg.norm(c, axis=1, keepdims=True) + 1e-12
                centroid = float(np.max(c @ q))
            cc = self._config.collection(name)
            mix = self._mixin_vectors(name)
            mixin = float(np.max(mix @ q)) if mix is not None else None
            combined = (
                centroid if mixin is None else (1 - cc.mixin_weight) * centroid + cc.mixin_weight * mixin
            )
            routes.append(Route(name, combined * cc.scale, centroid, mixin))
        return sorted(routes, key=lambda r: r.score, reverse=True)

    def select(self, routes: Sequence[Route]) -> list[Route]:
        """The activated collections, best first."""
        rc = self._config.routing
        if not rc.enabled:
            return list(routes)
        return [r for i, r in enumerate(routes) if i < rc.top_k or r.score > rc.threshold > -1.0]
