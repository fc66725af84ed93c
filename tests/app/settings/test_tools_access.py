"""The Settings tab's switch for the API and MCP over HTTP (issue 44) saves ``[server] api`` and nothing
else: the other server settings (allowed hosts, port) stay as the user wrote them."""

from __future__ import annotations

from pathlib import Path

from app.paths import read_config, resolve_paths
from app.settings.config_store import ConfigStore
from app.settings.tools_access import ToolsAccess
from app.tools.api_token import ApiToken


def test_the_switch_keeps_the_other_server_settings(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('[server]\nallowed_hosts = ["kimas.lan"]\napi_port = 7999\n')
    paths = resolve_paths(str(tmp_path), None)
    access = ToolsAccess(ConfigStore(paths.config_file, read_config(paths)))
    assert access.endpoints().api_url == "http://127.0.0.1:7999/v1" and access.endpoints().api_on
    assert "**off**" in access.switch(False)
    saved = read_config(paths).server
    assert (saved.api, saved.allowed_hosts, saved.api_port) == (False, ["kimas.lan"], 7999)
    assert "**on** at 127.0.0.1:7999" in access.switch(True) and read_config(paths).server.api


def test_the_token_is_the_one_kimas_token_prints(tmp_path: Path) -> None:
    paths = resolve_paths(str(tmp_path), None)
    access = ToolsAccess(ConfigStore(paths.config_file, read_config(paths)))
    assert access.token() == ApiToken(paths.config_file).read() and len(access.token()) > 30
