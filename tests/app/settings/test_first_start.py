"""The first-start hint (issue 45): a clearly better chat model already on this computer is suggested
once, found from model files alone (no socket opened), remembered in the data dir.

The better model is a real one: the Qwen2.5-Coder-0.5B-Instruct GGUF (491 MB) that ``bench/bigger_model.py``
assembles, in an LM Studio folder beside the embedded SmolLM2 (94 MB, not clearly better)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.models.local_files import FileScan, ModelFolders
from app.models.local_model import LocalModel
from app.settings.first_start import STATE_FILE, FirstStartHint
from bench.bigger_model import DEST as QWEN
from kimas_desktop.config import Config
from tests.app.models.model_folders import lm_studio_folder
from tests.app.models.test_nothing_probed_unless_asked import connects
from tests.ui.settings.test_handlers import _rig, wait_for
from ui.settings.first_start_view import hint_markdown

__all__ = ["connects"]  # the socket guard, a fixture

QWEN_FILE = "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"


def _home_with_qwen(home: Path) -> Path:
    if not QWEN.exists():
        pytest.skip(f"no {QWEN}: python -m bench.bigger_model assembles it")
    lm_studio_folder(home)
    qwen = home / ".lmstudio" / "models" / QWEN_FILE
    qwen.parent.mkdir(parents=True, exist_ok=True)
    qwen.symlink_to(QWEN)
    return qwen


def _scan(home: Path) -> FileScan:
    return FileScan(ModelFolders(lm_studio=(home / ".lmstudio" / "models",)))


def test_suggests_the_bigger_instruct_file_once_without_a_socket(
    tmp_path: Path, connects: list[tuple[Any, ...]]
) -> None:
    qwen = _home_with_qwen(tmp_path / "home")
    data = tmp_path / "data"
    hint = FirstStartHint(data, _scan(tmp_path / "home").find)
    model = hint.suggestion(Config())
    assert model is not None and model.path == qwen and model.kind == "chat"
    assert connects == []  # files only: not even 127.0.0.1 is asked
    assert "qwen2.5-coder-0.5b-instruct" in hint_markdown(model) and "0.5 GB" in hint_markdown(model)
    assert hint.suggestion(Config()) is None  # once
    assert FirstStartHint(data, _scan(tmp_path / "home").find).suggestion(Config()) is None  # next start too
    assert json.loads((data / STATE_FILE).read_text())["suggested"] == model.key


def test_nothing_when_only_the_small_model_is_there_and_that_is_remembered(tmp_path: Path) -> None:
    lm_studio_folder(tmp_path / "home")  # SmolLM2 135M only
    hint = FirstStartHint(tmp_path / "data", _scan(tmp_path / "home").find)
    assert hint.suggestion(Config()) is None and hint.done


def test_nothing_when_another_chat_model_is_already_chosen(tmp_path: Path) -> None:
    _home_with_qwen(tmp_path / "home")
    chosen = Config().updated(chat={"kind": "openai", "base_url": "http://127.0.0.1:1234/v1", "model": "m"})
    assert FirstStartHint(tmp_path / "data", _scan(tmp_path / "home").find).suggestion(chosen) is None


def test_a_base_model_is_not_suggested_however_big(tmp_path: Path) -> None:
    big = {"source": "gpt4all", "kind": "chat", "size_bytes": 4 * 10**9, "fits": True}
    base = LocalModel("Meta-Llama-3-8B.Q4_0", path=tmp_path / "a.gguf", **big)  # type: ignore[arg-type]
    tuned = LocalModel("gemma-2-2b-it-Q4_K_M", path=tmp_path / "b.gguf", **big)  # type: ignore[arg-type]
    hint = FirstStartHint(tmp_path / "data", lambda: [base, tuned])
    assert hint.suggestion(Config()) == tuned
    assert FirstStartHint(tmp_path / "d2", lambda: [base]).suggestion(Config()) is None


def test_its_one_button_loads_the_file_in_place(tmp_path: Path) -> None:
    qwen = _home_with_qwen(tmp_path / "home")
    rig, _ = _rig(tmp_path)
    desk = rig.session
    model = FirstStartHint(desk.data_dir, _scan(tmp_path / "home").find).suggestion(desk.config)
    assert model is not None
    assert desk.settings.use_local(model).ok  # what the hint's button does
    assert wait_for(lambda: desk.config.chat.path == str(qwen) and desk.model_state().phase == "ready")
