"""MCP over streamable HTTP from the running app (issue 44): the official MCP client against the API's real
uvicorn server on 127.0.0.1 (``start_api``, as ``kimas serve`` starts it), over real indexed collections
(real parser, indexer, LanceDB and the embedded tiny models). MCP shares the API's port, token and guards."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from app.chat.conversation import Conversation
from app.paths import Paths, read_config, resolve_paths
from app.runtime import Runtime
from app.tools.api_token import ApiToken
from tests.app.tools.test_openai_api import BAKING, GARDEN, OVEN, Holds, free_port
from ui.server.api_server import RunningApi, start_api

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.slow

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@dataclass
class App:
    running: RunningApi
    port: int
    token: str
    holds: Holds
    chats: list[Conversation]


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> Paths:
    root = tmp_path_factory.mktemp("kimas-mcp-http")
    for name, text in (("baking", BAKING), ("garden", GARDEN)):
        folder = root / "docs" / name
        folder.mkdir(parents=True)
        (folder / f"{name}.md").write_text(text)
        cmd = [sys.executable, "-m", "cli.main", "index", str(folder), "--collection", name]
        out = subprocess.run(
            [*cmd, "--data-dir", str(root / "data")], cwd=ROOT, capture_output=True, text=True, timeout=600
        )
        assert out.returncode == 0, out.stderr
    return resolve_paths(str(root / "data"), None)


@pytest.fixture(scope="module")
def app(paths: Paths) -> Iterator[App]:
    port = free_port()
    config = read_config(paths).updated(server={"api_port": port})
    runtime = Runtime(paths, config)
    holds, chats = Holds(), list[Conversation]()
    running = start_api(runtime, lambda: config, paths.config_file, holds.hold, chats.append)
    assert running is not None
    try:
        yield App(running, port, ApiToken(paths.config_file).read(), holds, chats)
    finally:
        running.close()
        runtime.close()


def talk_to(url: str, token: str, talk: Callable[[ClientSession], Awaitable[None]]) -> None:
    """Run ``talk`` with the official MCP client over streamable HTTP, sending ``token``."""

    async def main() -> None:
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with (
            client,
            streamable_http_client(url, http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            with anyio.fail_after(600):
                await talk(session)

    anyio.run(main)


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def test_tools_search_and_ask_over_http(app: App, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="app.tools.mcp_server")
    entered, kept = app.holds.entered, len(app.chats)
    got: dict[str, Any] = {}

    async def talk(session: ClientSession) -> None:
        got["tools"] = {t.name for t in (await session.list_tools()).tools}
        got["search"] = await call(session, "search", question=OVEN)
        got["ask"] = await call(session, "ask", question=OVEN)

    talk_to(app.running.mcp_url, app.token, talk)
    assert app.running.mcp_url == f"http://127.0.0.1:{app.port}/mcp"
    assert got["tools"] == {"search", "ask", "list_collections", "read_passage"}
    top = got["search"]["passages"][0]
    assert top["file"].endswith("baking.md") and "250 degrees" in top["text"]
    answer = got["ask"]
    assert answer["decision"] == "answered" and "250" in answer["answer"]
    assert answer["citations"][0]["passage"]["file"].endswith("baking.md")
    assert app.holds.one_more(entered)  # indexing waited while the answer was written
    [chat] = app.chats[kept:]  # the app keeps the question as a chat, with its trace
    assert chat.title == f"MCP · {OVEN}" and chat.turns[0].trace is not None
    assert "250" in chat.turns[0].answer and chat.turns[0].state == "done"
    logged = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("mcp: ask from 127.0.0.1:") and OVEN in m for m in logged), logged


def test_without_the_token_401(app: App, caplog: pytest.LogCaptureFixture) -> None:
    for token in (None, "not-the-token"):
        headers = {**MCP_HEADERS, **({"Authorization": f"Bearer {token}"} if token else {})}
        reply = httpx.post(app.running.mcp_url, json=INITIALIZE, headers=headers)
        assert reply.status_code == 401, reply.text
        assert "kimas token" in reply.json()["error"]["message"]

    async def talk(session: ClientSession) -> None:
        raise AssertionError("the session opened without the token")

    caplog.clear()
    with pytest.raises(BaseExceptionGroup) as refused:  # the official client: its initialize fails
        talk_to(app.running.mcp_url, "not-the-token", talk)
    assert refused.group_contains(MCPError, depth=None)
    assert "api: refused POST '/mcp' from 127.0.0.1:" in caplog.text and "no valid token" in caplog.text


def test_foreign_host_or_origin_403(app: App) -> None:
    auth = {**MCP_HEADERS, "Authorization": f"Bearer {app.token}"}
    with httpx.Client() as c:
        own = c.post(app.running.mcp_url, json=INITIALIZE, headers=auth)
        rebound = c.post(app.running.mcp_url, json=INITIALIZE, headers={**auth, "Host": f"evil.example:{app.port}"})  # fmt: skip
        pages = [
            c.post(app.running.mcp_url, json=INITIALIZE, headers={**auth, "Origin": origin})
            for origin in ("http://evil.example", "http://localhost:9999", "null")
        ]
    assert own.status_code == 200, own.text  # the token alone opens it
    assert rebound.status_code == 403
    assert [p.status_code for p in pages] == [403, 403, 403]


def test_the_api_shares_the_port(app: App) -> None:
    reply = httpx.get(app.running.url + "/models", headers={"Authorization": f"Bearer {app.token}"})
    assert reply.status_code == 200 and "kimas" in json.dumps(reply.json())


def test_api_answers_are_kept_as_chats_with_their_trace(app: App) -> None:
    kept = len(app.chats)
    body = {"model": "kimas", "messages": [{"role": "user", "content": OVEN}], "stream": True}
    headers = {"Authorization": f"Bearer {app.token}"}
    with (
        httpx.Client(timeout=600) as c,
        c.stream("POST", app.running.url + "/chat/completions", json=body, headers=headers) as reply,
    ):
        text = "".join(reply.iter_lines())
    assert reply.status_code == 200 and "[DONE]" in text
    [chat] = app.chats[kept:]
    assert chat.title == f"API · {OVEN}" and chat.turns[0].state == "done"
    assert chat.turns[0].trace is not None and "250" in chat.turns[0].answer


# docs/api.md's MCP-over-HTTP config for a client that speaks streamable HTTP (VS Code's .vscode/mcp.json;
# VS Code asks for the token once and fills ${input:kimas-token}), as written there.
def vscode_http_config() -> str:
    """docs/api.md's VS Code config for MCP over HTTP (its third JSON block), as written."""
    from tests.test_docs_api import section

    return re.findall(r"```json\n(.*?)```", section(), re.S)[2]


def test_the_http_config_connects_as_written(app: App) -> None:
    """The config with only what the client fills in: the token, and this test server's port."""
    config = json.loads(vscode_http_config())
    server = config["servers"]["kimas"]
    assert server["type"] == "http" and config["inputs"][0]["password"] is True
    url = server["url"].replace(":7870/", f":{app.port}/")
    headers = {k: v.replace("${input:kimas-token}", app.token) for k, v in server["headers"].items()}
    names: set[str] = set()

    async def main() -> None:
        client = create_mcp_http_client(headers=headers)
        async with (
            client,
            streamable_http_client(url, http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            names.update(t.name for t in (await session.list_tools()).tools)

    anyio.run(main)
    assert names == {"search", "ask", "list_collections", "read_passage"}
