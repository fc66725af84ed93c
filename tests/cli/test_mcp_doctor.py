"""`kimas doctor` shows the command line an assistant starts for `kimas mcp` (issue 44), and it runs."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from cli.main import main


def test_doctor_names_the_mcp_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--data-dir", str(tmp_path), "--json"]) == 0
    line = json.loads(capsys.readouterr().out)["MCP server (stdio)"]
    command = shlex.split(line)
    assert command[-1] == "mcp" and Path(command[0]).is_absolute() and Path(command[0]).is_file()
    out = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0 and "--preset" in out.stdout, out.stderr
