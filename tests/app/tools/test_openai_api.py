"""The OpenAI-compatible API end to end: a real uvicorn server on 127.0.0.1 (the one ``kimas serve`` starts,
behind the UI's guards) over a real indexed collection (real parser, indexer, LanceDB and the embedded tiny
models), asked over real HTTP.

Most tests send the requests the ``openai`` package sends (``httpx``, its own transport), read the way it
reads them: JSON bodies, ``data:`` server-sent events ending in ``[DONE]``, base64 float32 embeddings (its
default ``encoding_format``); docs/api.md's example runs as written with the ``openai`` package itself."""

from __future__ import annotations

import base64
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from app.paths import Paths, read_config, resolve_paths
from app.runtime import Runtime
from app.tools.api_models import ApiModels
from app.tools.api_token import ApiToken
from app.tools.openai_api import build_api
from ui.server.api_server import RunningApi, serve_api, start_api

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


class Holds:
    """The app's ``answering`` hold (indexing waits while an answer is written), counted."""

    def __init__(self) -> None:
        self.entered = self.left = 0
        self._changed = threading.Condition()

    @contextmanager
    def hold(self) -> Iterator[None]:
        with self._changed:
            self.entered += 1
        try:
            yield
        finally:
            with self._changed:
                self.left += 1
                self._changed.notify_all()

    def one_more(self, entered: int) -> bool:
        """Whether one more answer than ``entered`` was held, and all have let go (waits up to 10 s)."""
        with self._changed:
            return self._changed.wait_for(lambda: self.entered == self.left == entered + 1, timeout=10)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Api:
    running: RunningApi
    port: int
    token: str
    runtime: Runtime
    holds: Holds

    @property
    def url(self) -> str:
        return self.running.url

    def client(self, token: str | None = "", **headers: str) -> httpx.Client:
        """A client as the ``openai`` package makes one: ``Authorization: Bearer`` with the token."""
        sent = {"Authorization": f"Bearer {token or self.token}"} if token is not None else {}
        return httpx.Client(base_url=self.url, headers={**sent, **headers}, timeout=600)


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> Paths:
    root = tmp_path_factory.mktemp("kimas-api")
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
def api(paths: Paths) -> Iterator[Api]:
    runtime = Runtime(paths, read_config(paths))
    holds = Holds()
    models = ApiModels(runtime, answering=holds.hold)
    port = free_port()
    running = serve_api(build_api(models, ApiToken(paths.config_file).read), port)
    try:
        yield Api(running, port, ApiToken(paths.config_file).read(), runtime, holds)
    finally:
        running.close()
        models.close()
        runtime.close()


def ask(stream: bool = False, **extra: Any) -> dict[str, Any]:
    return {"model": "kimas", "messages": [{"role": "user", "content": OVEN}], "stream": stream, **extra}


def events(reply: httpx.Response) -> list[Any]:
    """The ``data:`` payloads of a server-sent event stream, as the ``openai`` client reads them."""
    lines = [line.removeprefix("data: ") for line in reply.iter_lines() if line.startswith("data: ")]
    return [line if line == "[DONE]" else json.loads(line) for line in lines]


def test_models_are_the_presets(api: Api) -> None:
    with api.client() as c:
        listed = c.get("/models")
    assert listed.status_code == 200
    assert [m["id"] for m in listed.json()["data"]] == ["kimas", "kimas-full", "kimas-routed", "kimas-turbo"]
    assert {m["object"] for m in listed.json()["data"]} == {"model"}


def test_chat_completion_answers_with_numbered_sources(api: Api) -> None:
    entered = api.holds.entered
    with api.client() as c:
        reply = c.post("/chat/completions", json=ask())
    assert reply.status_code == 200, reply.text
    assert api.holds.one_more(entered)  # indexing waited while it was written
    body = reply.json()
    content = body["choices"][0]["message"]["content"]
    answer, _, sources = content.partition("\n\nSources:\n")
    assert "250" in answer and "[1]" in answer
    assert sources.startswith("[1] ") and "baking.md, lines " in sources
    assert body["decision"] == "answered" and body["choices"][0]["finish_reason"] == "stop"
    first = body["sources"][0]
    assert first["n"] == 1 and first["passage"]["file"].endswith("baking.md")
    assert "250 degrees" in first["passage"]["text"] and first["passage"]["id"].startswith("baking/")


