"""``kimas token``: the API's bearer token, made on first use beside config.toml and the same after."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from app.tools.api_token import token_matches
from cli.main import main


def token(data: Path, capsys: pytest.CaptureFixture[str], *more: str) -> str:
    assert main(["token", "--data-dir", str(data), *more]) == 0
    return capsys.readouterr().out.strip()


def test_made_once_kept_beside_the_config_and_renewed_on_demand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    first = token(data, capsys)
    assert len(first) >= 40 and first == token(data, capsys)
    stored = data / "api_token"
    assert stored.read_text().strip() == first
    if sys.platform != "win32":  # Windows keeps the folder's permissions
        assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    renewed = token(data, capsys, "--renew")
    assert renewed != first and token(data, capsys) == renewed
    assert list(data.iterdir()) == [stored]  # no half-written copy left behind


def test_the_token_beside_a_config_named_elsewhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "settings" / "kimas.toml"
    made = token(tmp_path / "data", capsys, "--config", str(config))
    assert (tmp_path / "settings" / "api_token").read_text().strip() == made


def test_only_the_bearer_token_itself_matches() -> None:
    assert token_matches("abc", "Bearer abc") and token_matches("abc", "bearer  abc")
    assert not token_matches("abc", None) and not token_matches("abc", "Bearer abd")
    assert not token_matches("abc", "Basic abc") and not token_matches("abc", "Bearer ")
