"""How many threads the loader asks llama.cpp for: by default one per physical core of the CPUs this process
may use (half of them, at least one), for generation and for prompt batches alike; ``chat.n_threads`` wins."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kimas_desktop.config import ChatModelConfig
from local_models.llama.chat import LlamaChatModel


def _threads(tmp_path: Path, n_threads: int = 0) -> tuple[int, int]:
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")  # the loader's parameters are built before any file is read
    kwargs = LlamaChatModel(ChatModelConfig(path=str(gguf), n_threads=n_threads))._load_params()["kwargs"]
    return kwargs["n_threads"], kwargs["n_threads_batch"]


@pytest.mark.parametrize(("allowed", "expected"), [(8, 4), (2, 1), (3, 1), (1, 1)])
def test_the_default_is_half_the_cpus_this_process_may_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, allowed: int, expected: int
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(allowed)), raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)  # the machine's count is not what this process gets
    assert _threads(tmp_path) == (expected, expected)


def test_without_affinity_the_machines_cpus_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)  # macOS, Windows
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert _threads(tmp_path) == (3, 3)
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert _threads(tmp_path) == (1, 1)


def test_chat_n_threads_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    assert _threads(tmp_path, n_threads=7) == (7, 7)
