"""A config file that cannot be read (issue 40): a Latin-1 byte, a folder in its place. Every command,
``kimas serve`` included, says so in one sentence instead of a traceback, and the file is left as it was;
an empty file means the defaults, with a warning that says so."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from app.settings.config_store import save_config
from cli.main import main
from kimas_desktop.config import Config, load_config
from kimas_desktop.errors import ConfigError

ROOT = Path(__file__).resolve().parents[3]
LATIN1 = b'preset = "turbo"\n\n[collections.notes]\ndescription = "caf\xe9 receipts"\n'
COMMANDS = [
    ["collections"],
    ["collections", "--json"],
    ["doctor"],
    ["ask", "What is in my notes?"],
    ["retrieve", "What is in my notes?"],
    ["sources"],
    ["eval", "--list"],
    ["reindex", "notes"],
    ["relations", "notes"],
    ["remove-collection", "notes"],
    ["index", "/no/such/kimas/folder"],
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _latin1(tmp_path: Path) -> Path:
    path = tmp_path / "data" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_bytes(LATIN1)
    return path


def _folder(tmp_path: Path) -> Path:
    path = tmp_path / "data" / "config.toml"
    (path / "inside").mkdir(parents=True)
    return path


@pytest.mark.parametrize("make", [_latin1, _folder], ids=["latin-1", "folder"])
def test_kimas_serve_says_why_in_a_sentence_and_leaves_the_file(tmp_path: Path, make: object) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    before = path.read_bytes() if path.is_file() else None
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli.main",
            "serve",
            "--port",
            str(_free_port()),
            "--data-dir",
            str(path.parent),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    [line] = out.stderr.strip().splitlines()
    assert line.startswith(f"kimas: the config file {path} ") and "KIMAs has not changed it" in line
    if before is None:
        assert "is a folder, not a file" in line and path.is_dir()
    else:
        assert "is not UTF-8 text (byte 0xe9 on line 4)" in line and path.read_bytes() == before


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c) for c in COMMANDS])
def test_every_command_says_why_in_a_sentence(
    tmp_path: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    for make in (_latin1, _folder):
        case = tmp_path / make.__name__
        path = make(case)
        assert main([*command, "--data-dir", str(path.parent)]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err.startswith(f"kimas: the config file {path} ") and "not changed" in captured.err
    assert (tmp_path / "_latin1" / "data" / "config.toml").read_bytes() == LATIN1
    assert (tmp_path / "_folder" / "data" / "config.toml").is_dir()


def test_a_change_is_never_written_over_a_file_that_cannot_be_read(tmp_path: Path) -> None:
    path = _latin1(tmp_path)
    with pytest.raises(ConfigError, match="cannot be read"):
        save_config(Config(), path)
    assert path.read_bytes() == LATIN1  # the user's text is still there to fix


def test_an_empty_file_means_the_defaults_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "config.toml"
    path.write_text("\n  \n", "utf-8")
    assert load_config(path) == load_config(None)
    assert f"the config file {path} is empty: using the default settings" in caplog.text
    assert path.read_text("utf-8") == "\n  \n"
