"""Where other programs reach this install: the ``kimas mcp`` command line an assistant starts, and the
addresses of the running app's OpenAI-compatible API (``/v1``) and MCP over streamable HTTP (``/mcp``), both
on ``[server] api_port`` and on or off together with ``[server] api``. ``kimas doctor`` and the Settings tab
show them."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from kimas_desktop.config import Config

__all__ = ["MCP_PATH", "Endpoints", "command_line", "endpoints"]

MCP_PATH = "/mcp"


def command_line() -> str:
    """The command an assistant starts for MCP on stdio: this install's ``kimas`` script, else this Python
    running the CLI module."""
    script = Path(sys.executable).with_name("kimas.exe" if sys.platform == "win32" else "kimas")
    return f"{script} mcp" if script.is_file() else f"{sys.executable} -m cli.main mcp"


@dataclass(frozen=True)
class Endpoints:
    mcp_command: str  # MCP on stdio: works whether the app runs or not
    api_url: str  # the OpenAI-compatible API's base URL, http://127.0.0.1:PORT/v1
    mcp_url: str  # MCP over streamable HTTP, http://127.0.0.1:PORT/mcp
    api_on: bool  # [server] api: the running app serves both addresses (behind the token)


def endpoints(config: Config) -> Endpoints:
    base = f"http://127.0.0.1:{config.server.api_port}"
    return Endpoints(command_line(), f"{base}/v1", f"{base}{MCP_PATH}", config.server.api)
