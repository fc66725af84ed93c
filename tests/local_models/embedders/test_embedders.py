from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from kimas_desktop.config import EmbeddingModelConfig
from kimas_desktop.errors import ModelUnavailableError
from kimas_desktop.protocols import Embedder
from local_models import FastEmbedEmbedder, build_embedder
from local_models.fake import HashEmbedder
from local_models.resolve import resolve_embedding
from tests.local_models.contracts import QUESTION, EmbedderContract

# all-MiniLM-L6-v2 on "hello world" as sentence-transformers (PyTorch) computes it: the first three and the
# last of its 384 values, as published in a public project's API example. Our ONNX graph is written from
# the safetensors weights, so this ties it to the reference implementation.
HELLO_WORLD_HEAD = [-0.03447727486491203, 0.03102317824959755, 0.006734970025718212]
HELLO_WORLD_LAST = 0.030206844210624695


class TestHashEmbedder(EmbedderContract):
    @pytest.fixture
    def embedder(self) -> Embedder:
        return HashEmbedder()


@pytest.mark.slow
class TestFastEmbedEmbedder(EmbedderContract):
    @pytest.fixture
    def embedder(self, real_embedder: FastEmbedEmbedder) -> Embedder:
        return real_embedder

    @pytest.fixture
    def broken(self, broken_model: FastEmbedEmbedder) -> Embedder:
        return broken_model

    def test_a_question_does_not_wait_for_a_long_indexing_call(
        self, real_embedder: FastEmbedEmbedder
    ) -> None:
        texts = [f"{QUESTION} number {i}" for i in range(1500)]
        long_done = threading.Event()
        question_done_first: list[bool] = []

        def index() -> None:
            real_embedder.embed_passages(texts)
            long_done.set()

        worker = threading.Thread(target=index)
        worker.start()
        time.sleep(0.2)  # the long call is under way
        real_embedder.embed_query([QUESTION])
        question_done_first.append(not long_done.is_set())
        worker.join()
        assert question_done_first == [True]

    def test_model_id_is_stable(self, real_embedder: FastEmbedEmbedder) -> None:
        assert real_embedder.model_id == "local/all-MiniLM-L6-v2"
        assert real_embedder.dim == 384
        assert real_embedder.max_tokens == 128

    def test_matches_stored_canonical_values(self, real_embedder: FastEmbedEmbedder) -> None:
        vector = real_embedder.embed_passages(["hello world"])[0]
        assert np.allclose(vector[:3], HELLO_WORLD_HEAD, atol=1e-6)
        assert abs(vector[-1] - HELLO_WORLD_LAST) < 1e-6

    def test_equals_mean_pooling_of_the_onnx_token_embeddings(
        self, real_embedder: FastEmbedEmbedder, models_cache: Path
    ) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        directory = models_cache / "all-MiniLM-L6-v2"
        encoding = Tokenizer.from_file(str(directory / "tokenizer.json")).encode(QUESTION)
        session = onnxruntime.InferenceSession(
            str(directory / "model.onnx"), providers=["CPUExecutionProvider"]
        )
        feeds = {
            "input_ids": np.array([encoding.ids], dtype=np.int64),
            "attention_mask": np.array([encoding.attention_mask], dtype=np.int64),
        }
        tokens = session.run(["token_embeddings"], feeds)[0][0]
        pooled = tokens[np.array(encoding.attention_mask) == 1].mean(axis=0)
        expected = pooled / np.linalg.norm(pooled)
        assert np.allclose(real_embedder.embed_query([QUESTION])[0], expected, atol=1e-5)

    def test_truncates_at_the_configured_window(self, real_embedder: FastEmbedEmbedder) -> None:
        words = " ".join(f"word{i % 40} apple river" for i in range(120))
        assert real_embedder.count_tokens(words) > 300
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(real_embedder._directory / "tokenizer.json"))  # type: ignore[operator]
        ids = tokenizer.encode(words, add_special_tokens=False).ids[:126]  # 128 minus [CLS] and [SEP]
        prefix = tokenizer.decode(ids)
        full, cut = real_embedder.embed_passages([words, prefix])
        assert float(full @ cut) > 0.9999

    def test_count_tokens_ignores_special_tokens(self, real_embedder: FastEmbedEmbedder) -> None:
        assert real_embedder.count_tokens("hello world") == 2
        assert real_embedder.count_tokens("") == 0

    def test_a_local_directory_loads_the_same_model(
        self, real_embedder: FastEmbedEmbedder, models_cache: Path, tmp_path: Path
    ) -> None:
        mine = tmp_path / "my-minilm"
        shutil.copytree(models_cache / "all-MiniLM-L6-v2", mine)
        (mine / "kimas-embedded.json").unlink()
        embedder = build_embedder(EmbeddingModelConfig(path=str(mine)), tmp_path / "cache")
        assert embedder.model_id == "local/my-minilm"
        assert embedder.dim == 384
        texts = [QUESTION, "hello world"]
        assert np.allclose(embedder.embed_passages(texts), real_embedder.embed_passages(texts), atol=1e-5)

    def test_throughput(self, real_embedder: FastEmbedEmbedder) -> None:
        """Not a benchmark: fails only if something makes embedding an order of magnitude slower. Counted
        in this process's CPU time (every thread's), not wall time, so other work on a busy machine does
        not count (a fresh clone's suite failed here beside other jobs, issue 46)."""
        chunks = [" ".join(f"term{(i * j) % 97} of chunk {i}" for j in range(25)) for i in range(160)]
        start = time.process_time()
        real_embedder.embed_passages(chunks)
        rate = len(chunks) / (time.process_time() - start)
        print(f"embedded {len(chunks)} chunks of ~100 words at {rate:.0f} chunks per CPU second")
        assert rate > 5


