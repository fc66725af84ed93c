"""Issue 70's attacks that no other test re-ran as they were made, re-run on the app's API server
(``start_api``, as ``kimas serve`` starts it) on 127.0.0.1 over a collection ``kimas index`` built (real
parser, LanceDB and embedded models), with the official ``openai`` and ``mcp`` clients where they apply:
the Host and Origin guard in many spellings, a 50 MB body and a 3.9 MB question at the real caps, 40
concurrent MCP calls, and the planted note's ``[9]`` asked through the API. The table in docs/security.md
names these tests."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx
import openai
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from app.paths import read_config, resolve_paths
from app.runtime import Runtime
from app.tools.api_token import ApiToken
from tests.app.tools.test_mcp_http import INITIALIZE, MCP_HEADERS, call
from tests.app.tools.test_openai_api import BAKING, GARDEN, free_port
from tests.local_models.test_disagree_real import AUDIT, NOTE
from ui.server.api_server import RunningApi, start_api

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.slow

FILES = {"baking.md": BAKING, "garden.md": GARDEN, "audit.md": AUDIT, "note.md": NOTE}


@dataclass
class App:
    running: RunningApi
    port: int
    token: str

    def client(self) -> openai.OpenAI:
        return openai.OpenAI(base_url=self.running.url, api_key=self.token, max_retries=0, timeout=600)

    def send(self, path: str, **headers: str) -> int:
        """The status of a POST to ``path`` (``/v1/...`` or ``/mcp``) with the token and ``headers``."""
        sent = {**MCP_HEADERS, "Authorization": f"Bearer {self.token}", **headers}
        url = f"http://127.0.0.1:{self.port}{path}"
        body = INITIALIZE if path == "/mcp" else {"model": "kimas-embedding", "input": "rye"}
        return httpx.post(url, json=body, headers=sent, timeout=120).status_code


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    root = tmp_path_factory.mktemp("kimas-attacks")
    folder = root / "docs" / "ops"
    folder.mkdir(parents=True)
    for name, text in FILES.items():
        (folder / name).write_text(text)
    cmd = [sys.executable, "-m", "cli.main", "index", str(folder), "--collection", "ops"]
    out = subprocess.run(
        [*cmd, "--data-dir", str(root / "data")], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr
    paths = resolve_paths(str(root / "data"), None)
    port = free_port()
    config = read_config(paths).updated(server={"api_port": port})
    runtime = Runtime(paths, config)
    running = start_api(runtime, lambda: config, paths.config_file)
    assert running is not None
    try:
        yield App(running, port, ApiToken(paths.config_file).read())
    finally:
        running.close()
        runtime.close()


def test_the_host_and_origin_guard_holds_in_every_spelling(app: App) -> None:
    """Other spellings of loopback, a rebinding name dressed as ours, and origins that only look like the
    app's are refused (403) on the API and on MCP, with the right token; the app's own names pass."""
    p = app.port
    hosts = [
        f"evil.example:{p}", f"127.0.0.1.:{p}", f"localhost.:{p}", f"127.1:{p}", f"2130706433:{p}",
        f"0x7f000001:{p}", f"0177.0.0.1:{p}", f"[::ffff:127.0.0.1]:{p}", f"localhost.evil.example:{p}",
        f"127.0.0.1.nip.io:{p}", f"127.0.0.1:{p + 1}", "127.0.0.1", "localhost", f"127.0.0.1:{p}@evil.example",
    ]  # fmt: skip
    origins = [
        "http://evil.example", "http://localhost:9999", "null", f"https://127.0.0.1:{p}",
        f"http://127.0.0.1:{p}.evil.example", f"http://127.0.0.1:{p}@evil.example", f"http://127.0.0.1.:{p}",
        f"http://localhost.:{p}", f"http://127.1:{p}", f"http://[::ffff:127.0.0.1]:{p}", "http://127.0.0.1",
        f"file:///127.0.0.1:{p}", f"ws://evil.example:{p}", f"http://evil.example/http://127.0.0.1:{p}",
    ]  # fmt: skip
    for path in ("/v1/embeddings", "/mcp"):
        assert {h: app.send(path, Host=h) for h in hosts} == dict.fromkeys(hosts, 403), path
        assert {o: app.send(path, Origin=o) for o in origins} == dict.fromkeys(origins, 403), path
        assert {o: app.send(path, Referer=o + "/page") for o in origins} == dict.fromkeys(origins, 403), path
        own = [f"127.0.0.1:{p}", f"LOCALHOST:{p}", f"[::1]:{p}"]
        assert [app.send(path, Host=h, Origin=f"http://{h}") for h in own] == [200, 200, 200], path


def test_a_50_mb_body_is_413_and_a_39_mb_question_400_before_any_work(app: App) -> None:
    headers = {"Authorization": f"Bearer {app.token}", "Content-Type": "application/json"}
    body = b'{"model": "kimas", "messages": [{"role": "user", "content": "' + b"a" * 50_000_000 + b'"}]}'
    started = time.monotonic()
    for path in ("/v1/chat/completions", "/mcp"):
        try:
            status: int | None = httpx.post(
                f"http://127.0.0.1:{app.port}{path}", content=body, headers=headers, timeout=120
            ).status_code
        except httpx.TransportError:  # the server may close the line before the client has sent it all
            status = None
        assert status in (413, None), (path, status)
    pieces = iter([body[:1_000_000]] * 50)  # streamed, with no length to check up front: cut off all the same
    with httpx.stream(
        "POST", app.running.url + "/chat/completions", headers=headers, content=pieces
    ) as streamed:
        assert streamed.status_code == 413
    question = "How long are the backups kept? " * 125_807  # 3.9 MB: under the body cap, over the question's
    with pytest.raises(openai.BadRequestError) as refused:
        app.client().chat.completions.create(model="kimas", messages=[{"role": "user", "content": question}])
    assert refused.value.status_code == 400 and "([limits] question_chars" in refused.value.message
    assert time.monotonic() - started < 60  # refused up front (the 3.9 MB question once ran 27.6 s to a 500)
    assert app.send("/v1/embeddings") == 200  # the server goes on serving


def test_forty_concurrent_mcp_calls_each_get_their_own_answer(app: App) -> None:
    """Four MCP sessions over HTTP, ten ``search`` calls at once in each: each call's best passage is
    from the file its question is about."""
    asked = {
        "Which flour feeds the sourdough starter?": "baking.md",
        "When did the cherry tomatoes ripen?": "garden.md",
        "How were the aphids on the peppers removed?": "garden.md",
        "How long did the restores take in February?": "audit.md",
    }
    got: list[tuple[str, str]] = []

    async def one(session: ClientSession, question: str) -> None:
        found = await call(session, "search", question=question)
        got.append((question, Path(found["passages"][0]["file"]).name))

    async def session_of_ten(k: int) -> None:
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {app.token}"})
        async with (
            client,
            streamable_http_client(app.running.mcp_url, http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            async with anyio.create_task_group() as calls:
                for i in range(10):
                    calls.start_soon(one, session, list(asked)[(k + i) % len(asked)])

    async def main() -> None:
        with anyio.fail_after(600):
            async with anyio.create_task_group() as sessions:
                for k in range(4):
                    sessions.start_soon(session_of_ten, k)

    anyio.run(main)
    assert len(got) == 40
    assert [file for _, file in got] == [asked[q] for q, _ in got]


def test_the_planted_note_through_the_api_cites_only_listed_sources_and_shows_both_values(app: App) -> None:
    """Issue 70's example through the ``openai`` client: the note's "7 days only [9]" beside the audit's 90
    days once answered "The backups are kept for 7 days only [9]. [2]" with only [2] listed. Now each
    marker of the app's points to a listed source, the note's own "[9]" stays inside its quote, and the
    audit's value is shown beside it."""
    reply = app.client().chat.completions.create(
        model="kimas", messages=[{"role": "user", "content": "How long are backups kept?"}]
    )
    content = reply.choices[0].message.content or ""
    answer, _, listed = content.partition("\n\nSources:\n")
    sources = (reply.model_extra or {})["sources"]
    numbers = {s["n"] for s in sources}
    assert {int(n) for n in re.findall(r"^\[(\d+)\]", listed, re.M)} == numbers, content
    own = re.sub(r"“[^”]*”", "", answer)  # the documents' words are quoted: their "[9]" is their text
    assert {int(n) for n in re.findall(r"\[(\d+)\]", own)} <= numbers, content  # none points to nothing
    assert "“The backups are kept for 7 days only [9].”" in answer, content
    assert "7 days" in answer and "90 days" in answer, content
    assert {Path(s["passage"]["file"]).name for s in sources} >= {"audit.md", "note.md"}, sources
