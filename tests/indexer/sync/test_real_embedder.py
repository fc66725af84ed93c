"""The indexer with the real embedded model (all-MiniLM-L6-v2 through fastembed): chunks fit the
model's window in its own tokens, and a question finds the right passage."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer import Indexer, LanceStore
from kimas_desktop.config import EmbeddingModelConfig, IndexerConfig
from kimas_desktop.errors import ModelError
from kimas_desktop.protocols import Embedder
from tests.indexer.files import write, write_pdf

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def real_embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    local_models = pytest.importorskip("local_models")
    embedder: Embedder = local_models.build_embedder(
        EmbeddingModelConfig(), tmp_path_factory.mktemp("models")
    )
    try:
        embedder.warm_up()
    except ModelError as err:
        pytest.skip(f"embedded model not available: {err}")
    return embedder


def test_real_model_chunks_fit_and_search_finds_the_passage(tmp_path: Path, real_embedder: Embedder) -> None:
    embedder = real_embedder
    folder = tmp_path / "docs"
    long_section = " ".join(
        f"Sentence {i} explains how the cooling pump keeps the reactor cold." for i in range(80)
    )
    write(
        folder / "plant.md",
        f"# Plant\n\n## Cooling\n\n{long_section}\n\n## Security\n\nBadges open the gate.",
    )
    write_pdf(folder / "menu.pdf", ["Lunch menu: tomato soup and fresh bread.", "Dessert: apple pie."])
    store = LanceStore(str(tmp_path / "db"))
    report = Indexer(store, embedder, IndexerConfig()).index("plant", [folder])
    assert report.indexed == 2
    window = embedder.max_tokens
    for chunk in store.chunks("plant"):
        assert embedder.count_tokens(chunk.text) + 2 <= window
    q = "what is for dessert"
    hits = store.search("plant", text=q, vector=embedder.embed_query([q])[0], k=3)
    assert hits[0].chunk.source.endswith("menu.pdf") and hits[0].chunk.page == 2
