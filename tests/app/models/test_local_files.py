"""GGUF files in LM Studio's folder and Ollama's manifest tree, found with their facts and loaded in place."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.models.local_files import FileScan, ModelFolders, user_data_dirs
from app.models.local_model import LocalModel
from app.models.local_search import pick, sections_for, use_local_model
from app.settings.config_store import ConfigStore
from kimas_desktop.config import Config, load_config
from kimas_desktop.errors import ModelUnavailableError
from kimas_desktop.types import Message
from local_models import build_chat_model
from local_models.embedders.embedded import smollm2_path
from tests.app.models.model_folders import (
    LM_STUDIO_FILE,
    OLLAMA_DIGEST,
    lm_studio_folder,
    ollama_folder,
    put_model,
)

SMOLLM2_FACTS = ("chat", "Q4_1", 8192)  # kind, quantization, context length: from the GGUF header
LM_NAME = "SmolLM2-135M-Instruct-Q4_1"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    lm_studio_folder(home)
    ollama_folder(home)
    return home


def found(home: Path) -> list[LocalModel]:
    return FileScan(ModelFolders.of_this_computer(home)).find()


def test_finds_lm_studio_and_ollama_models_with_their_facts(home: Path) -> None:
    by_name = {m.name: m for m in found(home)}
    # no projector, no file cut short, no readme, no manifest without its blob
    assert sorted(by_name) == [LM_NAME, "hf.co/bartowski/SmolLM2-135M-Instruct-GGUF:Q4_1", "smollm2:135m"]
    for model in by_name.values():
        assert (model.kind, model.quantization, model.context) == SMOLLM2_FACTS
        assert model.size_bytes == smollm2_path().stat().st_size and model.where == "file"
        assert model.fits is True  # 94 MB fits any machine that runs the tests
    assert by_name[LM_NAME].source == "lm-studio"
    assert by_name[LM_NAME].path == home / ".lmstudio" / "models" / LM_STUDIO_FILE
    ollama = by_name["smollm2:135m"]
    assert ollama.source == "ollama"
    assert ollama.path == home / ".ollama" / "models" / "blobs" / OLLAMA_DIGEST.replace(":", "-")


def test_overlapping_folders_list_a_model_once(home: Path) -> None:
    lm_studio, ollama = home / ".lmstudio" / "models", home / ".ollama" / "models"
    folders = ModelFolders(lm_studio=(lm_studio, lm_studio.parent), ollama=(ollama, ollama))
    names = [m.name for m in FileScan(folders).find()]
    assert len(names) == len(set(names)) == 3


def test_using_a_file_points_the_chat_model_at_it_in_place(home: Path, tmp_path: Path) -> None:
    before = sorted(tmp_path.rglob("*.gguf"))
    for name in (LM_NAME, "smollm2:135m"):
        model = pick(found(home), name)
        config = use_local_model(ConfigStore(tmp_path / "config.toml", Config()), model)
        assert (config.chat.kind, config.chat.path) == ("llama", str(model.path))
        assert load_config(tmp_path / "config.toml").chat.path == str(model.path)
    assert sorted(tmp_path.rglob("*.gguf")) == before  # nothing copied


def test_an_embedding_gguf_is_not_loaded_in_place(home: Path) -> None:
    model = replace(pick(found(home), "smollm2:135m"), kind="embedding")
    with pytest.raises(ModelUnavailableError, match="serve it with Ollama or LM Studio"):
        sections_for(Config(), model)


@pytest.mark.slow
def test_the_found_file_loads_from_where_it_is_and_answers(home: Path, tmp_path: Path) -> None:
    config = use_local_model(ConfigStore(tmp_path / "config.toml", Config()), pick(found(home), LM_NAME))
    chat = build_chat_model(config.chat.model_copy(update={"n_ctx": 1024, "n_threads": 2}))
    try:
        assert chat.model_id == f"llama/{Path(LM_STUDIO_FILE).name}"
        assert chat.complete([Message("user", "Say hello.")], max_tokens=8).strip()
    finally:
        chat.close()


def test_finds_gpt4all_and_jan_models_in_this_platforms_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("OLLAMA_MODELS", raising=False)
    home = tmp_path / "home"
    data = user_data_dirs(home)[0] if user_data_dirs(home) else home / "AppData"
    monkeypatch.setenv("LOCALAPPDATA", str(data))  # read on Windows only
    places = {
        "gpt4all": data / "nomic.ai" / "GPT4All" / "smollm2-gpt4all.gguf",
        "jan": home / "jan" / "models" / "smollm2-jan" / "smollm2-jan.gguf",
    }
    for place in places.values():
        put_model(place)
    models = {m.source: m for m in found(home)}
    assert {s: m.path for s, m in models.items()} == places
