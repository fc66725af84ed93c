from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from kimas_desktop.config import ChatModelConfig
from kimas_desktop.errors import ModelError, ModelUnavailableError
from kimas_desktop.protocols import ChatModel
from local_models import OpenAIChatModel, build_chat_model
from local_models.embedders.embedded import smollm2_path
from tests.local_models.contracts import ASK, HELLO, SCHEMA, ChatModelContract


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real ``python -m llama_cpp.server`` serving the embedded SmolLM2 on 127.0.0.1."""
    probe = subprocess.run(
        [sys.executable, "-c", "import llama_cpp.server.app"], capture_output=True, text=True
    )
    if probe.returncode != 0:
        pytest.skip(f"llama_cpp.server cannot start: {probe.stderr.strip().splitlines()[-1]}")
    port = _free_port()
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_path()), "--host", "127.0.0.1"]
    cmd += ["--port", str(port), "--n_ctx", "2048", "--n_threads", "2", "--seed", "0"]
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with log.open("w") as sink:  # a file, not a pipe: a full pipe would stall the server
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 60
    try:
        while True:
            if proc.poll() is not None:
                pytest.skip(f"llama_cpp.server exited with {proc.returncode}: {log.read_text()[-500:]}")
            try:
                if httpx.get(f"{base}/models", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.skip("llama_cpp.server did not answer within 60 s")
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.mark.slow
class TestOpenAIChatModelAgainstLlamaServer(ChatModelContract):
    @pytest.fixture
    def chat(self, llama_server: str) -> ChatModel:
        return build_chat_model(ChatModelConfig(kind="openai", base_url=llama_server, timeout_s=60))

    @pytest.fixture
    def broken(self) -> ChatModel:
        """A chat server that is not there (a port nobody listens on)."""
        return OpenAIChatModel(ChatModelConfig(kind="openai", base_url=f"http://127.0.0.1:{_free_port()}/v1"))

    def test_uses_the_servers_tokenizer(self, llama_server: str) -> None:
        model = OpenAIChatModel(ChatModelConfig(kind="openai", base_url=llama_server))
        assert model.count_tokens("hello world") == 2
        assert model._token_route == "/extras/tokenize/count"

    def test_falls_back_to_json_object_and_remembers(self, llama_server: str) -> None:
        model = OpenAIChatModel(ChatModelConfig(kind="openai", base_url=llama_server))
        model.complete(ASK, max_tokens=48, json_schema=SCHEMA)
        assert model._schema_format == "json_object"

    def test_warm_up_checks_the_server(self, llama_server: str) -> None:
        OpenAIChatModel(ChatModelConfig(kind="openai", base_url=llama_server)).warm_up()


# Unit tests of the HTTP handling, through httpx's transport seam.


def _model(handler: httpx.MockTransport, **cfg: object) -> OpenAIChatModel:
    config = ChatModelConfig(kind="openai", base_url="http://server.test/v1", **cfg)
    return OpenAIChatModel(config, transport=handler)


def _reply(content: str) -> httpx.Response:
    return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": content}}]})


def test_sends_openai_json_schema_and_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIMAS_TEST_KEY", "sekret")
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return _reply('{"answer": "Paris", "confident": true}')

    model = _model(httpx.MockTransport(handle), api_key_env="KIMAS_TEST_KEY", model="gpt-x")
    assert json.loads(model.complete(ASK, json_schema=SCHEMA))["answer"] == "Paris"
    body = json.loads(seen[0].content)
    assert seen[0].url == "http://server.test/v1/chat/completions"
    assert seen[0].headers["Authorization"] == "Bearer sekret"
    assert body["model"] == "gpt-x"
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": SCHEMA},
    }


def test_missing_key_variable_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KIMAS_NO_SUCH_KEY", raising=False)
    model = _model(httpx.MockTransport(lambda r: _reply("x")), api_key_env="KIMAS_NO_SUCH_KEY")
    with pytest.raises(ModelUnavailableError, match="KIMAS_NO_SUCH_KEY"):
        model.complete(HELLO)


def test_http_errors_become_model_errors() -> None:
    model = _model(httpx.MockTransport(lambda r: httpx.Response(401, text="bad key")), api_key_env="")
    with pytest.raises(ModelError, match="HTTP 401: bad key"):
        model.complete(HELLO)


def test_an_unreachable_server_is_unavailable() -> None:
    port = _free_port()  # nothing listens there
    model = OpenAIChatModel(ChatModelConfig(kind="openai", base_url=f"http://127.0.0.1:{port}/v1"))
    with pytest.raises(ModelUnavailableError, match="Cannot connect to the chat server"):
        model.warm_up()
    with pytest.raises(ModelUnavailableError):
        list(model.stream(HELLO))
    assert model.count_tokens("abcdef") == 2  # approximated while the server is down


def test_stream_parses_server_sent_events_and_stops_at_done() -> None:
    events = [{"choices": [{"delta": {"role": "assistant"}}]}]
    events += [{"choices": [{"delta": {"content": piece}}]} for piece in ("Hel", "lo", "!")]
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    body += f"data: {json.dumps({'choices': [{'delta': {'content': 'after done'}}]})}\n\n"
    model = _model(httpx.MockTransport(lambda r: httpx.Response(200, text=body)))
    assert list(model.stream(HELLO)) == ["Hel", "lo", "!"]


def test_count_tokens_approximates_without_a_tokenizer_endpoint() -> None:
    calls: list[str] = []

    def handle(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        return httpx.Response(404, text="not found")

    model = _model(httpx.MockTransport(handle))
    assert model.count_tokens("x" * 30) == 10
    assert model.count_tokens("x" * 31) == 11
    assert calls == ["/extras/tokenize/count", "/tokenize"]  # asked once, then remembered


def test_llama_server_tokenize_route_is_used() -> None:
    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/tokenize":
            return httpx.Response(200, json={"tokens": [1, 2, 3]})
        return httpx.Response(404)

    assert _model(httpx.MockTransport(handle)).count_tokens("abc def ghi") == 3


def test_constructor_is_cheap() -> None:
    model = build_chat_model(ChatModelConfig(kind="openai", base_url="http://127.0.0.1:9/v1", model="m"))
    assert isinstance(model, OpenAIChatModel)
    assert model.model_id == "openai/m"


class ClosingTransport(httpx.MockTransport):
    """Counts how often the client that owns it is closed (its connections dropped)."""

    closed = 0

    def close(self) -> None:
        self.closed += 1


def test_close_drops_the_connections_once_and_a_later_call_opens_new_ones() -> None:
    transport = ClosingTransport(lambda r: _reply("hello"))
    model = _model(transport)
    assert isinstance(model, ChatModel)  # close() is part of the protocol
    assert model.complete(HELLO) == "hello"
    model.close()
    model.close()  # idempotent: nothing left to close
    assert transport.closed == 1
    assert model.complete(HELLO) == "hello"
    model.close()
    assert transport.closed == 2
