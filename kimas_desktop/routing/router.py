"""Routing (KIMAs §3.3.2): which collections a query should go to. No LLM.

Two posteriors over the candidate collections, mixed linearly:

    d_c      = (1 − w_c)·max_k cos(q, centroid_ck) + w_c·max_j cos(q, mixin_cj)     dense similarity
    P_dense  = softmax_c(d_c / τ)
    LLR_c    = Σ_t log( ((tf_c(t) + μ·p_bg(t)) / (len_c + μ)) / p_bg(t) )           query likelihood
    p_bg(t)  = (Σ_c tf_c(t) + 0.5) / (Σ_c len_c + V)
    P_lex    = softmax_c(LLR_c)
    score_c  = scale_c · ((1 − λ)·P_dense(c) + λ·P_lex(c))

The centroids are the k-means means of the collection's chunk embeddings (the paper's "centroids"); the
mix-in vectors embed its hand-written description and examples, ``w_c`` is its ``mixin_weight`` (the
centroid term alone without mix-in texts). ``t`` runs over the query's content words (repeats count),
``tf_c(t)`` is how often t occurs in the collection's chunks, ``len_c`` their number of content words,
``V`` the number of distinct words over the candidates (exact), τ = ``routing.temperature``,
μ = ``routing.lexical_mu``, λ = ``routing.lexical_weight``.

Without content words in the query, or when no candidate has term counts (an index built by an older
version), the score is P_dense alone. A candidate without term counts among ones with them keeps its
dense share in P_lex, and the others split the rest by their LLRs.

The ``top_k`` best collections are activated, plus any scoring above ``threshold``; with routing off
every collection is activated (scores are still computed for the trace).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from kimas_desktop.config import Config
from kimas_desktop.protocols import ChunkSearcher, Embedder, Vector
from kimas_desktop.text.words import content_words
from kimas_desktop.types import Route, Synopsis

__all__ = ["CentroidRouter", "Floats", "Indices", "log_likelihood_ratios", "softmax"]

Floats = npt.NDArray[np.float64]
Indices = npt.NDArray[np.intp]


def softmax(x: Floats) -> Floats:
    e = np.exp(x - np.max(x))
    return np.asarray(e / e.sum(), dtype=np.float64)


def log_likelihood_ratios(
    query: Mapping[str, int],
    counts: Sequence[Mapping[str, int]],
    lengths: Floats,
    *,
    mu: float,
    vocabulary: int,
) -> Floats | None:
    """LLR_c of the ``query`` (word → repeats) under each collection's word ``counts`` (of total
    ``lengths``), or None when there is nothing to compare (no query words, no words anywhere)."""
    denominator = float(lengths.sum()) + vocabulary
    if not query or not counts or denominator <= 0:
        return None
    words = list(query)
    tf = np.array([[c.get(w, 0) for w in words] for c in counts], dtype=np.float64)  # [collection, word]
    p_bg = (tf.sum(axis=0) + 0.5) / denominator
    ratio = (tf + mu * p_bg) / (lengths[:, None] + mu) / p_bg
    return np.asarray(np.log(ratio) @ np.array([query[w] for w in words], dtype=np.float64))


@dataclass(frozen=True, eq=False)
class _Candidates:
    """What scoring needs of a list of collections, made again only when one of their synopses changes
    (the searcher hands out the same ``Synopsis`` object while a collection is unchanged)."""

    names: tuple[str, ...]
    synopses: tuple[Synopsis | None, ...]
    centroids: Vector  # the unit centroids of every collection that has some, stacked
    starts: Indices  # where each of those collections' rows begin in ``centroids``
    with_centroids: Indices  # which collections those are
    mixins: tuple[tuple[int, tuple[str, ...], float], ...]  # (collection, mix-in texts, mixin_weight)
    scales: Floats
    lexical: Indices  # the collections with word counts
    counts: tuple[Mapping[str, int], ...]  # their word counts
    lengths: Floats  # their total words
    vocabulary: int  # V: distinct words over them

    def fits(self, names: Sequence[str], synopses: Sequence[Synopsis | None]) -> bool:
        return (
            len(names) == len(self.names)
            and all(a == b for a, b in zip(names, self.names, strict=True))
            and all(a is b for a, b in zip(synopses, self.synopses, strict=True))
        )

    @classmethod
    def make(cls, config: Config, names: Sequence[str], synopses: Sequence[Synopsis | None]) -> _Candidates:
        units, starts, with_centroids, mixins = [], [], [], []
        row = 0
        for i, (name, synopsis) in enumerate(zip(names, synopses, strict=True)):
            if synopsis is not None and synopsis.centroids:
                c = np.asarray(synopsis.centroids, dtype=np.float32)
                units.append(c / (np.linalg.norm(c, axis=1, keepdims=True) + 1e-12))
                starts.append(row)
                with_centroids.append(i)
                row += len(c)
            cc = config.collection(name)
            texts = tuple(t for t in (cc.description, *cc.examples) if t.strip())
            if texts and cc.mixin_weight > 0:
                mixins.append((i, texts, cc.mixin_weight))
        lexical = [
            (i, s.terms, s.term_total)
            for i, s in enumerate(synopses)
            if s is not None and s.terms is not None
        ]
        counts = tuple(terms for _, terms, _ in lexical)
        return cls(
            names=tuple(names),
            synopses=tuple(synopses),
            centroids=np.concatenate(units) if units else np.zeros((0, 0), np.float32),
            starts=np.array(starts, dtype=np.intp),
            with_centroids=np.array(with_centroids, dtype=np.intp),
            mixins=tuple(mixins),
            scales=np.array([config.collection(n).scale for n in names], dtype=np.float64),
            lexical=np.array([i for i, _, _ in lexical], dtype=np.intp),
            counts=counts,
            lengths=np.array([total for _, _, total in lexical], dtype=np.float64),
            vocabulary=len(set().union(*(c.keys() for c in counts))),
        )


class CentroidRouter:
    def __init__(self, searcher: ChunkSearcher, embedder: Embedder, config: Config) -> None:
        self._searcher = searcher
        self._embedder = embedder
        self._config = config
        self._mixins: dict[tuple[str, ...], Vector] = {}
        self._candidates: _Candidates | None = None
        self._lock = threading.Lock()

    def mixin_vectors(self, texts: tuple[str, ...]) -> Vector:
        """The embedded description and examples (cached): the mix-in, of a collection or an online source."""
        with self._lock:
            vecs = self._mixins.get(texts)
        if vecs is None:
            vecs = self._embedder.embed_passages(list(texts))
            with self._lock:
                self._mixins[texts] = vecs
        return vecs

    def _prepared(self, names: Sequence[str]) -> _Candidates:
        synopses = [self._searcher.synopsis(n) for n in names]
        with self._lock:
            known = self._candidates
        if known is not None and known.fits(names, synopses):
            return known
        made = _Candidates.make(self._config, names, synopses)
        with self._lock:
            self._candidates = made
        return made

    def score(self, text: str, vector: Vector, collections: Sequence[str]) -> list[Route]:
        """Every collection's routing score for the query ``text`` embedded as ``vector``, best first."""
        if not collections:
            return []
        rc = self._config.routing
        cands = self._prepared(collections)
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        n = len(cands.names)
        centroid = np.zeros(n, dtype=np.float64)
        if len(cands.starts):
            # einsum, not ``@``: a matrix this size goes to multithreaded BLAS, whose threads take
            # milliseconds to wake on a busy machine (the embedder and the chat model share the cores).
            cosines = np.einsum("ij,j->i", cands.centroids, q)
            centroid[cands.with_centroids] = np.maximum.reduceat(cosines, cands.starts)
        dense = centroid.copy()
        mixin: list[float | None] = [None] * n
        for i, texts, w in cands.mixins:
            m = float(np.max(self.mixin_vectors(texts) @ q))
            mixin[i] = m
            dense[i] = (1 - w) * centroid[i] + w * m
        p_dense = softmax(dense / rc.temperature)
        posterior = p_dense
        llrs: list[float | None] = [None] * n
        if rc.lexical_weight > 0 and len(cands.lexical):
            llr = log_likelihood_ratios(
                Counter(content_words(text)),
                cands.counts,
                cands.lengths,
                mu=rc.lexical_mu,
                vocabulary=cands.vocabulary,
            )
            if llr is not None:
                p_lex = p_dense.copy()
                p_lex[cands.lexical] = softmax(llr) * p_dense[cands.lexical].sum()
                posterior = (1 - rc.lexical_weight) * p_dense + rc.lexical_weight * p_lex
                for i, value in zip(cands.lexical.tolist(), llr.tolist(), strict=True):
                    llrs[i] = value
        scores = cands.scales * posterior
        routes = [
            Route(
                name,
                float(scores[i]),
                float(centroid[i]),
                mixin[i],
                dense_score=float(dense[i]),
                lexical_score=llrs[i],
            )
            for i, name in enumerate(cands.names)
        ]
        return sorted(routes, key=lambda r: r.score, reverse=True)

    def select(self, routes: Sequence[Route]) -> list[Route]:
        """The activated collections, best first."""
        rc = self._config.routing
        if not rc.enabled:
            return list(routes)
        return [r for i, r in enumerate(routes) if i < rc.top_k or r.score > rc.threshold > -1.0]
