"""Choosing among the models found: ``pick`` by name or key, and the chat model worth suggesting."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.models.local_model import LocalModel
from app.models.local_search import better_chat_model, pick
from kimas_desktop.errors import ModelUnavailableError

GB = 10**9
SERVED = LocalModel(
    "qwen2.5:7b", "ollama", "chat", "http://127.0.0.1:11434/v1", "qwen2.5:7b", None, 5 * GB, fits=True
)
FILE = LocalModel(
    "qwen2.5:7b", "ollama", "chat", path=Path("/m/blobs/sha256-aa"), size_bytes=5 * GB, fits=True
)
LM = LocalModel("qwen2.5:7b", "lm-studio", "chat", "http://127.0.0.1:1234/v1", "qwen2.5:7b", fits=None)
HUGE = LocalModel(
    "llama3.3:70b", "ollama", "chat", path=Path("/m/blobs/sha256-bb"), size_bytes=42 * GB, fits=False
)
TINY = LocalModel(
    "smollm2:135m", "ollama", "chat", path=Path("/m/blobs/sha256-cc"), size_bytes=98 * 10**6, fits=True
)
EMBED = LocalModel("nomic-embed-text", "ollama", "embedding", path=Path("/m/e"), size_bytes=9 * GB, fits=True)


def test_a_name_served_and_on_disk_picks_the_server() -> None:
    assert pick([FILE, SERVED], "qwen2.5:7b") is SERVED
    assert pick([FILE, SERVED], "file:ollama:qwen2.5:7b") is FILE  # the key chooses the file
    assert pick([TINY], "SmolLM2:135M") is TINY


def test_a_name_two_servers_serve_asks_for_the_key() -> None:
    with pytest.raises(
        ModelUnavailableError, match=re.escape("server:ollama:qwen2.5:7b, server:lm-studio:qwen2.5:7b")
    ):
        pick([SERVED, LM], "qwen2.5:7b")
    with pytest.raises(ModelUnavailableError, match="No model called 'mistral'"):
        pick([SERVED, LM], "mistral")


def test_suggests_the_biggest_chat_model_that_fits() -> None:
    assert better_chat_model([TINY, HUGE, EMBED, FILE, SERVED, LM]) is SERVED
    assert better_chat_model([TINY, HUGE, EMBED, LM]) is None  # too small, too big, not chat, size unknown