def test_streamed_completion_is_openai_chunks_then_sources(api: Api) -> None:
    entered = api.holds.entered
    with api.client() as c, c.stream("POST", "/chat/completions", json=ask(stream=True)) as reply:
        assert reply.status_code == 200
        assert reply.headers["content-type"].startswith("text/event-stream")
        got = events(reply)
    assert got[-1] == "[DONE]"
    assert api.holds.one_more(entered)  # indexing waited while it was written
    chunks = got[:-1]
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"} and len({c["id"] for c in chunks}) == 1
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    # The embedded model's answer is the quote, in one piece (issue 69); a model that writes streams in
    # pieces (tests/app/tools/test_api_numbers.py): the role, the content, the sources, the end.
    assert len(chunks) >= 3
    assert [c["choices"][0]["finish_reason"] for c in chunks][-2:] == [None, "stop"]
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
    assert "250" in text and "\n\nSources:\n[1] " in text and text.rstrip().endswith(tuple("0123456789"))
    assert chunks[-1]["sources"][0]["passage"]["file"].endswith("baking.md")
    assert chunks[-1]["decision"] == "answered"


def test_the_messages_are_the_conversation(api: Api) -> None:
    history = [
        {"role": "user", "content": "What do the notes say about the starter?"},
        {"role": "assistant", "content": "Feed it every twelve hours [1].\n\nSources:\n[1] /x/baking.md"},
    ]
    with api.client() as c:
        last_not_user = c.post("/chat/completions", json={"model": "kimas", "messages": history})
        follow = c.post("/chat/completions", json=ask(messages=[*history, {"role": "user", "content": OVEN}]))
    assert last_not_user.status_code == 400
    assert "the last message must be the user's question" in last_not_user.json()["error"]["message"]
    assert follow.status_code == 200 and "250" in follow.json()["choices"][0]["message"]["content"]


def test_three_clients_at_once_each_get_their_own_answer(api: Api) -> None:
    asked = {
        OVEN: ("250", "baking.md"),
        "How often do the greenhouse tomatoes need watering?": ("morning", "garden.md"),
        "What flour is the sourdough starter fed with?": ("rye", "baking.md"),
    }

    def one(question: str) -> dict[str, Any]:
        with api.client() as c:
            body = {"model": "kimas", "messages": [{"role": "user", "content": question}]}
            reply = c.post("/chat/completions", json=body)
        assert reply.status_code == 200, reply.text
        return dict(reply.json())

    with ThreadPoolExecutor(3) as pool:
        replies = dict(zip(asked, pool.map(one, asked), strict=True))
    for question, (fact, file) in asked.items():
        content = replies[question]["choices"][0]["message"]["content"]
        answer = content.partition("\n\nSources:\n")[0]
        assert fact in answer.lower(), (question, content)
        assert replies[question]["sources"][0]["passage"]["file"].endswith(file), (question, content)


def test_embeddings_are_the_collections_embedder(api: Api) -> None:
    texts = ["rye flour and water", "Dutch oven at 250 degrees"]
    with api.client() as c:
        floats = c.post("/embeddings", json={"model": "kimas-embedding", "input": texts})
        packed = c.post("/embeddings", json={"model": "kimas-embedding", "input": texts[1], "encoding_format": "base64"})  # fmt: skip
        wrong = c.post("/embeddings", json={"model": "text-embedding-3-small", "input": texts})
    assert floats.status_code == 200, floats.text
    embedder = api.runtime.embedder(api.runtime.config)
    rows = np.array([d["embedding"] for d in floats.json()["data"]], dtype=np.float32)
    assert rows.shape == (2, embedder.dim) and floats.json()["model"] == embedder.model_id
    assert np.allclose(rows, embedder.embed_passages(texts), atol=1e-5)
    one = np.frombuffer(base64.b64decode(packed.json()["data"][0]["embedding"]), dtype="<f4")
    assert np.allclose(one, embedder.embed_passages(texts[1:])[0], atol=1e-5)  # int8: batches differ a little
    assert wrong.status_code == 404 and "kimas-embedding" in wrong.json()["error"]["message"]


