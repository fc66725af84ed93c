"""Private by default: the CLI works with no network, and never even tries to connect beyond this computer
(only `kimas doctor` knocks on 127.0.0.1, to say whether the running app's API answers)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Runs the CLI with every socket connect() refused and recorded (to stderr, which the test reads).
GUARD = """
import socket, sys
def refuse(self, address, *a, **k):
    host = address[0] if isinstance(address, tuple) else address
    kind = "LOOPBACK" if host in ("127.0.0.1", "::1", "localhost") else "NETWORK"
    sys.stderr.write(f"{kind} ATTEMPT: {address!r}\\n")
    raise OSError("network disabled by test")
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
sys.argv = ["kimas", *sys.argv[1:]]
from cli.main import main
sys.exit(main())
"""


def _no_network_prefix() -> list[str]:
    if shutil.which("unshare") and subprocess.run(["unshare", "-rn", "true"], check=False).returncode == 0:
        return ["unshare", "-rn"]
    return []


def offline(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [*_no_network_prefix(), sys.executable, "-c", GUARD, *args]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)


def test_guard_catches_a_connection_attempt() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            GUARD.replace(
                "from cli.main import main",
                "try:\n    socket.create_connection(('127.0.0.1', 9))\nexcept OSError:\n    pass\n"
                "socket.create_connection(('192.0.2.1', 9))",
            ),
            "x",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "LOOPBACK ATTEMPT: ('127.0.0.1', 9)" in out.stderr
    assert "NETWORK ATTEMPT: ('192.0.2.1', 9)" in out.stderr


@pytest.mark.slow
def test_cli_works_without_network(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text("# Kettle\n\nDescale the kettle with citric acid once a month.\n")
    data = str(tmp_path / "data")
    version = offline("--version")
    assert version.returncode == 0 and "kimas" in version.stdout
    doctor = offline("doctor", "--data-dir", data, "--json")
    assert doctor.returncode == 0, doctor.stderr
    assert json.loads(doctor.stdout)["network"].startswith("not used")
    index = offline("index", str(docs), "--collection", "home", "--data-dir", data)
    assert index.returncode == 0, index.stderr
    ask = offline(
        "ask", "How often should the kettle be descaled?", "--preset", "turbo", "--json", "--data-dir", data
    )
    assert ask.returncode == 0, ask.stderr
    assert json.loads(ask.stdout)["answer"]
    # Online sources configured but not enabled: a full answer (the `full` preset, a question the
    # documents do not answer, where an enabled source would be asked) still opens no socket.
    (tmp_path / "data" / "config.toml").write_text(
        '[sources.web]\nkind = "ddgs"\n[sources.wiki]\nkind = "searxng"\nbase_url = "https://searx.example.org"\n'
    )
    unanswered = offline(
        "ask", "Who won the 1998 World Cup?", "--preset", "full", "--json", "--data-dir", data
    )
    assert unanswered.returncode == 0, unanswered.stderr
    stages = [s["stage"] for s in json.loads(unanswered.stdout)["trace"]["stages"]]
    assert "online" not in stages  # no source is enabled, so none is even considered
    for out in (version, doctor, index, ask, unanswered):
        assert "NETWORK ATTEMPT" not in out.stderr, out.stderr
    for out in (version, index, ask, unanswered):
        assert "LOOPBACK ATTEMPT" not in out.stderr, out.stderr
    # doctor asks only whether the app's own API answers (the default api_port, 7870)
    knocks = [line for line in doctor.stderr.splitlines() if "LOOPBACK ATTEMPT" in line]
    assert all("7870" in line for line in knocks), knocks
