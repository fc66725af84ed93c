from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from kimas_desktop.config import ChatModelConfig
from kimas_desktop.errors import ModelError, ModelUnavailableError
from kimas_desktop.protocols import ChatModel
from kimas_desktop.types import Message
from local_models import LlamaChatModel, build_chat_model
from local_models.fake import ScriptedChatModel
from tests.local_models.contracts import ASK, HELLO, SCHEMA, ChatModelContract, matches_schema


def _script(messages: Sequence[Message], schema: Mapping[str, Any] | None) -> str:
    return json.dumps({"answer": "Paris", "confident": True}) if schema else "Hello there."


class TestScriptedChatModel(ChatModelContract):
    @pytest.fixture
    def chat(self) -> ChatModel:
        return ScriptedChatModel(_script)


@pytest.mark.slow
class TestLlamaChatModel(ChatModelContract):
    @pytest.fixture
    def chat(self, real_chat: LlamaChatModel) -> ChatModel:
        return real_chat

    def test_prompts_are_cached_and_clear_cache_forgets_them(self, real_chat: LlamaChatModel) -> None:
        real_chat.clear_cache()
        cache = real_chat._model().cache
        assert len(cache.cache_state) == 0
        real_chat.complete([Message("user", "Name a colour.")], max_tokens=4)
        assert len(cache.cache_state) == 1  # the prompt's state is kept for prompts that extend it
        real_chat.clear_cache()
        assert len(real_chat._model().cache.cache_state) == 0

    def test_stopping_a_stream_early_releases_the_model(self, real_chat: LlamaChatModel) -> None:
        stream = real_chat.stream(HELLO, max_tokens=32)
        assert next(stream)
        stream.close()
        done = threading.Event()

        def ask() -> None:
            real_chat.complete(HELLO, max_tokens=2)
            done.set()

        threading.Thread(target=ask, daemon=True).start()
        assert done.wait(30), "complete() blocked: the abandoned stream kept the lock"

    def test_concurrent_calls_are_serialized_not_crashed(self, real_chat: LlamaChatModel) -> None:
        results: list[str] = []

        def ask() -> None:
            results.append(real_chat.complete(ASK, max_tokens=48, json_schema=SCHEMA))

        threads = [threading.Thread(target=ask) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert len(results) == 3
        assert all(matches_schema(json.loads(r)) for r in results)
        assert len(set(results)) == 1

    def test_prompt_longer_than_the_context_is_a_model_error(self, real_chat: LlamaChatModel) -> None:
        with pytest.raises(ModelError, match="failed"):
            real_chat.complete([Message("user", "word " * 3000)], max_tokens=4)


def test_constructor_is_cheap_and_touches_no_file() -> None:
    started = time.perf_counter()
    model = build_chat_model(ChatModelConfig(path="/nowhere/model.gguf"))
    assert isinstance(model, LlamaChatModel)
    assert time.perf_counter() - started < 0.05
    assert model.model_id == "llama/model.gguf"
    with pytest.raises(ModelUnavailableError, match="does not exist"):
        model.warm_up()


@pytest.mark.slow
def test_a_garbage_gguf_is_a_model_error_not_a_crash(tmp_path: Path) -> None:
    garbage = tmp_path / "broken.gguf"
    garbage.write_bytes(b"this is not a GGUF file\n" * 100)
    model = LlamaChatModel(ChatModelConfig(path=str(garbage)))
    with pytest.raises(ModelError, match=r"broken\.gguf: llama\.cpp cannot read it"):
        model.complete(HELLO)


@pytest.mark.slow
def test_load_time(capsys: pytest.CaptureFixture[str]) -> None:
    model = LlamaChatModel(ChatModelConfig(n_ctx=2048))
    started = time.perf_counter()
    model.warm_up()
    elapsed = time.perf_counter() - started
    with capsys.disabled():
        print(f"\nSmolLM2-135M load: {elapsed:.2f} s")
    assert elapsed < 10


def test_hf_repo_offline_says_what_to_do(no_network: list[object]) -> None:
    model = LlamaChatModel(ChatModelConfig(hf_repo="org/model-GGUF", hf_file="*Q4_K_M.gguf"))
    with pytest.raises(ModelUnavailableError) as caught:
        model.warm_up()
    message = str(caught.value)
    assert "Hugging Face hub cannot be reached" in message
    assert "chat.path" in message
