"""Table questions through the API and MCP (issue 43): the app's API server (``start_api``, as ``kimas
serve`` starts it) on 127.0.0.1 over real collections indexed by ``kimas index`` (a CSV in one, Markdown
notes in another; real parser, LanceDB and embedded models). The OpenAI-compatible chat completion and
MCP's ``ask`` (over all collections, and narrowed to the CSV's) answer with the value computed over the
rows; MCP's result carries the computation as data: operation, value, rows used, file and row numbers,
with cells a spreadsheet would run as formulas prefixed by ``'`` (issue 70)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.client.session import ClientSession

from app.paths import Paths, read_config, resolve_paths
from app.runtime import Runtime
from app.tools.api_token import ApiToken
from tests.app.tools.test_mcp_http import call, talk_to
from tests.app.tools.test_openai_api import Holds, free_port
from ui.server.api_server import RunningApi, start_api

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.slow

CARS = (
    'name,origin,=horsepower,change\n=HYPERLINK("http://x.test"),Japan,65,@SUM(A1)\nford pinto,USA,75,0\n'
    "honda civic,Japan,67,-3.5\nford torino,USA,140,-\n"
)
NOTES = "# Garage notes\n\nThe garage door is painted green every spring.\n"
QUESTION = "How many cars have the origin Japan?"


@dataclass
class App:
    running: RunningApi
    token: str


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> Paths:
    root = tmp_path_factory.mktemp("kimas-api-tables")
    for name, file, text in (("sheets", "cars.csv", CARS), ("notes", "garage.md", NOTES)):
        folder = root / "docs" / name
        folder.mkdir(parents=True)
        (folder / file).write_text(text)
        cmd = [sys.executable, "-m", "cli.main", "index", str(folder), "--collection", name]
        out = subprocess.run(
            [*cmd, "--data-dir", str(root / "data")], cwd=ROOT, capture_output=True, text=True, timeout=600
        )
        assert out.returncode == 0, out.stderr
    return resolve_paths(str(root / "data"), None)


@pytest.fixture(scope="module")
def app(paths: Paths) -> Iterator[App]:
    config = read_config(paths).updated(server={"api_port": free_port()})
    runtime = Runtime(paths, config)
    running = start_api(runtime, lambda: config, paths.config_file, Holds().hold, lambda chat: None)
    assert running is not None
    try:
        yield App(running, ApiToken(paths.config_file).read())
    finally:
        running.close()
        runtime.close()


def test_the_openai_api_answers_with_the_computed_value(app: App) -> None:
    body = {"model": "kimas", "messages": [{"role": "user", "content": QUESTION}]}
    with httpx.Client(base_url=app.running.url, timeout=600) as client:
        reply = client.post("/chat/completions", json=body, headers={"Authorization": f"Bearer {app.token}"})
    assert reply.status_code == 200, reply.text
    content = reply.json()["choices"][0]["message"]["content"]
    assert content.startswith("2 (computed from cars.csv: rows where origin = Japan: 2; rows 2, 4)"), content


def test_mcp_ask_carries_the_computation_narrowed_or_not(app: App) -> None:
    got: dict[str, Any] = {}

    async def talk(session: ClientSession) -> None:
        got["all"] = await call(session, "ask", question=QUESTION)
        got["narrowed"] = await call(session, "ask", question=QUESTION, collections=["sheets"])
        got["total"] = await call(session, "ask", question="What is the total horsepower?")

    talk_to(app.running.mcp_url, app.token, talk)
    for scope in ("narrowed", "all"):
        answer = got[scope]
        assert answer["decision"] == "answered", (scope, answer)
        assert answer["answer"].startswith("2 (computed from cars.csv"), (scope, answer["answer"])
        table = answer["table"]
        assert (table["operation"], table["value"], table["rows_used"]) == ("count", 2, 2), (scope, table)
        assert Path(table["file"]).name == "cars.csv" and table["sheet"] == "" and table["header_row"] == 1
        assert table["rows"] == [
            {
                "row": 2,
                "cells": {
                    "name": '\'=HYPERLINK("http://x.test")',
                    "origin": "Japan",
                    "'=horsepower": "65",
                    "change": "'@SUM(A1)",
                },
            },
            {
                "row": 4,
                "cells": {"name": "honda civic", "origin": "Japan", "'=horsepower": "67", "change": "-3.5"},
            },
        ]  # a cell a spreadsheet would run as a formula comes back with a leading quote; numbers as they are
    total = got["total"]["table"]
    assert (total["operation"], total["target"], total["value"]) == ("sum", "'=horsepower", 347), total
