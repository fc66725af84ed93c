from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from kimas_desktop.config import ChatModelConfig
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import Cancelled, ModelCrashedError, ModelError, ModelUnavailableError
from kimas_desktop.protocols import ChatModel
from kimas_desktop.types import Message
from local_models import LlamaChatModel, build_chat_model
from local_models.fake import ScriptedChatModel
from tests.local_models.contracts import ASK, HELLO, SCHEMA, ChatModelContract, matches_schema
from tests.ui.patience import HANG_MS


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

    @pytest.fixture
    def broken(self, tmp_path: Path) -> Iterator[ChatModel]:
        """A GGUF file that is not one (a download cut short)."""
        gguf = tmp_path / "cut-short.gguf"
        gguf.write_bytes(b"GGUF" + os.urandom(4096))
        model = LlamaChatModel(ChatModelConfig(path=str(gguf)))
        yield model
        model.close()

    def test_prompts_are_cached_and_clear_cache_forgets_them(self, real_chat: LlamaChatModel) -> None:
        real_chat.clear_cache()
        assert real_chat.stats()["cache_states"] == 0
        real_chat.complete([Message("user", "Name a colour.")], max_tokens=4)
        assert real_chat.stats()["cache_states"] == 1  # the prompt's state is kept for prompts that extend it
        real_chat.clear_cache()
        assert real_chat.stats()["cache_states"] == 0

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
            t.join(HANG_MS / 1000)  # a wait for the answers, not a time budget (issue 46)
        assert len(results) == 3
        assert all(matches_schema(json.loads(r)) for r in results)
        assert len(set(results)) == 1

    def test_prompt_longer_than_the_context_is_a_model_error(self, real_chat: LlamaChatModel) -> None:
        with pytest.raises(ModelError, match="failed"):
            real_chat.complete([Message("user", "word " * 3000)], max_tokens=4)


@pytest.mark.slow
def test_the_cache_holds_no_more_than_its_setting_and_a_cached_prefix_answers_the_same() -> None:
    """States are counted by every byte they keep (the logits copy included), and slimming them does not
    change what a prompt that extends a cached one generates."""
    capacity_mb = 4
    cached = LlamaChatModel(ChatModelConfig(n_ctx=2048, n_threads=2, prompt_cache_mb=capacity_mb))
    fresh = LlamaChatModel(ChatModelConfig(n_ctx=2048, n_threads=2, prompt_cache_mb=0))
    base = [Message("system", "You answer in one short sentence."), Message("user", LONG_SOURCE)]
    follow_up = [*base, Message("assistant", "Noted."), Message("user", "Which city is named?")]
    try:
        cached.complete(base, max_tokens=8)
        for topic in ("rivers", "mountains", "birds", "trains", "bread"):  # push the cache past capacity
            cached.complete([Message("user", f"Say one word about {topic}. " * 20)], max_tokens=4)
        stats = cached.stats()
        assert 0 < stats["cache_bytes"] <= capacity_mb * 1024 * 1024
        assert stats["cache_states"] >= 1
        assert cached.complete(follow_up, max_tokens=16) == fresh.complete(follow_up, max_tokens=16)
    finally:
        cached.close()
        fresh.close()


LONG_SOURCE = (
    "The old harbour of Velmora was rebuilt in 1911 after the great storm. " * 12
    + "Velmora is the city this text is about."
)


@pytest.mark.slow
class TestTheWorkerProcess:
    """llama.cpp runs in a worker process: its death is an error for one call, not for the app."""

    def test_a_worker_killed_mid_answer_is_a_model_error_and_the_next_call_works(self) -> None:
        model = LlamaChatModel(ChatModelConfig(n_ctx=2048, n_threads=2))
        try:
            stream = model.stream(HELLO, max_tokens=64)
            assert next(stream)
            pid = model.worker_pid()
            assert pid is not None and pid != os.getpid()
            os.kill(pid, signal.SIGSEGV)
            with pytest.raises(ModelCrashedError, match=r"stopped \(killed by SIGSEGV.*restarting"):
                list(stream)
            assert model.complete(HELLO, max_tokens=8).strip()
            assert model.worker_pid() not in (None, pid)
        finally:
            model.close()

    def test_sigkill_during_a_complete_call_is_reported_as_such(self) -> None:
        model = LlamaChatModel(ChatModelConfig(n_ctx=2048, n_threads=2))
        model.warm_up()
        errors: list[BaseException] = []

        def ask() -> None:
            try:
                model.complete([Message("user", "Write a long story about a lighthouse.")], max_tokens=400)
            except BaseException as err:
                errors.append(err)

        try:
            thread = threading.Thread(target=ask)
            thread.start()
            time.sleep(0.5)
            pid = model.worker_pid()
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            thread.join(HANG_MS / 1000)  # waits for the crash report, not a time budget (issue 46)
            assert len(errors) == 1 and isinstance(errors[0], ModelCrashedError), errors
            assert "SIGKILL" in str(errors[0]) and "out of memory" in str(errors[0])
            assert model.count_tokens("Hello there.") > 0
        finally:
            model.close()

    def test_close_stops_the_worker(self) -> None:
        model = LlamaChatModel(ChatModelConfig(n_ctx=1024, n_threads=2))
        model.warm_up()
        pid = model.worker_pid()
        assert pid is not None
        model.close()
        assert model.worker_pid() is None
        with pytest.raises(ProcessLookupError):
            for _ in range(50):
                os.kill(pid, 0)
                time.sleep(0.05)


@pytest.mark.slow
class TestCancellation:
    def test_cancel_ends_a_stream_within_a_token_and_frees_the_model(self, real_chat: LlamaChatModel) -> None:
        token = CancelToken()
        stream = real_chat.stream(
            [Message("user", "Count from one to one hundred.")], max_tokens=300, cancel=token
        )
        assert next(stream)
        started = time.perf_counter()
        token.cancel()
        with pytest.raises(Cancelled):
            list(stream)
        assert time.perf_counter() - started < 0.5
        assert real_chat.complete(HELLO, max_tokens=4).strip()

    def test_cancel_interrupts_a_long_prompt_being_evaluated(self, real_chat: LlamaChatModel) -> None:
        real_chat.clear_cache()
        prompt = [Message("user", "river " * 1200 + "\nSummarize.")]
        token = CancelToken()
        threading.Timer(0.3, token.cancel).start()
        started = time.perf_counter()
        with pytest.raises(Cancelled):
            real_chat.complete(prompt, max_tokens=8, cancel=token)
        elapsed = time.perf_counter() - started
        uncancelled = time.perf_counter()
        real_chat.complete(prompt, max_tokens=1)
        full = time.perf_counter() - uncancelled
        assert elapsed < 1.0 < full, (elapsed, full)  # the prompt alone takes longer than the stop did


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


@pytest.mark.slow
def test_a_truncated_gguf_is_a_model_error_and_the_app_lives_on(tmp_path: Path) -> None:
    from local_models.embedders.embedded import smollm2_path

    truncated = tmp_path / "truncated.gguf"
    with smollm2_path().open("rb") as f:
        truncated.write_bytes(f.read(2_000_000))
    model = LlamaChatModel(ChatModelConfig(path=str(truncated)))
    with pytest.raises(ModelError, match=r"truncated\.gguf"):
        model.complete(HELLO)
    assert model.worker_pid() is None