def test_constructor_is_cheap(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    embedder = build_embedder(EmbeddingModelConfig(precision="fp32"), cache)
    assert embedder.model_id == "local/all-MiniLM-L6-v2"
    assert not cache.exists()


def test_a_directory_without_its_model_is_reported(tmp_path: Path) -> None:
    (tmp_path / "tokenizer.json").write_text("{}")
    embedder = FastEmbedEmbedder(EmbeddingModelConfig(path=str(tmp_path)), tmp_path / "cache")
    with pytest.raises(ModelUnavailableError, match=r"lacks model\.onnx"):
        embedder.warm_up()


def test_a_hub_model_offline_says_what_to_do(tmp_path: Path, no_network: list[object]) -> None:
    embedder = FastEmbedEmbedder(EmbeddingModelConfig(name="BAAI/bge-small-en-v1.5"), tmp_path)
    assert embedder.dim == 384
    start = time.perf_counter()
    with pytest.raises(ModelUnavailableError) as caught:
        embedder.embed_query(["hello"])
    message = str(caught.value)
    assert "not in the model cache" in message
    assert "cannot be reached" in message
    assert "embedding.path" in message
    assert time.perf_counter() - start < 10  # fastembed alone would retry for 40 s


def test_a_cached_hub_model_loads_without_the_network(tmp_path: Path, no_network: list[object]) -> None:
    """A model fastembed downloaded earlier, faked by placing the embedded files in the hub cache layout.

    Checks resolution and loading only: the embedded ONNX has other outputs than the real model's.
    """
    import local_models.embedders.embedded as embedded

    name, repo_dir = "sentence-transformers/all-MiniLM-L6-v2", "models--Qdrant--all-MiniLM-L6-v2-onnx"
    snapshot = tmp_path / repo_dir / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (tmp_path / repo_dir / "refs").mkdir()
    (tmp_path / repo_dir / "refs" / "main").write_text("abc123")
    source = embedded.materialize_minilm(tmp_path / "src", 128)
    for file in (
        "tokenizer.json",
        "tokenizer_config.json",
        "config.json",
        "special_tokens_map.json",
        "model.onnx",
    ):
        shutil.copy(source / file, snapshot / file)

    origin = resolve_embedding(EmbeddingModelConfig(name=name), tmp_path)
    assert (origin.network, origin.location) == (False, str(snapshot))
    embedder = FastEmbedEmbedder(EmbeddingModelConfig(name=name), tmp_path)
    embedder.warm_up()
    assert embedder.count_tokens("hello world") == 2
    assert not no_network


def test_the_embedded_model_reads_latin_letters_and_a_model_of_ones_own_reads_any(tmp_path: Path) -> None:
    """The catalog says all-MiniLM-L6-v2 and the BGE English models are English; a folder model and a
    multilingual one are trusted with every script (nothing is loaded to tell)."""
    default = FastEmbedEmbedder(EmbeddingModelConfig(), tmp_path)
    assert default.reads("How often is the oil changed?") and not default.reads("多久换一次机油?")
    assert not default.reads("तेल कब बदलें?")
    multilingual = EmbeddingModelConfig(name="sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2")
    assert FastEmbedEmbedder(multilingual, tmp_path).reads("多久换一次机油?")
    assert FastEmbedEmbedder(EmbeddingModelConfig(path=str(tmp_path)), tmp_path).reads("多久换一次机油?")
