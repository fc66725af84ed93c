"""Routing for online sources (KIMAs §3.3.2's mix-in, for a source with no local embeddings).

A web search or an HTTP API has no chunks to cluster, so it is routed by what the user wrote about it:
the best cosine between the question and its description and examples, times its scale. A source with
neither is not routed (its ``use`` alone decides); one whose match is under its ``min_match`` is not
asked for that question, and the trace says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from kimas_desktop.config import SourceConfig
from kimas_desktop.protocols import Embedder, Vector

__all__ = ["SourceMatcher"]


class SourceMatcher:
    def __init__(self, embedder: Embedder, mixin_vectors: Callable[[tuple[str, ...]], Vector]) -> None:
        self._embedder = embedder
        self._mixin = mixin_vectors  # the router's cache of embedded descriptions

    def matches(self, query: str, specs: Mapping[str, SourceConfig]) -> dict[str, float]:
        """Each described source's match for ``query`` (sources without a description are left out)."""
        described = {
            name: texts
            for name, spec in specs.items()
            if (texts := tuple(t for t in (spec.description, *spec.examples) if t.strip()))
        }
        if not described:
            return {}
        q = self._embedder.embed_query([query])[0]
        return {
            name: round(float(np.max(self._mixin(texts) @ q)) * specs[name].scale, 4)
            for name, texts in described.items()
        }
