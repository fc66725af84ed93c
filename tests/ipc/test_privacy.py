"""Telemetry off wins: every switch is set even over a user's value that would turn telemetry on, child
processes inherit them, and onnxruntime's old queue (a device id, unsent events) is removed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ipc.privacy import (
    TELEMETRY_OFF,
    forget_queued_telemetry,
    onnxruntime_queue,
    switch_off_telemetry,
    telemetry_status,
)


def test_off_wins_over_a_value_that_turns_telemetry_on() -> None:
    env = {"HF_HUB_DISABLE_TELEMETRY": "0", "GRADIO_ANALYTICS_ENABLED": "True", "PATH": "/bin"}
    switch_off_telemetry(env)
    assert env == {**TELEMETRY_OFF, "PATH": "/bin"}
    assert telemetry_status(env).startswith("off")
    assert telemetry_status({"ORT_DISABLE_TELEMETRY": "0"}).startswith(
        "NOT switched off: ORT_DISABLE_TELEMETRY"
    )


def test_a_child_process_inherits_the_switches(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in TELEMETRY_OFF:
        monkeypatch.delenv(name, raising=False)
    switch_off_telemetry()
    code = "import os, sys; from ipc.privacy import telemetry_status; sys.stdout.write(telemetry_status())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("off"), out.stdout
    assert os.environ["ORT_DISABLE_TELEMETRY"] == "1"


@pytest.mark.skipif(sys.platform == "win32", reason="onnxruntime on Windows reports through ETW, no files")
@pytest.mark.parametrize("xdg", [False, True])
def test_onnxruntimes_old_queue_is_removed(tmp_path: Path, xdg: bool) -> None:
    env = {"HOME": str(tmp_path / "home"), **({"XDG_CACHE_HOME": str(tmp_path / "cache")} if xdg else {})}
    queue = onnxruntime_queue(env)
    assert queue is not None
    assert queue.parent.parent.parent == (tmp_path / "cache" if xdg else tmp_path / "home" / ".cache")
    queue.mkdir(parents=True)
    (queue / "deviceid").write_text("a device id")
    (queue / "onnxruntime.db").write_bytes(b"unsent events")
    assert forget_queued_telemetry(env) is True
    assert not queue.exists() and queue.parent.exists()
    assert forget_queued_telemetry(env) is False
