"""The chat model's worker process: ``python local_models/llama/worker.py CANCEL_FILE``, run by ``LlamaChatModel``.

llama.cpp is native code: a bad CPU code path (the AMX segfault), an out-of-memory kill or a corrupt GGUF
can end the process it runs in. So it runs here, and the app only sees a pipe close. It runs as a plain
script (not ``-m local_models...``) so it imports llama_cpp and numpy and nothing of the app.

Requests arrive on stdin, one JSON line each, with an ``id``:
``{"op": "info"}`` · ``{"op": "load", "params": {...}}`` · ``{"op": "chat", "messages": [...], ...}`` ·
``{"op": "count", "text": ...}`` · ``{"op": "score", ...}`` (a reader's yes/no odds: ``Worker.score``) ·
``{"op": "clear_cache"}`` · ``{"op": "stats"}``.
Replies go to stdout as frames (a 4-byte big-endian length, then JSON), each carrying the request's
``id``: ``{"t": "delta", "text": ...}`` while a chat streams, then exactly one final frame per request:
``ok`` (with its fields), ``cancelled`` or ``error``. Anything a library prints goes to stderr.

Prompt-lookup decoding (``params["prompt_lookup_tokens"]`` > 0): llama-cpp-python's
``LlamaPromptLookupDecoding`` drafts the next tokens by finding the last two tokens earlier in the prompt
and copying what followed; one decode step checks the whole draft, and greedy output stays the same.
The library turns on ``logits_all`` for it, which would compute the vocabulary's logits for every prompt
token and keep an n_ctx × n_vocab float array (0.8 GB for SmolLM2 at n_ctx 4096, 2.5 GB for Qwen), so
``_decode`` asks for all positions' logits only in the short draft-checking steps and keeps no copy.

Cancellation: the parent writes the id of the request to stop into the 8-byte ``CANCEL_FILE``, which both
processes map. It is checked before every token is evaluated, and while a prompt is being evaluated
llama.cpp's abort callback checks it after every compute step, so a stop lands within milliseconds.
"""

from __future__ import annotations

import contextlib
import ctypes
import inspect
import json
import mmap
import os
import signal
import struct
import sys
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, BinaryIO

import llama_cpp
import numpy as np
import psutil
from llama_cpp.llama_cache import BaseLlamaCache

from ipc.privacy import switch_off_telemetry


def _send(out: BinaryIO, message: dict[str, Any]) -> None:
    payload = json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")
    out.write(struct.pack(">I", len(payload)) + payload)
    out.flush()


# About 100 tokens of plain prose: long enough to time prompt processing, short enough to cost ~0.5 s.
PROMPT_SPEED_TEXT = " ".join(
    ["The sources describe the river, the city on its banks, and the people who built its bridges."] * 6
)


def system_info() -> str:
    return bytes(llama_cpp.llama_print_system_info()).decode("utf-8", "replace")


def cpu_features(info: str) -> dict[str, bool]:
    """``{"AVX2": True, "AMX_INT8": False, ...}`` from llama.cpp's system info line."""
    features: dict[str, bool] = {}
    for part in info.replace("|", "\n").splitlines():
        name, sep, value = part.partition("=")
        name = name.rsplit(":", 1)[-1].strip()  # the first one follows the backend's name ("CPU : SSE3")
        if sep and name.isupper() and value.strip() in ("0", "1"):
            features[name] = value.strip() == "1"
    return features


