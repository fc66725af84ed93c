import math
from collections.abc import Mapping

import numpy as np
import pytest

from kimas_desktop.config import parse_config
from kimas_desktop.routing.router import CentroidRouter
from kimas_desktop.text.words import content_words
from kimas_desktop.types import CollectionInfo, Hit, Route, Synopsis

TermCounts = Mapping[str, int] | None


class FixedSynopses:
    """Searcher stub whose collections have hand-placed centroids and hand-written word counts."""

    def __init__(
        self, centroids: dict[str, list[list[float]]], terms: Mapping[str, TermCounts] | None = None
    ) -> None:
        self._c = centroids
        self.synopses = {
            name: Synopsis(
                name,
                tuple(tuple(r) for r in rows),
                1,
                terms=(terms or {}).get(name),
                term_total=sum(((terms or {}).get(name) or {}).values()),
            )
            for name, rows in centroids.items()
        }

    def collections(self) -> list[CollectionInfo]:
        return [CollectionInfo(n, (), "m", 2, 1, 1, None) for n in self._c]

    def synopsis(self, collection: str) -> Synopsis | None:
        return self.synopses[collection]

    def search(self, *a: object, **k: object) -> list[Hit]:
        return []


class AxisEmbedder:
    """Embeds 'x' texts to [1, 0] and anything else to [0, 1]."""

    model_id, dim, max_tokens = "axis", 2, 64

    def warm_up(self) -> None: ...

    def embed_query(self, texts):  # type: ignore[no-untyped-def]
        return self.embed_passages(texts)

    def embed_passages(self, texts):  # type: ignore[no-untyped-def]
        return np.array([[1.0, 0.0] if "x" in t else [0.0, 1.0] for t in texts], dtype=np.float32)

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def close(self) -> None: ...


Q = np.array([0.8, 0.6], dtype=np.float32)  # cosine 0.8 with a's best centroid, 0.6 with b's
CENTROIDS = {"a": [[1.0, 0.0], [0.0, -1.0]], "b": [[0.0, 1.0]]}
TAU = 0.05


def router(terms: Mapping[str, TermCounts] | None = None, **cfg: object) -> CentroidRouter:
    return CentroidRouter(FixedSynopses(CENTROIDS, terms), AxisEmbedder(), parse_config(cfg))


def dense_posterior(similarities: dict[str, float], tau: float = TAU) -> dict[str, float]:
    e = {c: math.exp(d / tau) for c, d in similarities.items()}
    return {c: v / sum(e.values()) for c, v in e.items()}


def reference_llr(query: str, terms: dict[str, dict[str, int]], mu: float = 100.0) -> dict[str, float]:
    """The query-likelihood LLR written out term by term, with V the exact number of distinct words."""
    vocabulary = len(set().union(*terms.values()))
    background_len = sum(sum(t.values()) for t in terms.values())
    out = {}
    for c, tf in terms.items():
        total = 0.0
        for t in content_words(query):
            p_bg = (sum(x.get(t, 0) for x in terms.values()) + 0.5) / (background_len + vocabulary)
            total += math.log(((tf.get(t, 0) + mu * p_bg) / (sum(tf.values()) + mu)) / p_bg)
        out[c] = total
    return out


def by_name(routes: list[Route]) -> dict[str, Route]:
    return {r.collection: r for r in routes}


def test_dense_only_is_a_softmax_of_the_best_centroid() -> None:
    routes = router(routing={"lexical_weight": 0.0}).score("", Q, ["a", "b"])
    assert [r.collection for r in routes] == ["a", "b"]
    expected = dense_posterior({"a": 0.8, "b": 0.6})
    assert routes[0].score == pytest.approx(expected["a"]) and routes[1].score == pytest.approx(expected["b"])
    assert routes[0].score == pytest.approx(1 / (1 + math.exp(-0.2 / TAU)))  # 0.982
    assert routes[0].centroid_score == pytest.approx(0.8) and routes[0].dense_score == pytest.approx(0.8)
    assert routes[0].lexical_score is None


