"""``/v1/embeddings`` keeps the app's memory flat (issue 70: 200,000 short inputs once took the app from
1.15 GB to 8.41 GB). The real app (``kimas serve``, its own process) embeds a request at the cap
(``[limits] embedding_inputs`` texts, just under ``embedding_chars``, answered as floats, the larger
form) in bounded batches: its peak resident memory grows by at most 300 MB. One text more is refused
with 400, and the 200,000-input request too, without growing it. Linux: the peak is the kernel's
(``VmHWM``, reset through ``/proc/PID/clear_refs`` before each request)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import openai
import pytest

from app.tools.api_token import ApiToken
from tests.app.tools.test_openai_api import free_port

ROOT = Path(__file__).resolve().parents[3]
MB = 1024 * 1024
CAP, CHARS = 2048, 1_000_000  # [limits] embedding_inputs and embedding_chars, as docs/security.md says

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the peak from /proc"),
]

WORDS = "rye flour water starter oven loaf crust steam proof dough salt yeast knead shape score bake".split()


def status(pid: int, key: str) -> int:
    """``VmRSS`` or ``VmHWM`` of ``pid``, in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {key} for {pid}")


def peak_growth(pid: int, request: object) -> tuple[int, object]:
    """How far ``pid``'s resident memory peaked above where it was while ``request()`` ran, and its result."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # the peak starts again from now
    start = status(pid, "VmRSS")
    assert callable(request)
    result = request()
    return status(pid, "VmHWM") - start, result


@dataclass
class Served:
    pid: int
    url: str  # the API's, http://127.0.0.1:PORT/v1
    token: str


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``kimas serve`` with its API on a free port."""
    data = tmp_path_factory.mktemp("kimas-embed-memory") / "data"
    data.mkdir()
    api_port = free_port()
    (data / "config.toml").write_text(f"[server]\napi_port = {api_port}\n")
    cmd = [sys.executable, "-m", "cli.main", "serve", "--port", str(free_port()), "--data-dir", str(data)]
    log = (data.parent / "serve.log").open("w")
    process = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{api_port}/v1"
    try:
        deadline = time.monotonic() + 600
        while True:
            assert process.poll() is None, (data.parent / "serve.log").read_text()
            try:
                if httpx.get(url + "/models", timeout=5).status_code == 401:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the API did not start"
            time.sleep(0.5)
        yield Served(process.pid, url, ApiToken(data / "config.toml").read())
    finally:
        process.terminate()
        process.wait(60)
        log.close()


def texts(n: int, chars: int) -> list[str]:
    """``n`` different texts of about ``chars`` characters each."""
    out = []
    for i in range(n):
        words = [WORDS[(i * 7 + j * 3 + j * j) % len(WORDS)] for j in range(chars // 5)]
        out.append(f"{i} " + " ".join(words))
    return [t[:chars] for t in out]


def test_embeddings_at_the_cap_grow_the_app_by_at_most_300_mb(app: Served) -> None:
    pid, url = app.pid, app.url
    client = openai.OpenAI(base_url=url, api_key=app.token, max_retries=0, timeout=1800)
    client.embeddings.create(model="kimas-embedding", input=["warm up"])  # the model loads once
    time.sleep(5)
    at_cap = texts(CAP, CHARS // CAP - 8)
    assert sum(map(len, at_cap)) <= CHARS

    def embed_at_cap() -> object:
        return client.embeddings.create(model="kimas-embedding", input=at_cap, encoding_format="float")

    grown, done = peak_growth(pid, embed_at_cap)
    assert isinstance(done, openai.types.CreateEmbeddingResponse)
    assert len(done.data) == CAP and len(done.data[-1].embedding) == 384
    print(f"\npeak RSS growth at the cap ({len(at_cap)} texts, {sum(map(len, at_cap)):,} characters, "
          f"{done.usage.prompt_tokens:,} tokens): {grown / MB:.0f} MB")  # fmt: skip
    assert grown <= 300 * MB

    def one_more() -> object:
        with pytest.raises(openai.BadRequestError) as refused:
            client.embeddings.create(model="kimas-embedding", input=[*at_cap, "one more"])
        return refused.value

    grown, err = peak_growth(pid, one_more)
    assert isinstance(err, openai.BadRequestError) and "([limits] embedding_inputs" in err.message
    assert grown <= 100 * MB

    def attack() -> object:
        body = {"model": "kimas-embedding", "input": [f"text {i}" for i in range(200_000)]}
        headers = {"Authorization": f"Bearer {client.api_key}"}
        return httpx.post(url + "/embeddings", json=body, headers=headers, timeout=600)

    grown, reply = peak_growth(pid, attack)
    assert isinstance(reply, httpx.Response) and reply.status_code == 400
    print(f"peak RSS growth refusing 200,000 inputs: {grown / MB:.0f} MB")
    assert grown <= 300 * MB
