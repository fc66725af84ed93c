"""``kimas mcp`` end to end: the official MCP client starts it over stdio on real indexed collections
(real parser, indexer, LanceDB and the embedded tiny models) and calls every tool."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.slow

BAKING = """# Sourdough baking notes

## Starter
Feed the sourdough starter with equal weights of rye flour and water every twelve hours.

## Oven
Bake the loaf in a Dutch oven at 250 degrees Celsius for twenty minutes with the lid on.
"""

GARDEN = """# Greenhouse log

## Tomatoes
The greenhouse tomatoes need watering every morning; the cherry variety ripened in July.

## Pests
Aphids on the peppers were removed with soapy water.
"""

OVEN = "At what temperature should the loaf be baked?"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("kimas-mcp")
    for name, text in (("baking", BAKING), ("garden", GARDEN)):
        folder = root / "docs" / name
        folder.mkdir(parents=True)
        (folder / f"{name}.md").write_text(text)
        cmd = [sys.executable, "-m", "cli.main", "index", str(folder), "--collection", name]
        out = subprocess.run(
            [*cmd, "--data-dir", str(root / "data")], cwd=ROOT, capture_output=True, text=True, timeout=600
        )
        assert out.returncode == 0, out.stderr
    return root / "data"


def with_server(data_dir: Path, talk: Callable[[ClientSession], Awaitable[None]]) -> None:
    """Start ``kimas mcp`` as the official client does (a subprocess on stdio) and run ``talk`` with it."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "cli.main", "mcp", "--data-dir", str(data_dir)], cwd=ROOT
    )

    async def main() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            with anyio.fail_after(600):
                await talk(session)

    anyio.run(main)


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def test_tools_search_ask_and_read_a_passage(data_dir: Path) -> None:
    async def talk(session: ClientSession) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == {"search", "ask", "list_collections", "read_passage"}
        assert tools["search"].input_schema["required"] == ["question"]
        assert "quote_only" in tools["ask"].input_schema["properties"]
        assert all(t.description and t.output_schema for t in tools.values())

        listed = (await call(session, "list_collections"))["result"]
        assert {(c["name"], c["files"], c["indexing"]) for c in listed} == {
            ("baking", 1, False),
            ("garden", 1, False),
        }
        assert all(c["chunks"] > 0 and c["updated"] != "never" for c in listed)

        found = await call(session, "search", question=OVEN)
        top = found["passages"][0]
        assert top["file"].endswith("baking.md") and "250 degrees" in top["text"]
        assert top["collection"] == "baking" and top["lines"] and top["id"].startswith("baking/")
        scores = [p["score"] for p in found["passages"]]
        assert scores == sorted(scores, reverse=True)

        answer = await call(session, "ask", question=OVEN)
        assert answer["decision"] == "answered" and "250" in answer["answer"]
        assert "250 degrees" in answer["quote"]
        assert answer["citations"] and answer["citations"][0]["passage"]["file"].endswith("baking.md")

        read = await call(session, "read_passage", id=top["id"])
        assert read["found"] and read["passage"]["text"] == top["text"]

    with_server(data_dir, talk)


def test_quote_only_scopes_cards_and_errors(data_dir: Path) -> None:
    async def talk(session: ClientSession) -> None:
        quoted = await call(session, "ask", question=OVEN, quote_only=True)
        assert quoted["decision"] == "quote only" and quoted["answer"] == ""
        assert "250 degrees" in quoted["quote"] and quoted["answerable"] is True

        scoped = await call(session, "search", question=OVEN, collections=["garden"])
        assert scoped["searched"] == ["garden"]
        assert all(p["collection"] == "garden" for p in scoped["passages"])

        card = await call(session, "read_passage", id="baking.md")
        assert card["found"] and card["document"]["title"] == "Sourdough baking notes"
        missing = await call(session, "read_passage", id="baking/no-such-chunk")
        assert missing["found"] is False and "no-such-chunk" in missing["note"]

        wrong = await session.call_tool("search", {"question": OVEN, "collections": ["cooking"]})
        assert wrong.is_error and "no collection named cooking" in json.dumps(wrong.model_dump())

        cards = await session.read_resource("kimas://collections/baking")
        docs = json.loads(cards.contents[0].text)  # type: ignore[union-attr]
        assert [d["file"].rsplit("/", 1)[-1] for d in docs] == ["baking.md"]

    with_server(data_dir, talk)