class PromptCache(BaseLlamaCache):
    """llama-cpp-python's RAM cache, but its size is what the states really hold.

    ``LlamaRAMCache`` counts only llama.cpp's state bytes, while each ``LlamaState`` also carries a copy of
    the logits array (up to n_batch × n_vocab floats: 100 MB for SmolLM2, 300 MB for Qwen's vocabulary).
    Sampling happens inside llama.cpp, so without ``logits_all`` those rows are never read back: a state
    keeps one row (the shape ``load_state`` broadcasts from), and the capacity counts every byte kept.
    """

    def __init__(self, capacity_bytes: int) -> None:
        super().__init__(capacity_bytes)
        self.states: OrderedDict[tuple[int, ...], llama_cpp.LlamaState] = OrderedDict()

    @staticmethod
    def footprint(state: llama_cpp.LlamaState) -> int:
        return int(state.llama_state_size) + int(state.scores.nbytes) + int(state.input_ids.nbytes)

    @property
    def cache_size(self) -> int:
        return sum(self.footprint(s) for s in self.states.values())

    def _longest(self, key: Sequence[int]) -> tuple[int, ...] | None:
        best, best_len = None, 0
        for k in self.states:
            n = llama_cpp.Llama.longest_token_prefix(k, key)
            if n > best_len:
                best, best_len = k, n
        return best

    def __getitem__(self, key: Sequence[int]) -> llama_cpp.LlamaState:
        found = self._longest(tuple(key))
        if found is None:
            raise KeyError("no cached prefix")
        self.states.move_to_end(found)
        return self.states[found]

    def __contains__(self, key: Sequence[int]) -> bool:
        return self._longest(tuple(key)) is not None

    def __setitem__(self, key: Sequence[int], value: llama_cpp.LlamaState) -> None:
        if value.scores.ndim == 2 and value.scores.shape[0] > 1:
            value.scores = np.ascontiguousarray(value.scores[-1:])
        key = tuple(key)
        self.states.pop(key, None)
        if self.capacity_bytes <= 0 or self.footprint(value) > self.capacity_bytes:
            return
        self.states[key] = value
        while self.cache_size > self.capacity_bytes:
            self.states.popitem(last=False)


class Cancelled(Exception):
    pass


