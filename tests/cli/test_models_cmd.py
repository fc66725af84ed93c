"""`kimas models` and `kimas models pull` through ``cli.main.main``, pulling from a real server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
import socket
from pathlib import Path

import pytest

from cli.main import main
from tests.local_models.catalog.test_download import FILE, REPO, _gguf, served_catalog
from tests.local_models.hub_server import hub_server


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: socket.socket, address: object) -> None:
        raise OSError(f"network blocked in tests: {address!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)


def test_list_shows_the_builtin_catalog_offline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "--data-dir", str(tmp_path), "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["smollm2-135m-instruct"]["installed"]  # the embedded default
    assert rows["qwen2.5-0.5b-instruct"]["installed"] is None
    assert rows["qwen2.5-0.5b-instruct"]["source"].startswith("https://huggingface.co/Qwen/")
    assert {r["role"] for r in rows.values()} == {"chat", "embedding", "reranker", "reader"}


def test_pull_downloads_then_the_list_says_installed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    digest = hashlib.sha256(_gguf().read_bytes()).hexdigest()
    catalog = served_catalog(tmp_path / "team-catalog.toml", digest)
    data = tmp_path / "data"
    with hub_server({f"{REPO}/{FILE}": _gguf()}) as (base, state):
        code = main(
            [
                "models",
                "pull",
                "smollm2-served",
                "--data-dir",
                str(data),
                "--catalog",
                str(catalog),
                "--base-url",
                base,
            ]
        )
    assert code == 0
    out = capsys.readouterr().out
    installed = data / "models" / "gguf" / FILE
    assert f"installed at {installed} (SHA-256 verified)" in out
    assert f'[chat] of your config: path = "{installed}"' in out
    assert installed.stat().st_size == _gguf().stat().st_size and len(state.requests) == 1

    assert main(["models", "--data-dir", str(data), "--catalog", str(catalog)]) == 0
    listing = capsys.readouterr().out
    assert "smollm2-served" in listing and "installed" in listing.split("smollm2-served")[1].splitlines()[0]
    assert "too big for this RAM" in listing.split("giant")[1].splitlines()[0]


@pytest.mark.usefixtures("no_network")
def test_pull_offline_says_so_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    catalog = served_catalog(tmp_path / "team-catalog.toml", "0" * 64)
    assert (
        main(["models", "pull", "smollm2-served", "--data-dir", str(tmp_path), "--catalog", str(catalog)])
        == 2
    )
    err = capsys.readouterr().err
    assert "kimas: Cannot download smollm2-served: cannot connect to huggingface.co" in err
    assert not list((tmp_path / "models").rglob("*.gguf"))


def test_pull_of_an_unknown_name_lists_the_known_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "pull", "nope", "--data-dir", str(tmp_path)]) == 2
    assert "no model named 'nope'" in capsys.readouterr().err


def test_doctor_says_where_each_model_comes_from(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    digest = hashlib.sha256(_gguf().read_bytes()).hexdigest()
    data = tmp_path / "data"
    with hub_server({f"{REPO}/{FILE}": _gguf()}) as (base, _):
        args = [
            "models",
            "pull",
            "smollm2-served",
            "--data-dir",
            str(data),
            "--catalog",
            str(served_catalog(tmp_path / "team-catalog.toml", digest)),
        ]
        assert main([*args, "--base-url", base]) == 0
    installed = data / "models" / "gguf" / FILE
    (data / "config.toml").write_text(
        f'[chat]\npath = "{installed}"\n\n[embedding]\nbackend = "openai"\nbase_url = "http://127.0.0.1:8081/v1"\n'
        '\n[rerank]\nbackend = "http"\nbase_url = "https://rerank.example.com/v1"\n'
    )
    capsys.readouterr()
    assert main(["doctor", "--data-dir", str(data), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    models = report["models"]
    assert (
        f"downloaded by kimas models pull from {base}/{REPO}/resolve/main/{FILE} (SHA-256 verified)"
        in models["chat model"]
    )
    assert "(OpenAI-compatible embedding server) at http://127.0.0.1:8081/v1" in models["embedding model"]
    assert "rerank server" in models["reranker"] and "rerank.example.com" in report["network"]
    assert "smollm2-135m-instruct" in report["model cache"]
