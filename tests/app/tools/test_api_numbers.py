"""The OpenAI-compatible API numbers an answer's sources as the chat does: [1], [2], … in the order a reader
of the content meets them (issue 69: they started at [2]), in the content, its sources block and the
``sources`` field alike, whole and streamed. The app's API server on 127.0.0.1 over a real index, the fake
embedder and reranker, and a scripted chat model that cites by the evidence's numbers (the passage ranked
first shares the question's words but not its answer), asked with the official ``openai`` client."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from app import runtime as runtime_module
from app.paths import read_config, resolve_paths
from app.runtime import Runtime
from app.tools.api_token import ApiToken
from kimas_desktop.control import IndexControl
from local_models.fake import HashEmbedder, ScriptedChatModel, WordOverlapReranker
from tests.app.tools.test_openai_api import free_port
from tests.cli.test_ask_numbers import ANSWER, FILES, QUESTION
from tests.kimas_desktop.pipeline_rig import DOGS, by_schema
from ui.server.api_server import start_api


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[openai.OpenAI]:
    root = tmp_path_factory.mktemp("kimas-numbers")
    docs = root / "pets"
    docs.mkdir()
    for name, text in FILES.items():
        (docs / name).write_text(text, "utf-8")
    paths = resolve_paths(str(root / "data"), None)
    fakes = replace(
        runtime_module.real_builders(),
        embedder=lambda cfg, cache: HashEmbedder(dim=32),
        reranker=lambda cfg, emb, cache: WordOverlapReranker(),
        chat=lambda cfg: ScriptedChatModel(by_schema(DOGS, ANSWER), judges=True),
    )
    config = read_config(paths).updated(server={"api_port": free_port()})
    runtime = Runtime(paths, config, fakes)
    runtime.indexer().index("pets", [docs], None, IndexControl())
    running = start_api(runtime, lambda: config, paths.config_file)
    assert running is not None
    token = ApiToken(paths.config_file).read()
    try:
        yield openai.OpenAI(base_url=running.url, api_key=token, max_retries=0, timeout=600)
    finally:
        running.close()
        runtime.close()


ASKED: list[ChatCompletionMessageParam] = [{"role": "user", "content": QUESTION}]


def _listed(content: str) -> list[tuple[str, str]]:
    return re.findall(r"^\[(\d+)\] .*/(\w+\.md)", content.partition("Sources:")[2], re.MULTILINE)


def test_a_whole_answer_cites_its_first_source_as_1(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(model="kimas", messages=ASKED)
    content = reply.choices[0].message.content or ""
    # love.md's marker is dropped: it is not among the sources, as the chat drops it once an answer is done
    assert content.startswith("Anna walked Rex for 30 minutes every day [1]. Rex did love Anna every day.\n")
    assert _listed(content) == [("1", "walks.md")], content
    sources = reply.model_dump()["sources"]
    assert [(s["n"], s["passage"]["file"].rsplit("/", 1)[-1]) for s in sources] == [(1, "walks.md")]


def test_a_streamed_answer_sends_its_markers_and_sources_in_the_same_numbers(client: openai.OpenAI) -> None:
    chunks = list(client.chat.completions.create(model="kimas", messages=ASKED, stream=True))
    content = "".join((c.choices[0].delta.content or "") for c in chunks if c.choices)
    assert content.startswith("Anna walked Rex for 30 minutes every day [1].")
    assert _listed(content) == [("1", "walks.md")], content
    sources = chunks[-1].model_dump()["sources"]
    assert [s["n"] for s in sources] == [1]
