"""``LlamaChatModel``: a GGUF chat model run in-process by llama.cpp (llama-cpp-python).

The constructor only stores the config; the model loads on ``warm_up()`` or the first call. One
``Llama`` object is not thread-safe, so every call into it (``stream`` for as long as it is being
iterated) holds one lock. A ``LlamaRAMCache`` keeps the KV state of recent prompts, so a prompt that
extends an earlier one (same instructions, same sources) only pays for its new tokens.
"""

from __future__ import annotations

import inspect
import logging
import os
import threading
from collections.abc import Generator, Mapping, Sequence
from pathlib import Path
from typing import Any

from kimas_desktop.config import ChatModelConfig
from kimas_desktop.errors import ModelError, ModelUnavailableError
from kimas_desktop.types import Message
from local_models.embedded import SMOLLM2_FILE
from local_models.hub import hub_unreachable_reason
from local_models.resolve import resolve_chat

__all__ = ["RAM_CACHE_BYTES", "LlamaChatModel"]

log = logging.getLogger(__name__)

RAM_CACHE_BYTES = 512 * 1024 * 1024


def chat_messages(messages: Sequence[Message]) -> list[dict[str, str]]:
    return [{"role": m.role, "content": m.content} for m in messages]


class LlamaChatModel:
    """A ``ChatModel`` backed by llama.cpp. ``cfg.path`` → ``cfg.hf_repo`` → the embedded SmolLM2."""

    def __init__(self, cfg: ChatModelConfig) -> None:
        self._cfg = cfg
        self._lock = threading.Lock()
        self._llama: Any = None

    @property
    def model_id(self) -> str:
        if self._cfg.path:
            return f"llama/{Path(self._cfg.path).name}"
        if self._cfg.hf_repo:
            return f"llama/{self._cfg.hf_repo}/{self._cfg.hf_file or '*.gguf'}"
        return f"llama/{SMOLLM2_FILE}"

    @property
    def context_size(self) -> int:
        return self._cfg.n_ctx

    def warm_up(self) -> None:
        with self._lock:
            self._model()

    def _model(self) -> Any:
        """The loaded ``Llama``; call with the lock held."""
        if self._llama is None:
            self._llama = self._load()
        return self._llama

    def _load(self) -> Any:
        import llama_cpp

        cfg = self._cfg
        kwargs: dict[str, Any] = {
            "n_ctx": cfg.n_ctx,
            "n_threads": cfg.n_threads or os.cpu_count() or 1,
            "seed": cfg.seed,
            "verbose": False,
        }
        if "flash_attn" in inspect.signature(llama_cpp.Llama.__init__).parameters:
            kwargs["flash_attn"] = True
        origin = resolve_chat(cfg)
        if origin.network:
            llama = self._download(llama_cpp.Llama, kwargs)
        else:
            try:
                llama = llama_cpp.Llama(model_path=origin.location, **kwargs)
            except (ValueError, RuntimeError, OSError) as err:
                raise ModelError(
                    f"Could not load the chat model {origin.location}: llama.cpp cannot read it as a GGUF "
                    f"model (is the file complete, and a GGUF rather than another format?). {err}"
                ) from err
        llama.set_cache(llama_cpp.LlamaRAMCache(capacity_bytes=RAM_CACHE_BYTES))
        return llama

    def _download(self, llama_class: Any, kwargs: dict[str, Any]) -> Any:
        repo, pattern = self._cfg.hf_repo, self._cfg.hf_file or "*.gguf"
        fix = "connect to the internet once, or download the GGUF yourself and set chat.path to it"
        reason = hub_unreachable_reason()
        if reason is not None:
            raise ModelUnavailableError(
                f"The chat model {repo} ({pattern}) must be downloaded, but the Hugging Face hub cannot be "
                f"reached ({reason}): {fix}."
            )
        try:
            return llama_class.from_pretrained(repo_id=repo, filename=pattern, **kwargs)
        except Exception as err:  # hub, file-matching and load errors all mean the same to the user
            raise ModelUnavailableError(
                f"Could not download and load the chat model {repo} ({pattern}) from the Hugging Face hub: "
                f"{err}. Check chat.hf_repo and chat.hf_file, or set chat.path to a local GGUF file."
            ) from err

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        json_schema: Mapping[str, Any] | None = None,
    ) -> str:
        kwargs: dict[str, Any] = {}
        if json_schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": dict(json_schema)}
        with self._lock:
            llama = self._model()
            try:
                response = llama.create_chat_completion(
                    messages=chat_messages(messages),
                    max_tokens=max_tokens,
                    temperature=temperature,
                    seed=self._cfg.seed,
                    **kwargs,
                )
            except (ValueError, RuntimeError) as err:
                raise ModelError(f"The chat model {self.model_id} failed: {err}") from err
        return str(response["choices"][0]["message"].get("content") or "")

    def stream(
        self, messages: Sequence[Message], *, max_tokens: int = 512, temperature: float = 0.0
    ) -> Generator[str, None, None]:
        """Text deltas. Holds the model's lock while iterated; closing the iterator releases it."""
        self._lock.acquire()
        chunks: Any = None
        try:
            llama = self._model()
            chunks = llama.create_chat_completion(
                messages=chat_messages(messages),
                max_tokens=max_tokens,
                temperature=temperature,
                seed=self._cfg.seed,
                stream=True,
            )
            for chunk in chunks:
                delta = chunk["choices"][0]["delta"].get("content")
                if delta:
                    yield delta
        except (ValueError, RuntimeError) as err:
            raise ModelError(f"The chat model {self.model_id} failed: {err}") from err
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
            self._lock.release()

    def clear_cache(self) -> None:
        """Forget every cached prompt state (benchmarks use it so each run pays for its prompt)."""
        import llama_cpp

        with self._lock:
            llama = self._model()
            llama.reset()
            llama.set_cache(llama_cpp.LlamaRAMCache(capacity_bytes=RAM_CACHE_BYTES))

    def count_tokens(self, text: str) -> int:
        with self._lock:
            llama = self._model()
            return len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))
