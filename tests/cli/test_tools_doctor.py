"""`kimas doctor` lists where other tools reach the app (issue 44): the MCP command line, and the API's and
MCP's HTTP addresses on ``[server] api_port`` with whether they are on and answering now. The running
case is a real API server on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.paths import read_config, resolve_paths
from app.runtime import Runtime
from app.tools.api_models import ApiModels
from app.tools.openai_api import build_api
from cli.main import main
from tests.app.tools.test_openai_api import free_port
from ui.server.api_server import serve_api


def doctor(data: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    assert main(["doctor", "--data-dir", str(data), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    return {k: report[k] for k in ("MCP server (stdio)", "MCP server (HTTP)", "OpenAI-compatible API")}


def configure(data: Path, text: str) -> None:
    data.mkdir(exist_ok=True)
    (data / "config.toml").write_text(text)


def test_doctor_lists_the_addresses_and_that_no_app_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    configure(tmp_path, f"[server]\napi_port = {port}\n")
    listed = doctor(tmp_path, capsys)
    assert listed["MCP server (stdio)"].endswith(" mcp")
    assert listed["OpenAI-compatible API"].startswith(f"http://127.0.0.1:{port}/v1: on, served while")
    assert listed["MCP server (HTTP)"].startswith(f"http://127.0.0.1:{port}/mcp: on, served while")


def test_doctor_says_the_running_api_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    configure(tmp_path, f"[server]\napi_port = {port}\n")
    paths = resolve_paths(str(tmp_path), None)
    runtime = Runtime(paths, read_config(paths))
    running = serve_api(build_api(ApiModels(runtime), lambda: "the-token"), port)
    try:
        listed = doctor(tmp_path, capsys)
    finally:
        running.close()
        runtime.close()
    assert (
        listed["OpenAI-compatible API"]
        == f"http://127.0.0.1:{port}/v1: on, answering now (token: kimas token)"
    )
    assert listed["MCP server (HTTP)"].startswith(f"http://127.0.0.1:{port}/mcp: on, answering now")


def test_doctor_says_when_the_api_is_off(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configure(tmp_path, "[server]\napi = false\n")
    listed = doctor(tmp_path, capsys)
    assert listed["OpenAI-compatible API"] == (
        "http://127.0.0.1:7870/v1: off ([server] api = false; switch it on in Settings)"
    )
    assert listed["MCP server (HTTP)"].startswith("http://127.0.0.1:7870/mcp: off")
