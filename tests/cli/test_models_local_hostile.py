"""``kimas models --local`` as a user runs it (the real CLI in a child process) over a home folder holding
hostile files beside good models (``tests/app/models/hostile_files``): it ends, lists the good models and
each skipped file with its reason, and prints no file name's control characters raw."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.models.hostile_files import hostile_home, release

ROOT = Path(__file__).resolve().parents[2]
GOOD = ("SmolLM2-135M-Instruct-Q4_1", "hf.co/bartowski/SmolLM2-135M-Instruct-GGUF:Q4_1", "smollm2:135m")


def _kimas(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
    }
    if sys.platform == "win32":
        env |= {
            "USERPROFILE": str(home),
            "LOCALAPPDATA": str(home / "AppData"),
            "SYSTEMROOT": os.environ["SYSTEMROOT"],
        }
    cmd = [
        sys.executable,
        "-m",
        "cli.main",
        "models",
        "--local",
        *args,
        "--port",
        "9",
        "--data-dir",
        str(home / "data"),
    ]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    home = tmp_path / "home"
    hostile = hostile_home(home)
    yield home
    release([p for k, p in hostile.items() if "fifo" in k])


def test_models_local_lists_good_models_and_each_skipped_file_with_its_reason(home: Path) -> None:
    out = _kimas(home)
    assert out.returncode == 0, out.stderr
    table = out.stdout
    assert all(name in table for name in GOOD)
    reasons = table.split("\nSkipped ")[1].split("\nUse one with")[0]
    assert "a GGUF header beyond sane limits" in reasons
    assert "an Ollama manifest that is too big, not JSON, or not shaped like one" in reasons
    assert reasons.count("whose digest is not sha256:<hex>") == 2
    assert "library/escape/latest" in reasons and "library/brackets/latest" in reasons
    if hasattr(os, "mkfifo"):
        assert reasons.count("not a regular file (a FIFO, device or socket)") == 4
        assert "fifo-Q4_K_M.gguf" in reasons and "link-Q4_K_M.gguf" in reasons
    # the file name holding ESC ] 0 ; … BEL and a line break is one line, every control character escaped
    assert "\x1b" not in table and "\x07" not in table
    assert r'nested\u001b]0;owned\u0007\nQ4_K_M.gguf": a GGUF header beyond sane limits' in reasons


def test_models_local_json_keeps_stdout_json_and_lists_skipped_files_on_stderr(home: Path) -> None:
    out = _kimas(home, "--json")
    assert out.returncode == 0, out.stderr
    assert sorted(m["name"] for m in json.loads(out.stdout)) == sorted(GOOD)
    assert "Skipped " in out.stderr and "a GGUF header beyond sane limits" in out.stderr
    assert "\x1b" not in out.stderr
