"""``LlamaReader``: a reader run by llama.cpp, for a GGUF model that answers "yes" or "no" to a question and a
document: Qwen3-Reranker (Apache-2.0, 100+ languages; the catalog's ``qwen3-reranker-0.6b``).

Each (question, text) pair is written in Qwen3-Reranker's own prompt (ChatML: its system sentence, then
``<Instruct>: … <Query>: Q <Document>: T`` as the user, then the assistant's empty thinking block), and the
probability that the text answers is the softmax of the logits of "yes" and "no" at the last position:
p(yes). The user part is cut to ``max_tokens`` tokens (the document's end goes first). A question's prompts
share everything up to the document, which llama.cpp evaluates once for all of its texts.

It runs in a worker process of its own, started from the chat model's worker script
(``local_models/llama/worker.py``, its ``score`` request) and loaded with the chat model's parameters
(``llama.chat.load_params``; the worker keeps llama.cpp off AMX where that crashes), so a native crash or an
out-of-memory kill ends only the worker: the reading then raises
``ModelCrashedError`` with how it ended, the answer is read without the reader (``kimas_desktop.optional``),
and the next reading starts a new worker. A model that does not load is not tried again: each reading
raises that ``ModelUnavailableError`` until the reader is built again (another ``[reader] model``).

What the GGUF needs: the causal LM head (the logits of the whole vocabulary), "yes" and "no" as single
tokens, and ChatML's special tokens. llama.cpp's converter, making a reranker for ``--rerank``, writes a
two-row classifier in place of the head but keeps the word embeddings, which a model that ties them (the
0.6B) uses as its head; a 4B or 8B converted that way loads, but its "yes" and "no" logits mean nothing.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kimas_desktop.config import ChatModelConfig
from kimas_desktop.errors import ModelCrashedError, ModelError, ModelUnavailableError
from local_models.llama.chat import LOAD_TIMEOUT_S, load_params
from local_models.llama.process import LlamaProcess, LoadFailed, WorkerGone, loaded_process

__all__ = ["AFTER", "BEFORE", "INSTRUCT", "LlamaReader"]

log = logging.getLogger(__name__)

SYSTEM = (
    "Judge whether the Document meets the requirements based on the Query and the Instruct provided. "
    'Note that the answer can only be "yes" or "no".'
)
INSTRUCT = "Given a question, judge whether the document answers it"
BEFORE = f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n"
AFTER = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
MAX_TOKENS = 512  # the user part: instruction, question and document
_TEMPLATE_TOKENS = 128  # the system sentence and the ChatML around the user part, with room to spare
READ_S, READ_S_PER_TEXT = 60.0, 30.0  # a reading that takes longer has hung: its worker is stopped


class LlamaReader:
    """A ``Reader`` over a GGUF file; one reading at a time (one llama.cpp model is not thread-safe)."""

    def __init__(self, path: Path, *, name: str = "", max_tokens: int = MAX_TOKENS, threads: int = 0) -> None:
        """Checks that the file is there; the worker starts and loads it on ``warm_up`` or the first
        reading."""
        if not path.is_file():
            raise ModelUnavailableError(f"The reader's GGUF file is missing: {path} is not a file.")
        self._path = path
        self.model_id = f"llama-reader/{name or path.name}"
        self.size_mb = round(path.stat().st_size / 1e6, 1)
        self._max_tokens = max_tokens
        n_ctx = max(max_tokens + _TEMPLATE_TOKENS, 512)
        self._cfg = ChatModelConfig(path=str(path), n_ctx=n_ctx, n_threads=threads, prompt_cache_mb=0)
        self._lock = threading.Lock()
        self._process: LlamaProcess | None = None
        self._failed: ModelError | None = None  # why the model did not load: not tried again

    def warm_up(self) -> None:
        with self._lock:
            self._worker()

    def read(self, question: str, texts: Sequence[str]) -> list[float]:
        """The probability that each text answers the question, in the texts' order."""
        if not texts:
            return []
        shared = f"<Instruct>: {INSTRUCT}\n<Query>: {question}\n<Document>:"
        fields = {
            "before": BEFORE,
            "shared": shared,
            "middles": [f"{shared} {t}" for t in texts],
            "after": AFTER,
            "budget": self._max_tokens,
            "yes": "yes",
            "no": "no",
        }
        with self._lock:
            odds = self._score(fields, READ_S + READ_S_PER_TEXT * len(texts))
        return [1.0 / (1.0 + math.exp(-min(max(v, -40.0), 40.0))) for v in odds]

    def close(self) -> None:
        """Stop the worker process (a later reading starts a new one)."""
        with self._lock:
            self._stop()

    def worker_pid(self) -> int | None:
        """The worker's process id while one runs (tests signal it)."""
        process = self._process
        return process.pid if process is not None and process.alive() else None

    def _stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.stop()

    def _worker(self) -> LlamaProcess:
        """The running worker with the model loaded; call with the lock held."""
        if self._failed is not None:
            raise self._failed
        if self._process is not None and self._process.alive():
            return self._process
        self._stop()
        params = {**load_params(self._cfg), "path": str(self._path)}
        try:
            self._process, _ = loaded_process(params, LOAD_TIMEOUT_S)
        except (WorkerGone, TimeoutError, LoadFailed) as err:
            why = str(err) or f"loading took over {LOAD_TIMEOUT_S:g} s"
            self._failed = ModelUnavailableError(
                f"Could not load the reader {self._path}: llama.cpp cannot read it as a GGUF model ({why}). "
                "Answers are read without it; choose another reader in [reader] model."
            )
            raise self._failed from err
        return self._process

    def _score(self, fields: dict[str, Any], timeout_s: float) -> list[float]:
        """The worker's yes/no odds of each text; call with the lock held."""
        process = self._worker()
        try:
            frame = process.next_frame(process.send("score", **fields), timeout_s)
        except WorkerGone as err:
            self._stop()
            log.error("the reader's worker process stopped: %s", err)
            raise ModelCrashedError(
                f"The reader {self.model_id} stopped ({err}); this answer is read without it, and the next "
                "reading starts it again."
            ) from err
        except TimeoutError:
            self._stop()
            raise ModelError(
                f"The reader {self.model_id} took over {timeout_s:g} s and was stopped."
            ) from None
        if frame["t"] != "ok":
            raise ModelError(f"The reader {self.model_id} failed: {frame.get('error', '')}")
        return [float(v) for v in frame["odds"]]
