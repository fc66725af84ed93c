"""No local model server is asked anything unless the user asks (``kimas models --local``, Settings): the
app's start-up and ``kimas doctor`` run under a socket guard that records every connect, and none goes to
a probe port. The guard itself is checked: an explicit ``ServerProbe().find()`` is recorded, to 127.0.0.1
and the well-known ports only."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.models.local_servers import WELL_KNOWN_SERVERS, ServerProbe
from app.paths import Paths
from cli.main import main
from cli.serve_cmd import build_app
from kimas_desktop.config import Config
from tests.rigs import make_rig

PROBE_PORTS = {a.port for a in WELL_KNOWN_SERVERS}


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """Every address a socket of this process connects to (the connect itself still happens)."""
    seen: list[tuple[Any, ...]] = []
    real: Callable[..., Any] = socket.socket.connect

    def record(self: socket.socket, address: Any) -> Any:
        seen.append(tuple(address) if isinstance(address, tuple) else (address,))
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", record)
    return seen


def probed(seen: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return [a for a in seen if len(a) >= 2 and a[1] in PROBE_PORTS]


def test_start_up_and_doctor_probe_nothing(
    tmp_path: Path, connects: list[tuple[Any, ...]], capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    build_app(Paths(data, data / "config.toml"), Config())  # what `kimas serve` builds, cheap
    rig = make_rig(tmp_path / "rig")
    rig.session.start()  # loads models, catches up, watches folders
    deadline = time.monotonic() + 10
    while rig.session.model_state().phase == "loading" and time.monotonic() < deadline:
        time.sleep(0.02)
    assert rig.session.model_state().phase == "ready"
    rig.session.close()
    assert main(["doctor", "--data-dir", str(data), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)
    assert probed(connects) == []


def test_the_guard_sees_a_probe_when_one_is_asked_for(connects: list[tuple[Any, ...]]) -> None:
    ServerProbe().find()
    assert {(host, port) for host, port, *_ in probed(connects)} == {("127.0.0.1", p) for p in PROBE_PORTS}
