"""Prompt-lookup decoding: chosen per model (its catalog entry or ``chat.prompt_lookup``), and in the worker
it drafts from the prompt without changing greedy output or holding the n_ctx × n_vocab logits array."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kimas_desktop.config import ChatModelConfig
from kimas_desktop.types import Message
from local_models.catalog.catalog import load_catalog
from local_models.embedders.embedded import SMOLLM2_FILE
from local_models.llama.chat import DRAFT_TOKENS, LlamaChatModel, prompt_lookup_tokens

ENTRY = """
[[chat]]
name = "{name}"
title = "t"
size_mb = 1
ram_mb = 1
licence = "MIT"
repo = "org/{name}"
files = ["{file}"]
{extra}
"""


@pytest.fixture()
def catalog(tmp_path: Path) -> Path:
    path = tmp_path / "catalog.toml"
    path.write_text(
        ENTRY.format(name="fast", file="fast.gguf", extra="prompt_lookup = true")
        + ENTRY.format(name="plain", file="plain.gguf", extra=""),
        "utf-8",
    )
    return path


def test_auto_follows_the_models_catalog_entry(catalog: Path) -> None:
    entries = load_catalog(catalog)
    auto = ChatModelConfig()
    assert prompt_lookup_tokens(auto, "fast.gguf", entries) == DRAFT_TOKENS
    assert prompt_lookup_tokens(auto, "plain.gguf", entries) == 0
    assert prompt_lookup_tokens(auto, "unknown.gguf", entries) == 0  # not measured: off
    hub = ChatModelConfig(hf_repo="org/fast", hf_file="fast.gguf")
    assert prompt_lookup_tokens(hub, "", entries) == DRAFT_TOKENS


def test_the_config_forces_it_either_way(catalog: Path) -> None:
    entries = load_catalog(catalog)
    assert prompt_lookup_tokens(ChatModelConfig(prompt_lookup="off"), "fast.gguf", entries) == 0
    assert prompt_lookup_tokens(ChatModelConfig(prompt_lookup="on"), "plain.gguf", entries) == DRAFT_TOKENS


def test_the_embedded_model_uses_what_its_entry_says() -> None:
    [smollm2] = [e for e in load_catalog() if SMOLLM2_FILE in e.files]
    expected = DRAFT_TOKENS if smollm2.prompt_lookup else 0
    assert prompt_lookup_tokens(ChatModelConfig(), SMOLLM2_FILE) == expected


@pytest.fixture(scope="module")
def models() -> Iterator[dict[str, LlamaChatModel]]:
    loaded = {
        mode: LlamaChatModel(ChatModelConfig(n_ctx=2048, n_threads=2, prompt_lookup=mode))
        for mode in ("off", "on")
    }
    for model in loaded.values():
        model.warm_up()
    yield loaded
    for model in loaded.values():
        model.close()


SOURCE = (
    "[1] The lighthouse at Cape Verran was built in 1872 from granite quarried nearby. Its keeper, Ada "
    "Lint, kept a log of every ship that passed, and the log is now in the town museum."
)


def _ask(question: str) -> list[Message]:
    return [
        Message("system", "Answer by copying the sentence of the source that answers the question."),
        Message("user", f"Sources:\n{SOURCE}\n\nQuestion: {question}"),
    ]


def test_the_worker_drafts_without_changing_the_answer_or_growing(models: dict[str, LlamaChatModel]) -> None:
    assert models["on"].stats()["prompt_lookup_tokens"] == DRAFT_TOKENS
    assert models["off"].stats()["prompt_lookup_tokens"] == 0
    for question in ("Who kept the log?", "When was the lighthouse built?"):  # the second reuses the cache
        off = "".join(models["off"].stream(_ask(question), max_tokens=48))
        on = "".join(models["on"].stream(_ask(question), max_tokens=48))
        assert on == off and len(on) > 10
        # Asked again, each model's cache holds the prompt: compared in the same state (whether a cached
        # prefix gives the very same words as a fresh one depends on the CPU's kernels, drafting or not).
        again = {mode: models[mode].complete(_ask(question), max_tokens=48) for mode in models}
        assert again["on"] == again["off"] and len(again["on"]) > 10
    rss = {mode: models[mode].stats()["rss_bytes"] for mode in models}
    # With the library's logits_all array (2048 × 49,152 floats) touched, "on" would hold 400 MB more.
    assert rss["on"] < rss["off"] + 100 * 2**20, rss