def test_mixin_is_a_weighted_average_and_scale_multiplies() -> None:
    r = router(collections={"b": {"description": "x marks it", "mixin_weight": 0.5, "scale": 2.0}})
    by = by_name(r.score("", Q, ["a", "b"]))
    # b: (1 - 0.5) * 0.6 + 0.5 * 0.8 = 0.7 as dense similarity; its posterior share times 2
    assert by["b"].centroid_score == pytest.approx(0.6)
    assert by["b"].mixin_score == pytest.approx(0.8)
    assert by["b"].dense_score == pytest.approx(0.7)
    expected = dense_posterior({"a": 0.8, "b": 0.7})
    assert by["b"].score == pytest.approx(2.0 * expected["b"])
    assert by["a"].score == pytest.approx(expected["a"])
    assert by["a"].mixin_score is None


TERMS = {
    "a": {"river": 30, "stone": 60, "lamp": 10},
    "b": {"river": 5, "lamp": 80, "violin": 15},
}


def test_the_score_mixes_the_dense_and_the_lexical_posterior() -> None:
    query = "Which lamp is by the river, the river lamp?"  # repeats count
    routes = router(TERMS, routing={"lexical_weight": 0.4, "lexical_mu": 50.0}).score(query, Q, ["a", "b"])
    by = by_name(routes)
    llr = reference_llr(query, TERMS, mu=50.0)
    p_lex = {c: math.exp(v) / sum(math.exp(x) for x in llr.values()) for c, v in llr.items()}
    p_dense = dense_posterior({"a": 0.8, "b": 0.6})
    for c in ("a", "b"):
        assert by[c].lexical_score == pytest.approx(llr[c])
        assert by[c].score == pytest.approx(0.6 * p_dense[c] + 0.4 * p_lex[c])
    assert sum(r.score for r in routes) == pytest.approx(1.0)


def test_lexical_weight_zero_is_dense_routing() -> None:
    heavy = {"a": {"stone": 100}, "b": {"zeugma": 100}}
    routes = router(heavy, routing={"lexical_weight": 0.0}).score("zeugma zeugma", Q, ["a", "b"])
    assert [r.collection for r in routes] == ["a", "b"]
    assert routes[0].score == pytest.approx(dense_posterior({"a": 0.8, "b": 0.6})["a"])
    assert all(r.lexical_score is None for r in routes)


def test_a_rare_word_found_only_in_b_routes_to_b_against_slightly_better_centroids() -> None:
    centroids = {"a": [[0.8, 0.6]], "b": [[0.78, 0.6258]]}  # cos 1.0 vs 0.9995: a is slightly closer
    terms: dict[str, TermCounts] = {
        "a": {"poem": 40, "line": 40, "word": 920},
        "b": {"poem": 40, "line": 40, "word": 918, "zeugma": 2},
    }
    q = np.array([0.8, 0.6], dtype=np.float32)
    dense_only = CentroidRouter(
        FixedSynopses(centroids, terms), AxisEmbedder(), parse_config({"routing": {"lexical_weight": 0.0}})
    )
    assert dense_only.score("what is a zeugma in a poem", q, ["a", "b"])[0].collection == "a"
    mixed = CentroidRouter(FixedSynopses(centroids, terms), AxisEmbedder(), parse_config({}))
    routes = mixed.score("what is a zeugma in a poem", q, ["a", "b"])
    assert routes[0].collection == "b"
    assert routes[0].lexical_score is not None and routes[1].lexical_score is not None
    assert routes[0].lexical_score > 0 > routes[1].lexical_score


def test_scale_multiplies_the_posterior_share() -> None:
    plain = by_name(router(TERMS).score("violin", Q, ["a", "b"]))
    scaled = by_name(router(TERMS, collections={"b": {"scale": 3.0}}).score("violin", Q, ["a", "b"]))
    assert scaled["b"].score == pytest.approx(3.0 * plain["b"].score)
    assert scaled["a"].score == pytest.approx(plain["a"].score)


