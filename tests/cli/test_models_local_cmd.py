"""`kimas models --local` and `kimas models use NAME`, through ``cli.main.main``: a server speaking Ollama's
API on 127.0.0.1 and model folders of LM Studio and Ollama under a home folder of the test's own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import main
from kimas_desktop.config import load_config
from local_models.embedders.embedded import smollm2_path
from tests.app.models.model_folders import LM_STUDIO_FILE, lm_studio_folder, ollama_folder
from tests.app.models.ollama_server import ANSWER, CHAT_MODEL, EMBED_MODEL, ollama_server

ROOT = Path(__file__).resolve().parents[2]
LM_NAME = "SmolLM2-135M-Instruct-Q4_1"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    lm_studio_folder(home)
    ollama_folder(home)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.delenv("OLLAMA_MODELS", raising=False)
    return home


def test_lists_served_and_file_models(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ["--data-dir", str(tmp_path / "data")]
    with ollama_server() as served:
        assert main(["models", "--local", "--json", "--port", str(served.port), *data]) == 0
        rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
        assert main(["models", "--local", "--port", str(served.port), *data]) == 0
        table = capsys.readouterr().out
    assert set(rows) == {
        CHAT_MODEL,
        EMBED_MODEL,
        LM_NAME,
        "smollm2:135m",
        "hf.co/bartowski/SmolLM2-135M-Instruct-GGUF:Q4_1",
    }
    served_chat = rows[CHAT_MODEL]
    assert (served_chat["where"], served_chat["kind"], served_chat["source"]) == ("server", "chat", "ollama")
    assert (served_chat["base_url"], served_chat["model_id"]) == (f"{served.base}/v1", CHAT_MODEL)
    assert rows[EMBED_MODEL]["kind"] == "embedding"
    lm = rows[LM_NAME]
    assert (lm["where"], lm["source"], lm["path"]) == (
        "file",
        "lm-studio",
        str(home / ".lmstudio" / "models" / LM_STUDIO_FILE),
    )
    assert (lm["size_bytes"], lm["quantization"], lm["context"], lm["fits"]) == (
        smollm2_path().stat().st_size,
        "Q4_1",
        8192,
        True,
    )
    for name in (CHAT_MODEL, LM_NAME, "smollm2:135m"):
        assert name in table
    assert "LM Studio folder" in table and "Q4_K_M" in table and "8,192" in table


def test_use_writes_the_config(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    with ollama_server() as served:
        assert main(["models", "use", CHAT_MODEL, "--port", str(served.port), "--data-dir", str(data)]) == 0
    chat = load_config(data / "config.toml").chat
    assert (chat.kind, chat.base_url, chat.model) == ("openai", f"{served.base}/v1", CHAT_MODEL)
    assert "through Ollama at" in capsys.readouterr().out
    no_server = ["--port", "9", "--data-dir", str(data)]  # port 9 (discard): nothing listens there
    assert main(["models", "use", LM_NAME, *no_server]) == 0
    chat = load_config(data / "config.toml").chat
    assert (chat.kind, chat.path) == ("llama", str(home / ".lmstudio" / "models" / LM_STUDIO_FILE))
    assert main(["models", "use", "no-such-model", *no_server]) != 0
    assert "No model called 'no-such-model' was found" in capsys.readouterr().err
    assert load_config(data / "config.toml").chat.path.endswith(Path(LM_STUDIO_FILE).name)  # unchanged


def _kimas(home: Path, data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "KIMAS_HOME": str(data)}
    cmd = [sys.executable, "-m", "cli.main", *args, "--data-dir", str(data)]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.slow
def test_kimas_ask_answers_through_the_ollama_model_it_was_told_to_use(home: Path, tmp_path: Path) -> None:
    docs, data = tmp_path / "docs", tmp_path / "data"
    docs.mkdir()
    (docs / "baking.md").write_text("# Oven\n\nBake the loaf in a Dutch oven at 250 degrees Celsius.\n")
    with ollama_server() as served:
        out = _kimas(home, data, "models", "use", CHAT_MODEL, "--port", str(served.port))
        assert out.returncode == 0, out.stderr
        out = _kimas(home, data, "index", str(docs), "--collection", "baking")
        assert out.returncode == 0, out.stderr
        question = "At what temperature do you bake the loaf in a Dutch oven?"
        out = _kimas(home, data, "ask", question, "--json", "--try-anyway")
    assert out.returncode == 0, out.stderr
    assert served.chats() and {c["model"] for c in served.chats()} == {CHAT_MODEL}
    assert json.loads(out.stdout)["answer"].split() == ANSWER.split()
