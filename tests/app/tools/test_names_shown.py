"""Names shown honestly in the API and MCP (issue 70): the app's API server (``start_api``) on 127.0.0.1
over a collection whose folder and files are named to mislead (real files, parser, indexer and LanceDB;
the embedder, reranker and chat model are the deterministic fakes), asked with the official ``openai``
and ``mcp`` clients. ``invoice<U+202E>fdp.md`` comes back as ``invoice\\u202efdp.md`` (it read
"invoicedm.pdf"), the NFC and NFD spellings of "café.md" come back told apart, and ``read_passage``
takes a name back as results show it."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import openai
import pytest
from mcp.client.session import ClientSession

from app import runtime as runtime_module
from app.paths import Paths, read_config, resolve_paths
from app.runtime import Runtime
from app.tools.api_token import ApiToken
from kimas_desktop.control import IndexControl
from local_models.fake import HashEmbedder, ScriptedChatModel, WordOverlapReranker
from tests.app.tools.test_mcp_http import call, talk_to
from tests.app.tools.test_openai_api import free_port
from tests.rigs import scripted
from ui.server.api_server import RunningApi, start_api

INVOICE = "invoice\u202efdp.md"
FOLDER = "bills\u200b"
CAFE_NFC = unicodedata.normalize("NFC", "café.md")
CAFE_NFD = unicodedata.normalize("NFD", "café.md")
HIDDEN = ("\u202e", "\u200b", "\u0301")


@dataclass
class App:
    running: RunningApi
    token: str
    folder: Path


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    root = tmp_path_factory.mktemp("kimas-names")
    folder = root / FOLDER
    folder.mkdir()
    (folder / INVOICE).write_text("# Invoice\n\nThe invoice total for March is 420 euros.\n", "utf-8")
    (folder / CAFE_NFC).write_text("# Opening\n\nThe café opens at seven in the morning.\n", "utf-8")
    (folder / CAFE_NFD).write_text("# Closing\n\nThe café closes at nine in the evening.\n", "utf-8")
    paths: Paths = resolve_paths(str(root / "data"), None)
    fakes = replace(
        runtime_module.real_builders(),
        embedder=lambda cfg, cache: HashEmbedder(dim=32),
        reranker=lambda cfg, emb, cache: WordOverlapReranker(),
        chat=lambda cfg: ScriptedChatModel(scripted("The invoice total for March is 420 euros [1].")),
    )
    config = read_config(paths).updated(server={"api_port": free_port()})
    runtime = Runtime(paths, config, fakes)
    runtime.indexer().index("bills", [folder], None, IndexControl())
    running = start_api(runtime, lambda: config, paths.config_file)
    assert running is not None
    try:
        yield App(running, ApiToken(paths.config_file).read(), folder)
    finally:
        running.close()
        runtime.close()


def test_the_api_names_its_sources_with_their_hidden_characters_shown(app: App) -> None:
    client = openai.OpenAI(base_url=app.running.url, api_key=app.token, max_retries=0, timeout=600)
    reply = client.chat.completions.create(
        model="kimas", messages=[{"role": "user", "content": "What is the invoice total for March?"}]
    )
    content = reply.choices[0].message.content or ""
    assert "invoice\\u202efdp.md" in content and "bills\\u200b/" in content, content
    files = [s["passage"]["file"] for s in reply.model_dump()["sources"]]
    assert files and all(not any(h in f for h in HIDDEN) for f in files), files


def test_mcp_shows_names_as_they_are_and_takes_them_back(app: App) -> None:
    async def talk(session: ClientSession) -> None:
        found = await call(session, "search", question="When does the café open and close?")
        files = {Path(p["file"]).name for p in found["passages"]}
        assert {"café.md", "cafe\\u0301.md"} <= files, files  # two files, two names
        invoice = await call(session, "search", question="invoice total for March")
        names = [p["file"] for p in invoice["passages"]]
        assert any(n.endswith("bills\\u200b/invoice\\u202efdp.md") for n in names), names
        assert not any(h in str(found) + str(invoice) for h in HIDDEN)

        [listed] = (await call(session, "list_collections"))["result"]
        assert listed["folders"] == [str(app.folder).replace("\u200b", "\\u200b")]
        card = await call(session, "read_passage", id="invoice\\u202efdp.md")  # as results show it
        assert card["found"] and card["document"]["file"].endswith("invoice\\u202efdp.md"), card

    talk_to(app.running.mcp_url, app.token, talk)
