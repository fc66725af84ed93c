"""``kimas serve`` starts the OpenAI-compatible API beside the app (``[server] api_port``), with the token
``kimas token`` prints; ``[server] api = false`` leaves it off. Real processes on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.ui.test_browser import ROOT, _free_port, running_app

pytestmark = pytest.mark.slow


def kimas_token(data: Path) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "cli.main", "token", "--data-dir", str(data)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return out.stdout.strip()


def models(port: int, token: str, wait_s: float) -> httpx.Response | None:
    """``GET /v1/models`` once the API answers (within ``wait_s``), else None."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return httpx.get(
                f"http://127.0.0.1:{port}/v1/models", headers={"Authorization": f"Bearer {token}"}
            )
        except httpx.TransportError:
            if time.monotonic() > deadline:
                return None
            time.sleep(0.2)


@pytest.mark.parametrize("on", [True, False])
def test_serve_starts_the_api_unless_switched_off(tmp_path: Path, on: bool) -> None:
    data, port = tmp_path / "data", _free_port()
    data.mkdir()
    (data / "config.toml").write_text(f"[server]\napi = {str(on).lower()}\napi_port = {port}\n")
    with running_app(data, tmp_path / "artifacts"):
        token = kimas_token(data)  # the token file may be made by this command, after the app started
        reply = models(port, token, wait_s=30 if on else 3)
        log = (tmp_path / "artifacts" / "server.log").read_text()
    if on:
        assert reply is not None and reply.status_code == 200, log
        assert "kimas-routed" in [m["id"] for m in reply.json()["data"]]
        assert f"OpenAI-compatible API at http://127.0.0.1:{port}/v1" in log
    else:
        assert reply is None and "OpenAI-compatible API" not in log


def test_serve_says_on_the_terminal_when_the_api_port_is_taken(tmp_path: Path) -> None:
    """Another program holds ``api_port``: the app runs, and its terminal says why the API is not there."""
    data, port = tmp_path / "data", _free_port()
    data.mkdir()
    (data / "config.toml").write_text(f"[server]\napi_port = {port}\n")
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", port))
        holder.listen()
        with running_app(data, tmp_path / "artifacts"):
            said = f"not served: port {port} on 127.0.0.1 is in use"
            log = tmp_path / "artifacts" / "server.log"
            deadline = time.monotonic() + 60
            while said not in log.read_text() and time.monotonic() < deadline:
                time.sleep(0.2)
    assert said in log.read_text() and "OpenAI-compatible API at" not in log.read_text()
