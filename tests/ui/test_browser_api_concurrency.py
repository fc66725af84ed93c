"""Everyone at once (issue 44): the real app (``launch.py``: its UI, API and MCP over HTTP) on real indexed
collections with the real tiny models. The browser's Chat tab, three ``openai`` clients on ``/v1`` and the
official MCP client on ``/mcp`` ask five different questions at the same moment; each answer is correct,
cites its own file, and carries no other question's fact. Each API and MCP question is then in the app's
log with its client and in the Chat tab's list as a chat of its own. Screenshots go to
``test-artifacts/browser-concurrency/``."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.app.tools.test_openai_api import BAKING, GARDEN
from tests.cli.test_serve_api import kimas_token, models
from tests.ui.patience import HANG_MS
from tests.ui.test_browser import CHROMIUM, ROOT, _free_port, running_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts" / "browser-concurrency"

BIKES = """# Bicycle maintenance

## Chain
Oil the bicycle chain every 300 kilometres with a dry lubricant.

## Tyres
Inflate the road tyres to six bar before each ride.
"""

# question: (the fact its answer must hold, the file it must cite)
BROWSER = {"At what temperature should the loaf be baked?": ("250", "baking.md")}
API = {
    "How often do the greenhouse tomatoes need watering?": ("morning", "garden.md"),
    "What flour is the sourdough starter fed with?": ("rye", "baking.md"),
    "What were the aphids on the peppers removed with?": ("soap", "garden.md"),
}
MCP = {"How often should the bicycle chain be oiled?": ("300", "bikes.md")}
FACTS = [fact for asked in (BROWSER, API, MCP) for fact, _ in asked.values()]


def index(root: Path) -> Path:
    data = root / "data"
    for name, text in (("baking", BAKING), ("garden", GARDEN), ("bikes", BIKES)):
        folder = root / "docs" / name
        folder.mkdir(parents=True)
        (folder / f"{name}.md").write_text(text)
        cmd = [sys.executable, "-m", "cli.main", "index", str(folder), "--collection", name]
        out = subprocess.run(
            [*cmd, "--data-dir", str(data)], cwd=ROOT, capture_output=True, text=True, timeout=600
        )
        assert out.returncode == 0, out.stderr
    return data


def ask_api(base_url: str, token: str, question: str) -> tuple[str, str]:
    """The ``openai`` client's answer and the file its first source cites."""
    from openai import OpenAI

    client = OpenAI(base_url=base_url, api_key=token, timeout=600)
    reply = client.chat.completions.create(model="kimas", messages=[{"role": "user", "content": question}])
    content = reply.choices[0].message.content or ""
    sources: list[dict[str, Any]] = (reply.model_extra or {})["sources"]
    return content.partition("\n\nSources:\n")[0], sources[0]["passage"]["file"]


def ask_mcp(url: str, token: str, question: str) -> tuple[str, str]:
    """The official MCP client's ``ask`` over streamable HTTP: the answer and its first citation's file."""
    got: dict[str, Any] = {}

    async def main() -> None:
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with (
            client,
            streamable_http_client(url, http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("ask", {"question": question})
            assert not result.is_error, result.content
            got.update(result.structured_content or {})

    anyio.run(main)
    return got["answer"], got["citations"][0]["passage"]["file"]


def check(question: str, expected: tuple[str, str], answer: str, cited: str) -> None:
    fact, file = expected
    assert fact in answer.lower(), (question, answer)
    assert cited.endswith(file), (question, cited)
    others = [f for f in FACTS if f != fact]
    assert not [f for f in others if f in answer.lower()], (question, answer)  # no other question's fact


def test_browser_api_and_mcp_ask_at_once(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    data, port = index(tmp_path), _free_port()
    (data / "config.toml").write_text(f"[server]\napi_port = {port}\n")
    with running_app(data, ARTIFACTS) as url, sync_api.sync_playwright() as pw:
        token = kimas_token(data)
        assert models(port, token, wait_s=60) is not None
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 1100})
        expect = sync_api.expect
        expect.set_options(timeout=HANG_MS)
        try:
            page.goto(url, timeout=HANG_MS)
            expect(page.locator("#model-status")).to_contain_text("Ready", timeout=HANG_MS)
            [(question, expected)] = BROWSER.items()
            box = page.locator("#question textarea, #question input").first
            box.fill(question)
            together = threading.Barrier(len(API) + len(MCP) + 1)
            programs = together_asking(port, token, together)
            together.wait(timeout=60)
            box.press("Enter")
            chat = page.locator("#chatbot")
            expect(chat).to_contain_text("How this answer was made", timeout=HANG_MS)
            cited_line = chat.locator("details.kimas-citation summary").first
            expect(cited_line).to_be_visible(timeout=HANG_MS)  # the answer is done, with its citations
            page.screenshot(path=str(ARTIFACTS / "01-browser-answer.png"), full_page=True)
            shown = chat.inner_text()  # this chat only: the question, quote, answer, citations
            assert question in shown and expected[0] in shown.lower(), shown
            cited = cited_line.inner_text()
            assert f"] {expected[1]}" in cited, cited  # [1] baking.md …
            for asked, future in programs:
                check(asked, {**API, **MCP}[asked], *future.result(timeout=600))
            page.reload()
            listed = page.locator("#conversation-list")
            for asked in API:
                expect(listed).to_contain_text(f"API · {asked}")
            expect(listed).to_contain_text(f"MCP · {next(iter(MCP))}")
            page.screenshot(path=str(ARTIFACTS / "02-their-chats.png"), full_page=True)
        finally:
            browser.close()
        log = (data / "kimas.log").read_text()
    assert all("from 127.0.0.1:" in line for line in log.splitlines() if "api: chat completion" in line)
    assert sum("api: chat completion (kimas) from 127.0.0.1:" in line for line in log.splitlines()) == len(
        API
    )
    assert "OpenAI/Python" in log and "mcp: ask from 127.0.0.1:" in log


def together_asking(port: int, token: str, together: threading.Barrier) -> list[tuple[str, Future[Any]]]:
    """Start the API and MCP questions on threads; each waits at ``together`` and then asks."""
    pool = ThreadPoolExecutor(len(API) + len(MCP))
    base = f"http://127.0.0.1:{port}"

    def when_all_ready(ask: Callable[[str, str, str], tuple[str, str]], where: str, q: str) -> Any:
        together.wait(timeout=60)
        return ask(where, token, q)

    asked = [(q, pool.submit(when_all_ready, ask_api, f"{base}/v1", q)) for q in API]
    asked += [(q, pool.submit(when_all_ready, ask_mcp, f"{base}/mcp", q)) for q in MCP]
    pool.shutdown(wait=False)
    return asked
