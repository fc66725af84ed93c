"""``LlamaChatModel``: a GGUF chat model run by llama.cpp (llama-cpp-python) in a worker process.

The constructor only stores the config; the worker starts and loads the model on ``warm_up()`` or the
first call. Running llama.cpp in its own process (``local_models/llama/worker.py``) means a native crash, an
out-of-memory kill or a GGUF that takes the loader down is a ``ModelCrashedError`` here, not a dead app:
the worker is started again in the background and the next call works. It also gives real
cancellation: a cancelled ``CancelToken`` stops generation within a token, or within one compute step
while a prompt is evaluated.

One model serves one call at a time, so every call (``stream`` for as long as it is being iterated)
holds one lock. The worker keeps a prompt cache of ``chat.prompt_cache_mb``, counted by the bytes its
states really hold, so a prompt that extends an earlier one (same instructions, same sources) only pays
for its new tokens.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Generator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kimas_desktop.config import ChatModelConfig
from kimas_desktop.errors import Cancelled, ModelCrashedError, ModelError, ModelUnavailableError
from kimas_desktop.types import ChatModelDescription, Message
from local_models.catalog.catalog import CatalogEntry, entry_for_file, load_catalog
from local_models.catalog.hub import hub_unreachable_reason
from local_models.embedders.embedded import SMOLLM2_FILE
from local_models.llama.process import LlamaProcess, LoadFailed, WorkerGone, loaded_process
from local_models.resolve import resolve_chat

if TYPE_CHECKING:
    from kimas_desktop.control import CancelToken

__all__ = ["LlamaChatModel", "llama_runtime_info", "load_params", "prompt_lookup_tokens", "writes_answers"]

log = logging.getLogger(__name__)

# The smallest model whose extract-and-verify check is evidence: the embedded SmolLM2-135M's copies verify
# for 2 of 20 answerable questions, the 0.5B benchmark model's check declines 0.55-0.75 of the unanswerable
# ones (bench/RESULTS.md). A model file that does not say its size is not trusted to judge.
JUDGE_MIN_PARAMETERS = 300_000_000
DRAFT_TOKENS = 10  # tokens a prompt lookup drafts per step (llama-cpp-python's default)
CANCEL_GRACE_S = 5.0  # a cancelled call that has not ended by then: the worker is killed and restarted
LOAD_TIMEOUT_S = 600.0


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity where the OS has one (Linux), else all of them."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def chat_threads(cfg: ChatModelConfig) -> int:
    """llama.cpp's threads, for generation and prompt batches alike. ``chat.n_threads`` = 0: one per
    physical core, taken as half the usable CPUs (llama.cpp's own default); a thread for every CPU waits
    at each barrier for the slowest, which on a busy machine is one that something else holds (2 threads
    beside two busy processes: 0.6 tokens/s, 1 thread: 11; bench/RESULTS.md, issue 72)."""
    return cfg.n_threads or max(usable_cpus() // 2, 1)


def load_params(cfg: ChatModelConfig) -> dict[str, Any]:
    """The worker's ``load`` parameters of every llama.cpp model (the chat model's, the reader's): the
    context, the threads, the seed and the prompt cache (the worker adds its own: flash attention, and no
    AMX where llama.cpp would crash with it)."""
    threads = chat_threads(cfg)
    kwargs = {"n_ctx": cfg.n_ctx, "n_threads": threads, "n_threads_batch": threads, "seed": cfg.seed}
    return {"kwargs": {**kwargs, "verbose": False}, "cache_bytes": cfg.prompt_cache_mb * 1024 * 1024}


def chat_messages(messages: Sequence[Message]) -> list[dict[str, str]]:
    return [{"role": m.role, "content": m.content} for m in messages]


def llama_runtime_info(timeout_s: float = 60.0) -> dict[str, Any]:
    """What the installed llama.cpp uses on this CPU (``system_info``, ``features``), from a worker that
    loads no model. Raises ``ModelError`` when llama.cpp cannot start."""
    process = LlamaProcess()
    try:
        request = process.send("info")
        frame = process.next_frame(request, timeout_s)
    except (WorkerGone, TimeoutError) as err:
        raise ModelError(f"llama.cpp could not start: {err or 'timed out'}") from err
    finally:
        process.stop()
    return {k: v for k, v in frame.items() if k not in ("id", "t")}


def prompt_lookup_tokens(
    cfg: ChatModelConfig, file_name: str, catalog: list[CatalogEntry] | None = None
) -> int:
    """Tokens drafted per step by prompt-lookup decoding for this model (0: off). ``auto`` follows the
    model's entry in ``catalog`` (default: ours), found by its GGUF file name (``chat.hf_file`` for a
    hub model)."""
    if cfg.prompt_lookup != "auto":
        return DRAFT_TOKENS if cfg.prompt_lookup == "on" else 0
    entry = _entry(cfg, file_name, catalog)
    return DRAFT_TOKENS if entry is not None and entry.prompt_lookup else 0


def writes_answers(cfg: ChatModelConfig, file_name: str, catalog: list[CatalogEntry] | None = None) -> bool:
    """Whether this model's own sentences are shown (``ChatModelDescription.writes``): as its entry in
    ``catalog`` says (the embedded SmolLM2-135M's do not: issue 69); a model the catalog does not list
    was chosen by the user, and writes."""
    entry = _entry(cfg, file_name, catalog)
    return entry is None or entry.writes


def _entry(cfg: ChatModelConfig, file_name: str, catalog: list[CatalogEntry] | None) -> CatalogEntry | None:
    """The catalog's entry of this model, found by its GGUF file name (``chat.hf_file`` for a hub model)."""
    entries = load_catalog() if catalog is None else catalog
    return entry_for_file(entries, cfg.hf_file if cfg.hf_repo and not cfg.path else file_name)


class LlamaChatModel:
    """A ``ChatModel`` backed by llama.cpp. ``cfg.path`` → ``cfg.hf_repo`` → the embedded SmolLM2."""

    def __init__(self, cfg: ChatModelConfig) -> None:
        self._cfg = cfg
        self._lock = threading.Lock()
        self._process: LlamaProcess | None = None
        self._closed = False
        self._loaded: dict[str, Any] = {}  # what the worker said of the model when it loaded it
        self._shows_writing: bool | None = None  # its written answers are shown (``writes_answers``)

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
            self._worker()

    def describe(self) -> ChatModelDescription:
        """Loads the model the first time; after that it waits for no call in progress."""
        loaded = self._loaded  # replaced whole when a worker loads, never emptied
        if not loaded:
            with self._lock:
                self._worker()
                loaded = self._loaded
        parameters = loaded.get("parameters")
        return ChatModelDescription(
            self.model_id,
            self._cfg.n_ctx,
            judges=isinstance(parameters, int) and parameters >= JUDGE_MIN_PARAMETERS,
            parameters=parameters if isinstance(parameters, int) else None,
            prompt_tokens_per_s=loaded.get("prompt_tokens_per_s"),
            chat_template=str(loaded.get("chat_template", "")),
            writes=self._writes(),
        )

    def _writes(self) -> bool:
        """``writes_answers`` for this model, read from the catalog once."""
        if self._shows_writing is None:
            self._shows_writing = writes_answers(self._cfg, Path(resolve_chat(self._cfg).location).name)
        return self._shows_writing

    def close(self) -> None:
        """Stop the worker process (a later call starts a new one)."""
        with self._lock:
            self._closed = True
            self._stop_worker()

    def _stop_worker(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.stop()

    # -- the worker -------------------------------------------------------------------------------

    def _load_params(self) -> dict[str, Any]:
        cfg = self._cfg
        params = load_params(cfg)
        origin = resolve_chat(cfg)
        params["prompt_lookup_tokens"] = prompt_lookup_tokens(cfg, Path(origin.location).name)
        if origin.network:
            reason = hub_unreachable_reason()
            if reason is not None:
                raise ModelUnavailableError(
                    f"The chat model {cfg.hf_repo} ({cfg.hf_file or '*.gguf'}) must be downloaded, but the "
                    f"Hugging Face hub cannot be reached ({reason}): connect to the internet once, or "
                    "download the GGUF yourself and set chat.path to it."
                )
            params["hf_repo"], params["hf_file"] = cfg.hf_repo, cfg.hf_file or "*.gguf"
        else:
            params["path"] = origin.location
        return params

    def _load_error(self, params: dict[str, Any], why: str) -> ModelError:
        if "hf_repo" in params:
            return ModelUnavailableError(
                f"Could not download and load the chat model {params['hf_repo']} ({params['hf_file']}) "
                f"from the Hugging Face hub: {why}. Check chat.hf_repo and chat.hf_file, or set chat.path "
                "to a local GGUF file."
            )
        return ModelError(
            f"Could not load the chat model {params['path']}: llama.cpp cannot read it as a GGUF model "
            f"(is the file complete, and a GGUF rather than another format?). {why}"
        )

    def _worker(self) -> LlamaProcess:
        """The running, loaded worker; call with the lock held."""
        if self._process is not None and self._process.alive():
            return self._process
        self._stop_worker()
        params = self._load_params()
        try:
            process, frame = loaded_process(params, LOAD_TIMEOUT_S)
        except WorkerGone as err:
            raise self._load_error(params, f"the loader stopped: {err}") from err
        except TimeoutError as err:
            raise self._load_error(params, f"loading took over {LOAD_TIMEOUT_S:g} s") from err
        except LoadFailed as err:
            raise self._load_error(params, str(err)) from err
        self._process = process
        self._closed = False
        self._loaded = {
            k: frame[k] for k in ("parameters", "prompt_tokens_per_s", "chat_template") if k in frame
        }
        return process

    def _crashed(self, reason: str) -> ModelCrashedError:
        """Forget the dead worker, start a new one in the background, and say what happened."""
        self._stop_worker()
        log.error("the chat model's worker process stopped: %s", reason)
        threading.Thread(target=self._restart, name="kimas-llama-restart", daemon=True).start()
        return ModelCrashedError(f"The chat model stopped ({reason}); restarting it. Ask again in a moment.")

    def _restart(self) -> None:
        with self._lock:
            if self._closed or self._process is not None:
                return
            try:
                self._worker()
            except ModelError as err:
                log.error("restarting the chat model failed: %s", err)

    def _run(self, op: str, fields: dict[str, Any], cancel: CancelToken | None) -> dict[str, Any]:
        """Send one request and wait for its final frame; call with the lock held."""
        if cancel is not None:
            cancel.raise_if_cancelled()
        process = self._worker()
        try:
            request = process.send(op, **fields)
        except WorkerGone as err:
            raise self._crashed(str(err)) from err
        forget = cancel.on_cancel(lambda: process.cancel(request)) if cancel is not None else None
        try:
            return self._final_frame(process, request, cancel)
        finally:
            if forget is not None:
                forget()

    def _final_frame(self, process: LlamaProcess, request: int, cancel: CancelToken | None) -> dict[str, Any]:
        cancelled_at: float | None = None
        while True:
            try:
                frame = process.next_frame(request, 0.25)
            except WorkerGone as err:
                raise self._crashed(str(err)) from err
            except TimeoutError:
                if cancel is not None and cancel.cancelled:
                    cancelled_at = cancelled_at or time.monotonic()
                    if time.monotonic() - cancelled_at > CANCEL_GRACE_S:
                        self._stop_worker()  # stuck: a fresh worker is cheaper than waiting
                        raise Cancelled("stopped") from None
                continue
            kind = frame["t"]
            if kind == "ok":
                return frame
            if kind == "cancelled":
                raise Cancelled("stopped")
            raise ModelError(f"The chat model {self.model_id} failed: {frame.get('error', '')}")

    def _abandon(self, process: LlamaProcess, request: int) -> None:
        """Stop ``request`` and wait until the worker is idle again (or replace it)."""
        process.cancel(request)
        deadline = time.monotonic() + CANCEL_GRACE_S
        while time.monotonic() < deadline:
            try:
                if process.next_frame(request, 0.25)["t"] != "delta":
                    return
            except WorkerGone:
                self._stop_worker()
                return
            except TimeoutError:
                continue
        self._stop_worker()

    # -- ChatModel --------------------------------------------------------------------------------

    def _chat_fields(
        self, messages: Sequence[Message], max_tokens: int, temperature: float
    ) -> dict[str, Any]:
        return {
            "messages": chat_messages(messages),
            "max_tokens": max_tokens,
            "temperature": temperature,
            "seed": self._cfg.seed,
        }

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        json_schema: Mapping[str, Any] | None = None,
        cancel: CancelToken | None = None,
    ) -> str:
        fields = self._chat_fields(messages, max_tokens, temperature)
        fields["schema"] = dict(json_schema) if json_schema is not None else None
        with self._lock:
            frame = self._run("chat", fields, cancel)
        return str(frame.get("text") or "")

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        cancel: CancelToken | None = None,
    ) -> Generator[str, None, None]:
        """Text deltas, token by token. Holds the model's lock while iterated; closing the iterator early
        stops the generation and releases the model."""
        if cancel is not None:
            cancel.raise_if_cancelled()
        fields = {**self._chat_fields(messages, max_tokens, temperature), "stream": True}
        with self._lock:
            process = self._worker()
            try:
                request = process.send("chat", **fields)
            except WorkerGone as err:
                raise self._crashed(str(err)) from err
            forget = cancel.on_cancel(lambda: process.cancel(request)) if cancel is not None else None
            finished = False
            try:
                while True:
                    try:
                        frame = process.next_frame(request, None)
                    except WorkerGone as err:
                        finished = True
                        raise self._crashed(str(err)) from err
                    kind = frame["t"]
                    if kind == "delta":
                        yield str(frame["text"])
                        continue
                    finished = True
                    if kind == "ok":
                        return
                    if kind == "cancelled":
                        raise Cancelled("stopped")
                    raise ModelError(f"The chat model {self.model_id} failed: {frame.get('error', '')}")
            finally:
                if forget is not None:
                    forget()
                if not finished and self._process is process:
                    self._abandon(process, request)

    def count_tokens(self, text: str) -> int:
        with self._lock:
            return int(self._run("count", {"text": text}, None)["n"])

    def clear_cache(self) -> None:
        """Forget every cached prompt state (benchmarks use it so each run pays for its prompt)."""
        with self._lock:
            self._run("clear_cache", {}, None)

    def stats(self) -> dict[str, int]:
        """The worker's prompt cache (states, bytes, capacity) and resident memory."""
        with self._lock:
            frame = self._run("stats", {}, None)
        return {k: int(v) for k, v in frame.items() if k not in ("id", "t")}

    def worker_pid(self) -> int | None:
        """The worker process id, while one runs (tests and benchmarks watch or signal it)."""
        process = self._process
        return process.pid if process is not None and process.alive() else None