class Worker:
    def __init__(self, out: BinaryIO, cancel_map: mmap.mmap) -> None:
        self.out = out
        self.cancel_map = cancel_map
        self.llama: Any = None
        self.cache: PromptCache | None = None
        self.request = -1
        self.amx_guard = False
        self.draft_tokens = 0
        self.head: list[int] = []  # the prompt head whose KV the last ``score`` left (evaluated whole)
        address = ctypes.addressof(ctypes.c_char.from_buffer(cancel_map))
        self._cancel_word = ctypes.c_int64.from_address(address)
        # Checked by llama.cpp after every compute step of a prompt batch (not during one-token steps,
        # where the per-token check below is enough and a Python callback would cost ~5% of the speed).
        self._abort = llama_cpp.ggml_abort_callback(lambda _data: self.cancelled())

    def cancelled(self) -> bool:
        return bool(self._cancel_word.value == self.request)

    def reply(self, **fields: Any) -> None:
        _send(self.out, {"id": self.request, **fields})

    # -- requests ---------------------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        info = system_info()
        return {
            "system_info": info,
            "features": cpu_features(info),
            "amx_guard": self.amx_guard,
            "prompt_lookup_tokens": self.draft_tokens,
            "llama_cpp": getattr(llama_cpp, "__version__", "?"),
            "pid": os.getpid(),
        }

    def load(self, params: dict[str, Any]) -> dict[str, Any]:
        features = cpu_features(system_info())
        if features.get("AMX_INT8") or features.get("AMX_BF16"):
            # A llama.cpp built with AMX repacks weights for it, and that path crashes in decode
            # (ggml-org/llama.cpp#20824). The installer builds without AMX; this guards a llama-cpp-python
            # installed another way: no extra buffer types, so no AMX (and no CPU repacking).
            self._disable_extra_buffer_types()
            self.amx_guard = True
        kwargs = dict(params["kwargs"])
        if "flash_attn" in inspect.signature(llama_cpp.Llama.__init__).parameters:
            kwargs["flash_attn"] = True  # ~10% faster prompt processing on CPU
        self.draft_tokens = int(params.get("prompt_lookup_tokens") or 0)
        if self.draft_tokens:
            from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

            kwargs["draft_model"] = LlamaPromptLookupDecoding(num_pred_tokens=self.draft_tokens)
        started = time.perf_counter()
        if params.get("hf_repo"):
            llama = llama_cpp.Llama.from_pretrained(
                repo_id=params["hf_repo"], filename=params["hf_file"], **kwargs
            )
        else:
            llama = llama_cpp.Llama(model_path=params["path"], **kwargs)
        scores = getattr(llama, "scores", None)
        if isinstance(scores, np.ndarray) and scores.ndim == 2 and scores.shape[0] > 1 + self.draft_tokens:
            # Without logits_all llama.cpp samples from its own buffer and these n_batch × n_vocab floats
            # are never read (only row -1 is passed to stopping criteria); one row keeps that working.
            # With a draft, stopping criteria index the rows of the draft's positions (1 + draft).
            llama.scores = np.zeros((1 + self.draft_tokens, scores.shape[1]), dtype=np.single)
        self.cache = PromptCache(int(params["cache_bytes"]))
        llama.set_cache(self.cache)
        self.llama = llama
        load_s = round(time.perf_counter() - started, 3)
        return {"load_s": load_s, **self.describe(llama), **self.info()}

    @staticmethod
    def describe(llama: llama_cpp.Llama) -> dict[str, Any]:
        """What the model file says of itself (parameters, chat template), and its prompt speed on this
        machine, measured on one short prompt."""
        out: dict[str, Any] = {}
        with contextlib.suppress(Exception):
            out["parameters"] = int(llama_cpp.llama_model_n_params(llama.model))
        metadata = getattr(llama, "metadata", {}) or {}
        out["chat_template"] = "built-in" if "tokenizer.chat_template" in metadata else ""
        with contextlib.suppress(Exception):
            tokens = llama.tokenize(PROMPT_SPEED_TEXT.encode("utf-8"))
            llama.reset()
            started = time.perf_counter()
            llama.eval(tokens)
            out["prompt_tokens_per_s"] = round(len(tokens) / (time.perf_counter() - started), 1)
            llama.reset()
        return out

    @staticmethod
    def _disable_extra_buffer_types() -> None:
        default = llama_cpp.llama_cpp.llama_model_default_params

        def params() -> Any:
            p = default()
            p.use_extra_bufts = False
            return p

        llama_cpp.llama_cpp.llama_model_default_params = params

    def chat(self, request: dict[str, Any]) -> None:
        llama = self.llama
        kwargs: dict[str, Any] = {
            "messages": request["messages"],
            "max_tokens": request["max_tokens"],
            "temperature": request["temperature"],
            "seed": request["seed"],
        }
        if request.get("schema") is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": request["schema"]}
        original_eval = self._decode if self.draft_tokens else llama.eval

        def eval_with_abort(tokens: Sequence[int]) -> None:
            # Called with the prompt, then with each sampled token (and its draft): the per-token check
            # of a stop.
            if self.cancelled():
                raise Cancelled
            if len(tokens) <= 1 + self.draft_tokens:
                original_eval(tokens)
                return
            llama_cpp.llama_set_abort_callback(llama.ctx, self._abort, None)
            try:
                original_eval(tokens)
            except RuntimeError:
                if self.cancelled():
                    raise Cancelled from None
                raise
            finally:
                llama_cpp.llama_set_abort_callback(llama.ctx, llama_cpp.ggml_abort_callback(0), None)

        llama.eval = eval_with_abort
        parts: list[str] = []
        try:
            if request.get("stream"):
                for chunk in llama.create_chat_completion(stream=True, **kwargs):
                    delta = chunk["choices"][0]["delta"].get("content")
                    if delta:
                        parts.append(delta)
                        self.reply(t="delta", text=delta)
            else:
                response = llama.create_chat_completion(**kwargs)
                parts.append(str(response["choices"][0]["message"].get("content") or ""))
        except Cancelled:
            llama.reset()  # an aborted decode leaves the context's memory half-written
            self.reply(t="cancelled")
            return
        finally:
            del llama.eval
        if self.cancelled():
            llama.reset()
            self.reply(t="cancelled")
            return
        self.reply(t="ok", text="".join(parts))

    def _decode(self, tokens: Sequence[int]) -> None:
        """``Llama.eval`` (llama-cpp-python 0.3.36) for prompt-lookup decoding: logits of every position
        only for a sampled token and its draft (each position is sampled), of the last one for a prompt;
        no copy into ``Llama.scores`` (sampling reads llama.cpp's own buffer)."""
        llama = self.llama
        every = len(tokens) <= 1 + self.draft_tokens
        llama._ctx.kv_cache_seq_rm(-1, llama.n_tokens, -1)
        for i in range(0, len(tokens), llama.n_batch):
            batch = tokens[i : i + llama.n_batch]
            n_past = llama.n_tokens
            llama._batch.set_batch(batch=batch, n_past=n_past, logits_all=every)
            llama._ctx.decode(llama._batch)
            llama.input_ids[n_past : n_past + len(batch)] = batch
            llama.n_tokens += len(batch)
            llama._requires_eval = False

    def score(self, request: dict[str, Any]) -> list[float]:
        """For each of ``middles``: the logit of the token ``yes`` minus that of ``no`` after the prompt
        ``before + middle + after``. A middle is plain text (a document's "<|im_end|>" is no special token),
        cut to ``budget`` tokens. Every middle starts with ``shared`` (the question): ``before + shared`` is
        evaluated once from the start, then each prompt's rest from there in one go, so a pair's odds are
        the same whatever was read before it (llama.cpp's sums depend on how the tokens were batched)."""
        llama = self.llama
        yes, no = (self._one_token(request[k]) for k in ("yes", "no"))
        before = self._tokens(request["before"], special=True, bos=True)
        after = self._tokens(request["after"], special=True)
        shared = before + self._tokens(request["shared"])
        room = max(min(int(request["budget"]), llama.n_ctx() - len(before) - len(after)), 0)
        odds = []
        for middle in request["middles"]:
            tokens = before + self._tokens(middle)[:room] + after
            head = tokens[: min(llama.longest_token_prefix(shared, tokens), len(tokens) - 1)]
            if self.head != head:  # evaluated from the start, never from another prompt's prefix
                llama.n_tokens = 0
                llama.eval(head)
                self.head = head
            llama.n_tokens = len(head)
            llama.eval(tokens[len(head) :])
            logits = np.ctypeslib.as_array(llama._ctx.get_logits_ith(-1), shape=(llama.n_vocab(),))
            odds.append(float(logits[yes]) - float(logits[no]))
        return odds

    def _tokens(self, text: str, *, special: bool = False, bos: bool = False) -> list[int]:
        return list(self.llama.tokenize(text.encode("utf-8", "replace"), add_bos=bos, special=special))

    def _one_token(self, word: str) -> int:
        if len(tokens := self._tokens(word)) != 1:
            raise ValueError(f"the model has no single token for {word!r} ({len(tokens)} tokens)")
        return int(tokens[0])

    def handle(self, request: dict[str, Any]) -> None:
        self.request = int(request.get("id", -1))
        op = request.get("op")
        if op != "score":  # anything else may change the KV cache the head is kept in
            self.head = []
        if op == "info":
            self.reply(t="ok", **self.info())
        elif op == "load":
            self.reply(t="ok", **self.load(request["params"]))
        elif self.llama is None:
            self.reply(t="error", error="no model is loaded")
        elif op == "chat":
            self.chat(request)
        elif op == "count":
            tokens = self.llama.tokenize(request["text"].encode("utf-8"), add_bos=False, special=False)
            self.reply(t="ok", n=len(tokens))
        elif op == "score":
            self.reply(t="ok", odds=self.score(request))
        elif op == "clear_cache":
            self.llama.reset()
            assert self.cache is not None
            self.cache.states.clear()
            self.reply(t="ok")
        elif op == "stats":
            assert self.cache is not None
            self.reply(
                t="ok",
                cache_states=len(self.cache.states),
                cache_bytes=self.cache.cache_size,
                cache_capacity=self.cache.capacity_bytes,
                rss_bytes=_rss_bytes(),
                prompt_lookup_tokens=self.draft_tokens,
            )
        else:
            self.reply(t="error", error=f"unknown request {op!r}")


def _rss_bytes() -> int:
    return int(psutil.Process().memory_info().rss)


def main() -> None:
    switch_off_telemetry()  # inherited from the app already; here too for anything loaded from now on
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the app; it ends us by closing stdin
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt the frames
    with open(sys.argv[1], "r+b") as f:
        cancel_map = mmap.mmap(f.fileno(), 8)
    worker = Worker(out, cancel_map)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            worker.handle(request)
        except MemoryError:
            worker.reply(t="error", error="ran out of memory")
        except Exception as err:
            worker.reply(t="error", error=f"{type(err).__name__}: {err}"[:1000])
        with contextlib.suppress(Exception):
            if worker.llama is not None and worker.cancelled():
                worker.llama.reset()


if __name__ == "__main__":
    main()
