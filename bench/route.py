"""Routing cost per query: ``CentroidRouter.score`` over many collections, dense and lexical parts together.

    .venv/bin/python -m bench.route [--collections 100] [--centroids 16] [--terms 2000] [--dim 384]
                                    [--queries 300]

Builds synthetic synopses: random unit centroids, and for each collection ``--terms`` distinct words with
Zipf-like counts, drawn from a shared pool three times that size (so collections share words, as real ones
do). Queries are 4–9 words from the pool plus stopwords, with a random unit vector. Two setups:

- ``memory``: a searcher that hands out ready ``Synopsis`` objects (the router's own cost);
- ``lancedb``: a real ``LanceStore`` in a temporary directory (adds the store's synopsis lookup, as the app).

Reports the first query (which builds the router's and the store's caches) and the median and p95 of the
rest. Goal: ≤ 2 ms per query at 100 collections × 16 centroids.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from indexer import LanceStore
from indexer.upkeep.synopsis import SynopsisState
from kimas_desktop.config import parse_config
from kimas_desktop.protocols import ChunkSearcher, Vector
from kimas_desktop.routing.router import CentroidRouter
from kimas_desktop.types import CollectionInfo, Hit, Synopsis


class NoEmbedder:
    """The router embeds only mix-in texts, and the benchmark configures none."""

    model_id, dim, max_tokens = "none", 0, 0

    def warm_up(self) -> None: ...

    def embed_query(self, texts: Sequence[str]) -> Vector:
        raise AssertionError("not used")

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        raise AssertionError("not used")

    def count_tokens(self, text: str) -> int:
        return 0

    def reads(self, text: str) -> bool:
        return True

    def close(self) -> None: ...


class MemorySynopses:
    def __init__(self, synopses: dict[str, Synopsis]) -> None:
        self._s = synopses

    def collections(self) -> list[CollectionInfo]:
        return []

    def synopsis(self, collection: str) -> Synopsis | None:
        return self._s.get(collection)

    def search(self, *a: object, **k: object) -> list[Hit]:
        return []


def states(args: argparse.Namespace, rng: np.random.Generator) -> dict[str, SynopsisState]:
    pool = [f"word{i}" for i in range(3 * args.terms)]
    out = {}
    for c in range(args.collections):
        centroids = rng.normal(size=(args.centroids, args.dim)).astype(np.float32)
        centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
        words = rng.choice(len(pool), size=args.terms, replace=False)
        counts = np.maximum(1, (5000 / np.arange(1, args.terms + 1)).astype(np.int64))  # Zipf-like
        terms = {pool[int(w)]: int(n) for w, n in zip(words, counts, strict=True)}
        out[f"c{c:03d}"] = SynopsisState(centroids, np.full(args.centroids, 10, np.int64), 0, terms)
    return out


def queries(args: argparse.Namespace, rng: np.random.Generator) -> list[tuple[str, np.ndarray]]:
    out = []
    for _ in range(args.queries):
        n = int(rng.integers(4, 10))
        text = "what is the " + " ".join(f"word{int(i)}" for i in rng.integers(0, 3 * args.terms, size=n))
        vector = rng.normal(size=args.dim).astype(np.float32)
        out.append((text, vector / np.linalg.norm(vector)))
    return out


def to_synopsis(name: str, state: SynopsisState) -> Synopsis:
    terms = dict(state.terms or {})
    return Synopsis(
        name,
        tuple(tuple(float(x) for x in c) for c in state.centroids),
        state.total,
        terms=terms,
        term_total=sum(terms.values()),
    )


def lance_store(folder: Path, made: dict[str, SynopsisState], dim: int) -> LanceStore:
    store = LanceStore(str(folder / "db"))
    for name, state in made.items():
        store.open_collection(name, embedding_model="bench", dim=dim)
        store.put_synopsis(name, state)
    return store


def measure(searcher: ChunkSearcher, names: list[str], qs: list[tuple[str, np.ndarray]]) -> dict[str, float]:
    router = CentroidRouter(searcher, NoEmbedder(), parse_config({}))
    times = []
    for text, vector in qs:
        start = time.perf_counter()
        routes = router.score(text, vector, names)
        times.append((time.perf_counter() - start) * 1000)
        assert len(routes) == len(names) and routes[0].lexical_score is not None
    rest = sorted(times[1:])
    return {
        "first_ms": round(times[0], 2),
        "median_ms": round(statistics.median(rest), 3),
        "p95_ms": round(rest[int(0.95 * (len(rest) - 1))], 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--collections", type=int, default=100)
    parser.add_argument("--centroids", type=int, default=16)
    parser.add_argument("--terms", type=int, default=2000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    made = states(args, rng)
    names = sorted(made)
    qs = queries(args, rng)
    print(
        f"{args.collections} collections × {args.centroids} centroids ({args.dim}-d), "
        f"{args.terms} words each; {args.queries} queries"
    )
    memory = MemorySynopses({n: to_synopsis(n, s) for n, s in made.items()})
    print("memory ", measure(memory, names, qs))
    with tempfile.TemporaryDirectory(prefix="kimas-route-") as tmp:
        store = lance_store(Path(tmp), made, args.dim)
        print("lancedb", measure(store, names, qs))


if __name__ == "__main__":
    main()
