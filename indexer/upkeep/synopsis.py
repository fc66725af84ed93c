"""Routing synopses: k-means centroids of a collection's chunk embeddings (the KIMAs paper's collection
"centroids" that the router compares a question with).

Centroids are plain means of unit vectors (their norm is at most 1), so a query's dot product with a
centroid is its average cosine similarity to that cluster. ``fit`` is seeded k-means++ plus Lloyd
iterations: the same vectors give the same centroids. ``update`` folds added and removed vectors into the
existing means (each goes to its nearest centroid), which costs nothing that grows with the collection;
the indexer refits from scratch once the changes since the last fit pass a share of the collection.

The lexical half of the synopsis is exact: how often each content word (``kimas_desktop.text.words
.content_words``) occurs in the collection's chunks. ``count_terms`` counts texts from scratch;
``update_terms`` adds the counts of added chunks and subtracts those of removed ones.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from kimas_desktop.text.words import content_words

Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True, eq=False)
class SynopsisState:
    centroids: Matrix  # [k, dim], cluster means
    counts: npt.NDArray[np.int64]  # [k], members per cluster
    changes: int = 0  # vectors added or removed since the last full fit
    terms: Mapping[str, int] | None = None  # content word → occurrences; None = not counted yet

    @property
    def total(self) -> int:
        return int(self.counts.sum())


def count_terms(texts: Iterable[str]) -> Counter[str]:
    """Occurrences of each content word in ``texts``."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(content_words(text))
    return counts


def update_terms(terms: Mapping[str, int], delta: Mapping[str, int]) -> dict[str, int] | None:
    """``terms`` plus ``delta`` (added chunks' counts minus removed ones'), without zero entries; None
    when a count would go negative (the stored counts do not match the chunks: count from scratch)."""
    out = dict(terms)
    for term, change in delta.items():
        left = out.get(term, 0) + change
        if left < 0:
            return None
        if left:
            out[term] = left
        else:
            out.pop(term, None)
    return out


def _nearest(vectors: Matrix, centroids: Matrix) -> npt.NDArray[np.int64]:
    # argmin ||v - c||² = argmax (v·c - ||c||²/2)
    scores = vectors @ centroids.T - 0.5 * np.sum(centroids * centroids, axis=1)
    return np.asarray(np.argmax(scores, axis=1), dtype=np.int64)


def fit(vectors: Matrix, k: int, *, seed: int = 0, iterations: int = 25) -> SynopsisState:
    """k-means of ``vectors`` with k capped by their number; deterministic for a given seed."""
    n = len(vectors)
    dim = vectors.shape[1] if vectors.ndim == 2 else 0
    k = min(k, n)
    if k == 0:
        return SynopsisState(np.zeros((0, dim), np.float32), np.zeros(0, np.int64))
    data = np.asarray(vectors, dtype=np.float32)
    rng = np.random.default_rng(seed)
    chosen = [int(rng.integers(n))]
    dist = np.sum((data - data[chosen[0]]) ** 2, axis=1)
    for _ in range(1, k):  # k-means++ seeding
        total = float(dist.sum())
        pick = int(rng.choice(n, p=dist / total)) if total > 0 else int(rng.integers(n))
        chosen.append(pick)
        dist = np.minimum(dist, np.sum((data - data[pick]) ** 2, axis=1))
    centroids = data[chosen].copy()
    labels = _nearest(data, centroids)
    for _ in range(iterations):
        for j in range(k):
            members = data[labels == j]
            if len(members):
                centroids[j] = members.mean(axis=0)
        new_labels = _nearest(data, centroids)
        if np.array_equal(new_labels, labels):
            break
        labels = new_labels
    counts = np.bincount(labels, minlength=k).astype(np.int64)
    return SynopsisState(centroids.astype(np.float32), counts)


def sample_of(parts: Iterable[Matrix], total: int, size: int) -> Matrix:
    """Every ``ceil(total / size)``-th vector of ``parts`` (at most about ``size`` of them, spread over
    the whole collection): what a large collection's k-means is fitted on."""
    step = max(1, -(-total // size))
    picked: list[Matrix] = []
    seen = 0
    for part in parts:
        first = (-seen) % step
        picked.append(np.array(part[first::step], np.float32))  # a copy: a view keeps its part alive
        seen += len(part)
    return np.concatenate(picked) if picked else np.zeros((0, 0), np.float32)


def settle(centroids: Matrix, parts: Iterable[Matrix]) -> SynopsisState:
    """Each vector of ``parts`` to its nearest centroid, in one pass: the members' means and counts (a
    centroid without members stays as it was). Memory: one part, whatever the collection's size."""
    k = len(centroids)
    sums = np.zeros(centroids.shape, np.float64)
    counts = np.zeros(k, np.int64)
    for part in parts:
        if k == 0 or len(part) == 0:
            continue
        labels = _nearest(np.asarray(part, np.float32), centroids)
        np.add.at(sums, labels, np.asarray(part, np.float64))
        counts += np.bincount(labels, minlength=k)
    means = centroids.astype(np.float64)
    alive = counts > 0
    means[alive] = sums[alive] / counts[alive, None]
    return SynopsisState(means.astype(np.float32), counts)


def update(state: SynopsisState, added: Matrix, removed: Matrix) -> SynopsisState:
    """Fold ``added`` and ``removed`` vectors into the cluster means."""
    centroids = state.centroids.astype(np.float64)
    counts = state.counts.astype(np.float64)
    sums = centroids * counts[:, None]
    k = len(centroids)
    if k == 0:
        return state
    for vectors, sign in ((added, 1.0), (removed, -1.0)):
        if len(vectors) == 0:
            continue
        labels = _nearest(np.asarray(vectors, np.float32), state.centroids)
        np.add.at(sums, labels, sign * np.asarray(vectors, np.float64))
        counts += sign * np.bincount(labels, minlength=k)
    counts = np.maximum(counts, 0)
    alive = counts > 0
    new = state.centroids.astype(np.float64).copy()
    new[alive] = sums[alive] / counts[alive, None]
    return SynopsisState(
        new.astype(np.float32),
        counts.astype(np.int64),
        state.changes + len(added) + len(removed),
    )
