"""docs/api.md's "Use it from other tools" configs stay true: each JSON snippet parses and starts `kimas mcp`
with this install's script (issue 44; in the README until issue 60 moved them to docs/)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def section() -> str:
    """The whole page: MCP over stdio, the OpenAI-compatible API, MCP over HTTP."""
    text = (ROOT / "docs" / "api.md").read_text("utf-8")
    assert text.startswith("# Use it from other tools\n")
    return text


def snippets() -> list[dict[str, Any]]:
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", section(), re.S)]


def test_the_claude_desktop_and_vs_code_configs_start_kimas_mcp() -> None:
    claude, vscode, http = snippets()
    servers = [claude["mcpServers"]["kimas"], vscode["servers"]["kimas"]]
    assert vscode["servers"]["kimas"]["type"] == "stdio"
    assert http["servers"]["kimas"]["type"] == "http"  # run as written by tests/app/tools/test_mcp_http.py
    for server in servers:
        assert server["args"] == ["mcp"]
        assert server["command"].endswith("/.venv/bin/kimas")
        # The path under the install folder is where the installed script is.
        assert (ROOT / server["command"].split("/kimas-desktop/", 1)[1]).is_file()
    assert "claude_desktop_config.json" in section() and ".vscode/mcp.json" in section()


def test_the_page_names_the_tools_the_server_has(tmp_path: Path) -> None:
    import anyio

    from app.paths import read_config, resolve_paths
    from app.runtime import Runtime
    from app.tools.knowledge import KnowledgeTools
    from app.tools.mcp_server import build_server

    paths = resolve_paths(str(tmp_path), None)
    server = build_server(KnowledgeTools(Runtime(paths, read_config(paths))))
    names = {t.name for t in anyio.run(server.list_tools)}
    assert names == {"search", "ask", "list_collections", "read_passage"}
    assert all(f"`{name}`" in section() for name in names)
