"""The embedded embedder's int8 variant: exported at first start from the real model, close to fp32, and a
different embedder for the collections (a switch re-embeds)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

from indexer import Indexer, LanceStore
from indexer.store.identity import identity_of
from kimas_desktop.config import EmbeddingModelConfig, IndexerConfig
from local_models import build_embedder
from local_models.embedders.fastembed_embedder import FastEmbedEmbedder
from local_models.resolve import resolve_embedding

SAMPLES = [
    "How do I reset the password of my account?",
    "The quarterly report shows revenue grew by four percent compared with last year.",
    "Photosynthesis turns light, water and carbon dioxide into sugar and oxygen.",
    "Der Zug nach Berlin fährt um acht Uhr ab.",
    "def parse(path): return json.loads(Path(path).read_text())",
    "The committee postponed the vote on the new stadium until after the election in November, "
    "citing concerns about the cost overruns reported by the city's auditor.",
    "I bought these headphones for running; the left earbud stopped charging after two weeks.",
    "Vacuum the tables every Sunday night.",
]


@pytest.fixture(scope="module")
def int8_embedder(models_cache: Path) -> FastEmbedEmbedder:
    embedder = FastEmbedEmbedder(EmbeddingModelConfig(precision="int8"), models_cache)
    embedder.warm_up()
    return embedder


def test_the_int8_model_is_exported_once_beside_the_fp32_one(tmp_path: Path) -> None:
    origin = resolve_embedding(EmbeddingModelConfig(precision="int8"), tmp_path)
    directory = Path(origin.location)
    assert directory == tmp_path / "all-MiniLM-L6-v2-int8"
    assert (origin.name, origin.network) == ("local/all-MiniLM-L6-v2-int8", False)
    assert "int8" in origin.describe()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all-MiniLM-L6-v2-int8"]  # no temp dirs left
    assert not (directory / "fp32.onnx").exists()

    ops = {node.op_type for node in onnx.load(str(directory / "model.onnx")).graph.node}
    assert {"DynamicQuantizeLinear", "MatMulInteger"} <= ops
    fp32 = Path(resolve_embedding(EmbeddingModelConfig(precision="fp32"), tmp_path).location)
    assert fp32 == tmp_path / "all-MiniLM-L6-v2"
    # Every weight matrix of the encoder is int8 (a quarter of its fp32 bytes); the word embeddings stay fp32.
    assert (directory / "model.onnx").stat().st_size < 0.75 * (fp32 / "model.onnx").stat().st_size

    stamp = (directory / "kimas-embedded.json").stat().st_mtime_ns
    again = resolve_embedding(EmbeddingModelConfig(precision="int8"), tmp_path)
    assert again.location == origin.location
    assert (directory / "kimas-embedded.json").stat().st_mtime_ns == stamp


def test_int8_embeddings_are_close_to_fp32(
    real_embedder: FastEmbedEmbedder, int8_embedder: FastEmbedEmbedder
) -> None:
    assert real_embedder.model_id == "local/all-MiniLM-L6-v2"
    assert int8_embedder.model_id == "local/all-MiniLM-L6-v2-int8"
    assert int8_embedder.dim == real_embedder.dim == 384
    for embed in ("embed_passages", "embed_query"):
        exact = getattr(real_embedder, embed)(SAMPLES)
        quantized = getattr(int8_embedder, embed)(SAMPLES)
        cosines = np.einsum("ij,ij->i", exact, quantized)
        assert cosines.min() >= 0.98, cosines
        assert cosines.mean() < 0.99999  # really the quantized model, not the fp32 one again
    # Similarities keep their order: the paraphrase still ranks first.
    question = int8_embedder.embed_query(["how can I change my password"])[0]
    assert int(np.argmax(int8_embedder.embed_passages(SAMPLES) @ question)) == 0


def test_the_identity_tells_int8_from_fp32(
    real_embedder: FastEmbedEmbedder, int8_embedder: FastEmbedEmbedder, tmp_path: Path
) -> None:
    fp32, int8 = identity_of(real_embedder), identity_of(int8_embedder)
    assert not fp32.matches(
        int8.model_id, int8.dim, None if int8.probe is None else int8.probe.ravel().tolist()
    )
    assert not int8.matches(
        fp32.model_id, fp32.dim, None if fp32.probe is None else fp32.probe.ravel().tolist()
    )
    assert int8.matches(int8.model_id, int8.dim, None if int8.probe is None else int8.probe.ravel().tolist())

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "vacuum.md").write_text("# Database\n\nVacuum the tables every Sunday night.\n", "utf-8")
    db = str(tmp_path / "db")
    Indexer(LanceStore(db, embedder=real_embedder), real_embedder, IndexerConfig()).index("c", [folder])
    assert not LanceStore(db, embedder=real_embedder).collection("c").needs_reembedding
    switched = LanceStore(db, embedder=int8_embedder)
    assert switched.collection("c").needs_reembedding
    Indexer(switched, int8_embedder, IndexerConfig()).reembed("c")
    assert not switched.collection("c").needs_reembedding
    assert LanceStore(db, embedder=real_embedder).collection("c").needs_reembedding


def test_the_precision_is_a_config_choice(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert build_embedder(EmbeddingModelConfig(precision="fp32"), cache).model_id == "local/all-MiniLM-L6-v2"
    assert (
        build_embedder(EmbeddingModelConfig(precision="int8"), cache).model_id
        == "local/all-MiniLM-L6-v2-int8"
    )
    assert not cache.exists()  # the constructor stays cheap: nothing is exported before first use
