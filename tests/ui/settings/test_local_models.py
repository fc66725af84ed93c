"""Settings' "Models on this computer" without a browser (issue 45): a server speaking Ollama's API on
127.0.0.1 and an LM Studio folder holding the embedded GGUF are listed with name, size, quantization,
context and whether they fit; one Use switches to a model (through the server's /v1 API, or the file
loaded in place), loaded first and saved once it loads, with the config values `kimas models use` writes;
building the tab asks no server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.models.local_files import FileScan, ModelFolders
from app.models.local_model import LocalModel
from app.models.local_search import find_local_models, sections_for
from app.models.local_servers import ServerAddress, ServerProbe, servers_of_this_computer
from app.settings.local_models import LocalModelChoices
from kimas_desktop.config import load_config
from local_models.embedders.embedded import smollm2_path
from tests.app.models.model_folders import LM_STUDIO_FILE, lm_studio_folder
from tests.app.models.ollama_server import CHAT_MODEL, EMBED_MODEL, Served, ollama_server
from tests.app.models.test_nothing_probed_unless_asked import connects, probed
from tests.rigs import Rig
from tests.ui.settings.test_handlers import _rig, wait_for
from ui.app import build_app
from ui.settings import local_handlers as lh

__all__ = ["connects"]  # the socket guard, a fixture

LM_NAME = "SmolLM2-135M-Instruct-Q4_1"


@pytest.fixture
def served() -> Iterator[Served]:
    with ollama_server() as s:
        yield s


def _choices(rig: Rig, served: Served, home: Path) -> LocalModelChoices:
    lm_studio_folder(home)
    folders = ModelFolders(lm_studio=(home / ".lmstudio" / "models",))
    probe = ServerProbe([ServerAddress("ollama", served.port)])
    return LocalModelChoices(rig.session.settings, lambda: find_local_models(probe, FileScan(folders)))


def _row(rows: list[lh.LocalRow], name: str) -> lh.LocalRow:
    return next(r for r in rows if r.name == name)


def test_lists_what_is_served_and_on_disk_with_its_facts(tmp_path: Path, served: Served) -> None:
    rig, _ = _rig(tmp_path)
    rows, said = lh.look(rig.session.config, _choices(rig, served, tmp_path / "home"))
    assert [r.name for r in rows] == [CHAT_MODEL, LM_NAME, EMBED_MODEL]  # chat models first
    assert said.startswith("Found 3 models on this computer (2 for chat)")
    chat = _row(rows, CHAT_MODEL)
    for fact in ("chat model", f"Ollama: {served.base}/v1", "2.0 GB", "Q4_K_M", "131,072 tokens of context"):
        assert fact in chat.facts, chat.facts
    assert "fits this computer" in chat.facts or "too big" in chat.facts
    on_disk = _row(rows, LM_NAME)
    size = f"{smollm2_path().stat().st_size / 1e6:.0f} MB"
    for fact in ("LM Studio folder", LM_STUDIO_FILE, size, "Q4_1", "8,192 tokens of context"):
        assert fact in on_disk.facts, on_disk.facts
    assert all(r.usable and not r.in_use for r in rows)


def test_one_use_switches_to_the_served_model_then_to_the_file_in_place(
    tmp_path: Path, served: Served
) -> None:
    rig, built = _rig(tmp_path)
    desk = rig.session
    choices = _choices(rig, served, tmp_path / "home")
    rows, _ = lh.look(desk.config, choices)
    server_model = next(m for m in choices.models if m.name == CHAT_MODEL)
    expected = sections_for(desk.config, server_model)  # what `kimas models use` writes

    said = lh.use(choices, _row(rows, CHAT_MODEL).key)
    assert said.startswith(f"Loading {CHAT_MODEL} (Ollama)"), said
    assert wait_for(lambda: desk.config.chat.kind == "openai" and desk.model_state().phase == "ready")
    chat = desk.config.chat
    assert (chat.base_url, chat.model) == (f"{served.base}/v1", CHAT_MODEL)
    assert chat.model_dump() == expected["chat"]
    assert load_config(desk.config_path).chat.model == CHAT_MODEL  # saved once it loaded
    assert built[-1].cfg.base_url == f"{served.base}/v1"
    assert _row(lh.rows_of(desk.config, choices.models), CHAT_MODEL).in_use

    lh.use(choices, _row(rows, LM_NAME).key)
    in_place = str(tmp_path / "home" / ".lmstudio" / "models" / LM_STUDIO_FILE)
    assert wait_for(lambda: desk.config.chat.path == in_place and desk.model_state().phase == "ready")
    assert desk.config.chat.kind == "llama"
    assert load_config(desk.config_path).chat.path == in_place  # the file where it is, not a copy
    assert not list((desk.runtime.paths.models_cache).rglob("*.gguf"))
    now = lh.rows_of(desk.config, choices.models)
    assert _row(now, LM_NAME).in_use and not _row(now, CHAT_MODEL).in_use


def test_a_gguf_embedding_model_is_listed_but_not_offered(tmp_path: Path) -> None:
    model = LocalModel("nomic-embed", "gpt4all", "embedding", path=tmp_path / "nomic.gguf", size_bytes=10**8)
    rig, _ = _rig(tmp_path)
    (row,) = lh.rows_of(rig.session.config, (model,))
    assert not row.usable and "cannot load in place" in row.facts


def test_an_old_listing_says_look_again(tmp_path: Path) -> None:
    rig, _ = _rig(tmp_path)
    choices = LocalModelChoices(rig.session.settings, list)
    assert lh.look(rig.session.config, choices) == ([], lh.NOTHING_FOUND)
    assert "Look again" in lh.use(choices, "server:ollama:gone")


def test_building_the_settings_tab_asks_no_server(tmp_path: Path, connects: list[tuple[Any, ...]]) -> None:
    rig, _ = _rig(tmp_path)
    build_app(rig.session)
    assert probed(connects) == []


@pytest.mark.parametrize(
    ("value", "port"),
    [
        ("127.0.0.1:11500", 11500),
        ("http://localhost:11501", 11501),
        ("0.0.0.0:11502", 11502),
        ("[::1]:11503", 11503),
        ("192.168.1.20:11504", 11434),  # another computer: never asked
        ("", 11434),
    ],
)
def test_ollama_host_moves_ollamas_port_on_this_computer_only(value: str, port: int) -> None:
    (ollama,) = [a for a in servers_of_this_computer({"OLLAMA_HOST": value}) if a.source == "ollama"]
    assert ollama.port == port
