"""One budget per way in (issue 70): a question, a conversation and an embedding request over the
``[limits]`` are refused before any work, with the limit named, through the real API server on 127.0.0.1
(``start_api``, as ``kimas serve`` starts it, keeping chats in the real ``conversations.sqlite3``), with the
official ``openai`` and ``mcp`` clients, over HTTP and over ``kimas mcp`` on stdio. Nothing refused is kept:
60 oversized questions leave the chat history within 1 MB. A line that is not JSON-RPC on stdio gets its
JSON-RPC error, and a body the API cannot parse its OpenAI-shaped 400."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import openai
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from app.chat.history import ChatHistory
from app.chat.store import FILE_NAME
from app.paths import Paths, read_config, resolve_paths
from app.runtime import Runtime
from app.tools.api_token import ApiToken
from tests.app.tools.test_mcp_http import INITIALIZE, talk_to
from tests.app.tools.test_openai_api import BAKING, OVEN, free_port
from ui.server.api_server import RunningApi, start_api

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.slow

# A question pasted whole: about 100 KB, 25 times the limit (4,000 characters), far under the 4 MB body cap.
HUGE = "How long are the backups kept and who checks them every night? " * 1600
CHINESE = "面包应该在多少摄氏度的烤箱里烘烤二十分钟才算合适呢？" * 120  # 3,120 characters, over 1,024 tokens


@dataclass
class App:
    running: RunningApi
    token: str
    data_dir: Path

    def client(self) -> openai.OpenAI:
        return openai.OpenAI(base_url=self.running.url, api_key=self.token, max_retries=0, timeout=600)

    def chats(self) -> int:
        return len(ChatHistory(self.data_dir).summaries())

    def history_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.data_dir.glob(FILE_NAME + "*"))


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> Paths:
    root = tmp_path_factory.mktemp("kimas-limits")
    folder = root / "docs" / "baking"
    folder.mkdir(parents=True)
    (folder / "baking.md").write_text(BAKING)
    cmd = [sys.executable, "-m", "cli.main", "index", str(folder), "--collection", "baking"]
    out = subprocess.run(
        [*cmd, "--data-dir", str(root / "data")], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr
    return resolve_paths(str(root / "data"), None)


@pytest.fixture(scope="module")
def app(paths: Paths) -> Iterator[App]:
    config = read_config(paths).updated(server={"api_port": free_port()})
    runtime = Runtime(paths, config)
    kept = ChatHistory(paths.data_dir)  # the app's own history, as kimas serve keeps it
    running = start_api(runtime, lambda: config, paths.config_file, persist=kept.save)
    assert running is not None
    try:
        yield App(running, ApiToken(paths.config_file).read(), paths.data_dir)
    finally:
        running.close()
        runtime.close()


def refusal(call: Callable[..., object], **request: Any) -> openai.BadRequestError:
    """The ``openai`` client's error for ``call(**request)``, which the API refused with 400."""
    with pytest.raises(openai.BadRequestError) as refused:
        call(**request)
    return refused.value


def test_an_oversized_question_or_conversation_is_a_400_naming_the_limit(app: App) -> None:
    chats = app.chats()
    create = app.client().chat.completions.create
    user = [{"role": "user", "content": HUGE}]
    started = time.monotonic()
    whole = refusal(create, model="kimas", messages=user)
    streamed = refusal(create, model="kimas", messages=user, stream=True)
    assert time.monotonic() - started < 10  # refused up front, not after an answer's worth of work
    for err in (whole, streamed):
        assert err.status_code == 400
        assert err.body == {
            "message": "The question has 100,800 characters; the limit is 4,000 ([limits] question_chars "
            "in config.toml).",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "over_limit",
        }
    tokens = refusal(create, model="kimas", messages=[{"role": "user", "content": CHINESE}])
    assert "tokens; the limit is 1,024 ([limits] question_tokens" in tokens.message
    turns = [{"role": "user", "content": "Hello?"}, {"role": "assistant", "content": "Hello."}] * 129
    long = refusal(create, model="kimas", messages=[*turns, {"role": "user", "content": OVEN}])
    assert "has 258 messages; the limit is 256 ([limits] history_messages" in long.message
    assert app.chats() == chats  # nothing refused was kept


def test_embeddings_over_the_limits_are_refused_and_usage_is_counted(app: App) -> None:
    client = app.client()
    embed = client.embeddings.create
    started = time.monotonic()
    many = refusal(embed, model="kimas-embedding", input=["a"] * 2049)
    assert "has 2,049 texts; the limit is 2,048 ([limits] embedding_inputs" in many.message
    assert isinstance(many.body, dict) and many.body["param"] == "input" and many.body["code"] == "over_limit"
    long = refusal(embed, model="kimas-embedding", input=["rye flour " * 40_000] * 3)
    assert "has 1,200,000 characters; the limit is 1,000,000 ([limits] embedding_chars" in long.message
    cjk = refusal(embed, model="kimas-embedding", input=["面包烤箱温度" * 70_000])
    assert "tokens; the limit is 300,000 ([limits] embedding_tokens" in cjk.message
    # The attack that once took 172 s and 8.4 GB: 200,000 short inputs, 3.4 MB, under the 4 MB body cap.
    attack = httpx.post(
        app.running.url + "/embeddings",
        json={"model": "kimas-embedding", "input": [f"text {i}" for i in range(200_000)]},
        headers={"Authorization": f"Bearer {app.token}"},
        timeout=600,
    )
    assert attack.status_code == 400 and "([limits] embedding_inputs" in attack.json()["error"]["message"]
    assert time.monotonic() - started < 60
    done = client.embeddings.create(model="kimas-embedding", input=["rye flour and water", "Dutch oven"])
    assert len(done.data) == 2 and done.usage.prompt_tokens == done.usage.total_tokens >= 4


