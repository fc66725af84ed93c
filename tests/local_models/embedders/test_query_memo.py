"""``QueryMemo``: the real embedder behind it keeps its contract; each recent query text is embedded once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.paths import resolve_paths
from app.runtime import Runtime
from kimas_desktop.config import load_config
from kimas_desktop.protocols import Embedder
from local_models import FastEmbedEmbedder
from local_models.embedders.query_memo import QueryMemo
from local_models.fake import HashEmbedder
from tests.local_models.contracts import QUESTION, EmbedderContract


@pytest.mark.slow
class TestQueryMemoOverTheRealModel(EmbedderContract):
    @pytest.fixture
    def embedder(self, real_embedder: FastEmbedEmbedder) -> Embedder:
        return QueryMemo(real_embedder)

    @pytest.fixture
    def broken(self, broken_model: FastEmbedEmbedder) -> Embedder:
        return QueryMemo(broken_model)

    def test_remembered_vectors_are_the_models(self, real_embedder: FastEmbedEmbedder) -> None:
        memo = QueryMemo(real_embedder)
        first = memo.embed_query([QUESTION])
        again = memo.embed_query(["Where is Nairobi?", QUESTION])
        np.testing.assert_allclose(again[1], first[0])
        np.testing.assert_allclose(
            again, real_embedder.embed_query(["Where is Nairobi?", QUESTION]), atol=1e-5
        )


def test_each_query_text_is_embedded_once() -> None:
    inner = HashEmbedder()
    memo = QueryMemo(inner, size=2)
    a = memo.embed_query(["capital of Kenya"])
    a[0, :] = 0.0  # a caller writing to its result does not change what the memo hands out next
    assert inner.calls == 1
    b = memo.embed_query(["capital of Kenya", "capital of Kenya", "Warsaw metro"])
    assert inner.calls == 2  # only the new text, once
    np.testing.assert_allclose(b[0], inner.embed_query(["capital of Kenya"])[0])
    np.testing.assert_allclose(b[0], b[1])
    memo.embed_query(["Rhine"])  # the memo holds two: "capital of Kenya" is the oldest and goes
    calls = inner.calls
    memo.embed_query(["capital of Kenya"])
    assert inner.calls == calls + 1
    memo.embed_passages(["capital of Kenya"])  # passages are never remembered
    memo.embed_passages(["capital of Kenya"])
    assert inner.calls == calls + 3
    assert memo.embed_query([]).shape == (0, inner.dim)


def test_the_app_embeds_a_question_once(tmp_path: Path) -> None:
    """The composition root hands every stage the memo."""
    paths = resolve_paths(str(tmp_path / "data"), None)
    runtime = Runtime(paths, load_config(paths.config_file))
    try:
        assert isinstance(runtime.embedder(runtime.config), QueryMemo)
    finally:
        runtime.close()