def test_without_the_token_401(api: Api) -> None:
    for token in (None, "not-the-token"):
        with api.client(token) as c:
            for reply in (c.get("/models"), c.post("/chat/completions", json=ask())):
                assert reply.status_code == 401, (token, reply.text)
                assert reply.headers["www-authenticate"] == "Bearer"
                assert "kimas token" in reply.json()["error"]["message"]


def test_foreign_host_or_page_403(api: Api) -> None:
    own = f"http://127.0.0.1:{api.port}"
    with api.client(Host=f"evil.example:{api.port}") as c:
        assert c.get("/models").status_code == 403  # DNS rebinding: the page's own name
    for origin in ("http://evil.example", "http://localhost:9999", "null"):
        with api.client(Origin=origin) as c:
            assert c.get("/models").status_code == 403, origin
            assert c.post("/chat/completions", json=ask()).status_code == 403, origin
    with api.client(Referer="http://evil.example/page") as c:
        assert c.get("/models").status_code == 403
    with api.client(Origin=own) as c:
        mine = c.get("/models")
    assert mine.status_code == 200  # the API's own address is not refused: only the others are
    assert mine.headers["x-frame-options"] == "DENY" and mine.headers["x-content-type-options"] == "nosniff"


def test_rate_and_size_limits(api: Api) -> None:
    port = free_port()
    models = ApiModels(api.runtime)
    running = serve_api(build_api(models, lambda: api.token, per_minute=3), port, max_bytes=2000)
    try:
        with httpx.Client(base_url=running.url, headers={"Authorization": f"Bearer {api.token}"}) as c:
            huge = c.post("/embeddings", json={"model": "kimas-embedding", "input": "x" * 5000})
            assert huge.status_code == 413
            statuses = [c.get("/models").status_code for _ in range(3)]
            refused = c.get("/models")
    finally:
        running.close()
        models.close()
    assert statuses == [200, 200, 200]  # the 413 was refused before the rate limit counted it
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    assert "at most 3 a minute" in refused.json()["error"]["message"]


def test_the_off_switch(paths: Paths, api: Api) -> None:
    off = read_config(paths).updated(server={"api": False})
    assert start_api(api.runtime, lambda: off, paths.config_file) is None


def docs_openai_example() -> str:
    text = (ROOT / "docs" / "api.md").read_text("utf-8")
    section = text.split("## The OpenAI-compatible API", 1)[1].split("\n## ", 1)[0]
    [code] = [b.split("\n", 1)[1] for b in section.split("```python")[1:]]
    return code.split("```", 1)[0]


def test_the_docs_openai_example_runs_as_written_with_the_openai_client(api: Api, tmp_path: Path) -> None:
    """docs/api.md's example, with the real ``openai`` package, only its address and key filled in."""
    code = docs_openai_example()
    assert 'base_url="http://127.0.0.1:7870/v1"' in code and 'api_key="..."' in code
    code = code.replace("127.0.0.1:7870", f"127.0.0.1:{api.port}").replace(
        'api_key="..."', f'api_key="{api.token}"'
    )
    code += "\nprint()\nprint(len(vectors.data), len(vectors.data[0].embedding))\n"
    script = tmp_path / "example.py"
    script.write_text(code, "utf-8")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    whole, streamed = out.stdout.split("\n\nSources:\n")[:2], out.stdout.split("\n\nSources:\n")[1:]
    assert "250" in whole[0] and "baking.md" in whole[1]  # the answer, then its numbered sources
    assert len(streamed) == 2 and "250" in streamed[0].split("\n", 2)[-1]  # the stream: answer, then sources
    *_, sizes = out.stdout.strip().split("\n")
    assert sizes.split()[0] == "1" and int(sizes.split()[1]) > 0  # one vector of the embedder's size