def test_threshold_applies_to_the_posterior_share() -> None:
    # Dense favours a (0.982 vs 0.018), the lexical half b: each collection ends up with a fair share.
    shares = by_name(router(TERMS).score("violin", Q, ["a", "b"]))
    low = min(shares["a"].score, shares["b"].score)
    assert 0.1 < low < 0.5
    r = router(TERMS, routing={"top_k": 1})
    assert len(r.select(r.score("violin", Q, ["a", "b"]))) == 1
    r = router(TERMS, routing={"top_k": 1, "threshold": low - 0.05})
    assert len(r.select(r.score("violin", Q, ["a", "b"]))) == 2
    r = router(TERMS, routing={"top_k": 1, "threshold": low + 0.05})
    assert len(r.select(r.score("violin", Q, ["a", "b"]))) == 1
    r = router(TERMS, routing={"top_k": 1, "enabled": False})
    assert len(r.select(r.score("violin", Q, ["a", "b"]))) == 2


def test_a_query_without_content_words_is_routed_by_embedding_alone() -> None:
    routes = router(TERMS).score("what is it?", Q, ["a", "b"])
    assert routes[0].score == pytest.approx(dense_posterior({"a": 0.8, "b": 0.6})["a"])
    assert all(r.lexical_score is None for r in routes)


def test_without_word_counts_routing_falls_back_to_the_embedding() -> None:
    routes = router().score("violin violin", Q, ["a", "b"])  # an index from before word counts
    assert routes[0].score == pytest.approx(dense_posterior({"a": 0.8, "b": 0.6})["a"])
    assert all(r.lexical_score is None for r in routes)
    # Only b has counts: a keeps its dense share, and b, alone in the lexical posterior, gets the rest.
    by = by_name(router({"b": {"violin": 10}}).score("violin", Q, ["a", "b"]))
    p_dense = dense_posterior({"a": 0.8, "b": 0.6})
    assert by["a"].score == pytest.approx(p_dense["a"]) and by["b"].score == pytest.approx(p_dense["b"])
    assert by["a"].lexical_score is None and by["b"].lexical_score is not None


def test_one_collection_gets_the_whole_posterior() -> None:
    (route,) = router(TERMS, collections={"a": {"scale": 1.5}}).score("violin", Q, ["a"])
    assert route.score == pytest.approx(1.5)
    assert route.centroid_score == pytest.approx(0.8)
    assert router().score("x", Q, []) == []


def test_a_changed_synopsis_is_seen_at_once() -> None:
    searcher = FixedSynopses(CENTROIDS, {"a": {"stone": 10}, "b": {"stone": 10}})
    r = CentroidRouter(searcher, AxisEmbedder(), parse_config({}))
    assert r.score("violin", Q, ["a", "b"])[0].collection == "a"
    searcher.synopses["b"] = Synopsis("b", ((1.0, 0.0),), 1, terms={"violin": 50, "stone": 10}, term_total=60)
    routes = r.score("violin", Q, ["a", "b"])
    assert routes[0].collection == "b" and routes[0].centroid_score == pytest.approx(0.8)


def test_a_collection_without_a_synopsis_has_zero_similarity() -> None:
    searcher = FixedSynopses({"a": [[1.0, 0.0], [0.0, -1.0]], "empty": [], "b": [[0.0, 1.0]]})
    searcher.synopses["none"] = None  # type: ignore[assignment]
    r = CentroidRouter(searcher, AxisEmbedder(), parse_config({"routing": {"lexical_weight": 0.0}}))
    by = by_name(r.score("", Q, ["none", "a", "empty", "b"]))
    assert by["a"].centroid_score == pytest.approx(0.8) and by["b"].centroid_score == pytest.approx(0.6)
    assert by["none"].centroid_score == 0.0 and by["empty"].centroid_score == 0.0
    expected = dense_posterior({"none": 0.0, "a": 0.8, "empty": 0.0, "b": 0.6})
    assert all(by[c].score == pytest.approx(expected[c]) for c in expected)