def test_a_body_the_api_cannot_parse_is_an_openai_error(app: App) -> None:
    headers = {"Authorization": f"Bearer {app.token}", "Content-Type": "application/json"}
    with httpx.Client(base_url=app.running.url, headers=headers, timeout=60) as c:
        nested = c.post("/chat/completions", content="[" * 100_000 + "]" * 100_000)
        lost = c.get("/no-such-route")
    assert nested.status_code == 400 and lost.status_code == 404
    for reply in (nested, lost):
        body = reply.json()
        assert set(body) == {"error"}, body  # not {"detail": ...}
        assert set(body["error"]) == {"message", "type", "param", "code"} and body["error"]["message"]
    assert nested.json()["error"]["type"] == "invalid_request_error"


def test_mcp_over_http_refuses_an_oversized_question_naming_the_limit(app: App) -> None:
    chats = app.chats()
    said: list[str] = []

    async def talk(session: ClientSession) -> None:
        for tool in ("ask", "search"):
            result = await session.call_tool(tool, {"question": HUGE})
            assert result.is_error, tool
            said.append(json.dumps(result.model_dump(), ensure_ascii=False))

    talk_to(app.running.mcp_url, app.token, talk)
    assert all("The question has 100,800 characters; the limit is 4,000" in s for s in said), said
    assert all("[limits] question_chars" in s for s in said)
    assert app.chats() == chats


def stdio(data_dir: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "cli.main", "mcp", "--data-dir", str(data_dir)], cwd=ROOT
    )


def test_sixty_oversized_questions_grow_the_chat_history_by_at_most_1_mb(app: App) -> None:
    """20 over the API, 20 over MCP on HTTP, 20 over ``kimas mcp`` on stdio: each about 100 KB (6 MB in
    all), each refused, none kept."""
    before, chats = app.history_bytes(), app.chats()
    create = app.client().chat.completions.create
    for i in range(20):
        assert refusal(create, model="kimas", messages=[{"role": "user", "content": f"{i} {HUGE}"}])

    async def talk(session: ClientSession) -> None:
        for i in range(20):
            assert (await session.call_tool("ask", {"question": f"{i} {HUGE}"})).is_error

    talk_to(app.running.mcp_url, app.token, talk)

    async def over_stdio() -> None:
        async with stdio_client(stdio(app.data_dir)) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            with anyio.fail_after(600):
                await talk(session)

    anyio.run(over_stdio)
    assert app.chats() == chats
    assert app.history_bytes() - before <= 1_000_000


def test_a_line_that_is_not_json_rpc_gets_its_json_rpc_error_on_stdio(paths: Paths) -> None:
    lines = ["this is not JSON", '{"jsonrpc": "2.0", "no": "method"}', json.dumps(INITIALIZE)]
    cmd = [sys.executable, "-m", "cli.main", "mcp", "--data-dir", str(paths.data_dir)]
    server = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert server.stdin is not None and server.stdout is not None
    replies: list[dict[str, Any]] = []
    out = server.stdout
    reader = threading.Thread(target=lambda: replies.extend(json.loads(out.readline()) for _ in lines))
    reader.start()
    try:
        server.stdin.write("\n".join(lines) + "\n")
        server.stdin.flush()
        reader.join(600)
    finally:
        server.stdin.close()  # as a client closes it: the server ends
        server.wait(60)
    assert [r.get("error", {}).get("code") for r in replies[:2]] == [-32700, -32600], replies
    assert [r["id"] for r in replies[:2]] == [None, None]
    assert replies[2]["id"] == 1 and "result" in replies[2]  # the server goes on serving


def peak_rss_kb(pid: int) -> int:
    """The process's peak resident memory so far (Linux: ``VmHWM``)."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="peak memory is read from /proc")
def test_a_line_over_the_message_limit_is_refused_unread_on_stdio(tmp_path: Path) -> None:
    """A 40 MB line (a question pasted whole) gets JSON-RPC's -32700 naming the limit (4,000,000 bytes, as
    an HTTP body to the API), and ``kimas mcp``'s peak memory grows by far less than the line: it is read
    in pieces and dropped (it was read whole; a 20 MB question once peaked at 3.55 GB). The server goes
    on serving."""
    cmd = [sys.executable, "-m", "cli.main", "mcp", "--data-dir", str(tmp_path / "data")]
    server = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None
    wire, out = server.stdin, server.stdout

    def send(message: bytes) -> dict[str, Any]:
        wire.write(message + b"\n")
        wire.flush()
        reply: dict[str, Any] = json.loads(out.readline())
        return reply

    question = {"name": "ask", "arguments": {"question": "How long are the backups kept? " * 1_300_000}}
    huge = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": question}
    try:
        assert send(json.dumps(INITIALIZE).encode())["id"] == 1
        before = peak_rss_kb(server.pid)
        refused = send(json.dumps(huge).encode())
        grown_mb = (peak_rss_kb(server.pid) - before) / 1024
        pong = send(b'{"jsonrpc": "2.0", "id": 3, "method": "ping"}')
    finally:
        wire.close()  # as a client closes it: the server ends
        server.wait(60)
    assert refused["id"] is None and refused["error"]["code"] == -32700, refused
    assert "4,000,000 bytes" in refused["error"]["message"]
    assert grown_mb < 16, grown_mb
    assert pong == {"jsonrpc": "2.0", "id": 3, "result": {}}
