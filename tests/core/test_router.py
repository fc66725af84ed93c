import numpy as np
import pytest

from kimas_desktop.config import parse_config
from kimas_desktop.router import CentroidRouter
from kimas_desktop.types import CollectionInfo, Hit, Synopsis


class FixedSynopses:
    """Searcher stub whose collections have hand-placed centroids."""

    def __init__(self, centroids: dict[str, list[list[float]]]) -> None:
        self._c = centroids

    def collections(self) -> list[CollectionInfo]:
        return [CollectionInfo(n, (), "m", 2, 1, 1, None) for n in self._c]

    def synopsis(self, collection: str) -> Synopsis | None:
        return Synopsis(collection, tuple(tuple(r) for r in self._c[collection]), 1)

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


Q = np.array([0.8, 0.6], dtype=np.float32)


def router(**cfg: object) -> CentroidRouter:
    searcher = FixedSynopses({"a": [[1.0, 0.0], [0.0, -1.0]], "b": [[0.0, 1.0]]})
    return CentroidRouter(searcher, AxisEmbedder(), parse_config(cfg))


def test_centroid_score_is_the_best_centroid() -> None:
    routes = router().score(Q, ["a", "b"])
    assert [r.collection for r in routes] == ["a", "b"]
    assert routes[0].score == pytest.approx(0.8) and routes[1].score == pytest.approx(0.6)


def test_mixin_is_a_weighted_average_and_scale_multiplies() -> None:
    r = router(collections={"b": {"description": "x marks it", "mixin_weight": 0.5, "scale": 2.0}})
    by = {x.collection: x for x in r.score(Q, ["a", "b"])}
    # b: (1 - 0.5) * 0.6 + 0.5 * 0.8 = 0.7, times 2
    assert by["b"].centroid_score == pytest.approx(0.6)
    assert by["b"].mixin_score == pytest.approx(0.8)
    assert by["b"].score == pytest.approx(1.4)
    assert by["a"].mixin_score is None


def test_top_k_threshold_and_switching_routing_off() -> None:
    r = router(routing={"top_k": 1})
    routes = r.score(Q, ["a", "b"])
    assert [x.collection for x in r.select(routes)] == ["a"]
    r = router(routing={"top_k": 1, "threshold": 0.5})
    assert [x.collection for x in r.select(r.score(Q, ["a", "b"]))] == ["a", "b"]
    r = router(routing={"top_k": 1, "enabled": False})
    assert len(r.select(r.score(Q, ["a", "b"]))) == 2
