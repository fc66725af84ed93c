"""``FastEmbedEmbedder``: sentence embeddings with fastembed (ONNX Runtime), loaded lazily.

Three sources, decided by ``resolve_embedding``: the embedded all-MiniLM-L6-v2 and a user's local
ONNX directory are registered with ``TextEmbedding.add_custom_model`` and loaded from their directory
(``specific_model_path``); a fastembed model name loads from the cache (offline) or downloads.

Texts are sorted by length before batching and put back in order afterwards: a batch is padded to its
longest text, so grouping similar lengths is the biggest speed lever (MODELS.md).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kimas_desktop.config import EmbeddingModelConfig
from kimas_desktop.errors import ModelError, ModelUnavailableError
from kimas_desktop.protocols import Vector
from kimas_desktop.text.language import written_in_latin
from local_models.catalog.catalog import english_only
from local_models.catalog.hub import fastembed_description, fastembed_snapshot, hub_unreachable_reason
from local_models.embedders.bert_onnx import OUTPUT_NAME
from local_models.embedders.e5_embedded import (
    E5_DIM,
    E5_MODEL_ID,
    E5_NAME,
    E5_PASSAGE_PREFIX,
    E5_QUERY_PREFIX,
    e5_center,
)
from local_models.embedders.embedded import (
    MINILM_DIM,
    MINILM_INT8_MODEL_ID,
    MINILM_MODEL_ID,
    MINILM_OUTPUT,
    minilm_model_id,
)
from local_models.embedders.shared_tokenizer import share_tokenizer
from local_models.resolve import ModelOrigin, onnx_model_file, resolve_embedding

__all__ = ["FastEmbedEmbedder"]

# fastembed keeps custom models in a process-wide class registry; this lock guards our additions to it.
_REGISTRY_LOCK = threading.Lock()


@dataclass(frozen=True)
class _CustomModel:
    """What ``TextEmbedding.add_custom_model`` needs to know about an ONNX model directory."""

    registry_name: str
    model_file: str
    dim: int
    cls_pooling: bool
    output_name: str | None


def _custom_model(origin: ModelOrigin) -> _CustomModel:
    directory = Path(origin.location)
    model_file = onnx_model_file(directory) or "model.onnx"
    if origin.name in (MINILM_MODEL_ID, MINILM_INT8_MODEL_ID):
        return _CustomModel(origin.name, model_file, MINILM_DIM, False, MINILM_OUTPUT)
    if origin.name == E5_MODEL_ID:
        return _CustomModel(origin.name, model_file, E5_DIM, False, OUTPUT_NAME)
    # A user's directory: its token-embedding output, mean-pooled unless its sentence-transformers
    # pooling config says CLS.
    dim = _config_dim(directory)
    pooling_file = directory / "1_Pooling" / "config.json"
    cls_pooling = pooling_file.is_file() and bool(
        json.loads(pooling_file.read_text("utf-8")).get("pooling_mode_cls_token")
    )
    digest = hashlib.sha256(str(directory.resolve()).encode("utf-8")).hexdigest()[:10]
    output = _token_output(directory / model_file, dim)
    return _CustomModel(f"kimas/{directory.name}-{digest}", model_file, dim, cls_pooling, output)


def _token_output(model_path: Path, dim: int) -> str | None:
    """The output holding token embeddings [batch, seq, dim], else a pooled one [batch, dim].

    Exports differ in output order and names (this project's embedded ONNX lists a 2-D ``output``
    first), so the shapes decide. Costs one extra ONNX Runtime session, only for a user's directory.
    """
    import onnxruntime

    try:
        outputs = onnxruntime.InferenceSession(
            str(model_path), providers=["CPUExecutionProvider"]
        ).get_outputs()
    except Exception as err:  # onnxruntime raises its own exception types
        raise ModelError(f"ONNX Runtime cannot read {model_path}: {err}") from err
    ranked = [o for o in outputs if len(o.shape) == 3 and o.shape[-1] == dim]
    ranked += [o for o in outputs if len(o.shape) == 2 and o.shape[-1] == dim]
    return ranked[0].name if ranked else None


def _config_dim(directory: Path) -> int:
    try:
        dim = json.loads((directory / "config.json").read_text("utf-8")).get("hidden_size")
    except (OSError, ValueError) as err:
        raise ModelUnavailableError(f"Cannot read {directory / 'config.json'}: {err}") from err
    if not isinstance(dim, int) or dim <= 0:
        raise ModelUnavailableError(
            f"{directory / 'config.json'} has no 'hidden_size': cannot tell the embedding dimension."
        )
    return dim


def _register(model: _CustomModel) -> None:
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    with _REGISTRY_LOCK:
        known = {m["model"].lower() for m in TextEmbedding.list_supported_models()}
        if model.registry_name.lower() in known:
            return
        TextEmbedding.add_custom_model(
            model=model.registry_name,
            pooling=PoolingType.CLS if model.cls_pooling else PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),  # never fetched
            dim=model.dim,
            model_file=model.model_file,
            output_name=model.output_name,
        )


def _unit(rows: Any) -> Vector:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.asarray(rows / np.where(norms > 0, norms, 1.0), dtype=np.float32)


class FastEmbedEmbedder:
    """An ``Embedder`` over fastembed. ``embed_query``/``embed_passages`` return unit float32 rows."""

    def __init__(self, cfg: EmbeddingModelConfig, cache_dir: Path, *, center: bool = True) -> None:
        self._cfg = cfg
        self._cache_dir = Path(cache_dir)
        self._lock = threading.Lock()
        self._model: Any = None
        self._directory: Path | None = None
        self._dim: int | None = None
        self._counter: Any = None  # a ``share_tokenizer`` copy of the loaded model's tokenizer
        self._english_only = english_only(cfg)
        # multilingual-e5 was trained with these before its texts (an empty prefix for other models)
        self._e5 = not cfg.path and cfg.name.lower() == E5_NAME
        self._prefixes = (E5_QUERY_PREFIX, E5_PASSAGE_PREFIX) if self._e5 else ("", "")
        # e5's cosines crowd into 0.75-0.86: its mean vector is subtracted (``e5_center``), which puts them on
        # the scale the answer policy was set on; ``center=False`` only to measure that mean.
        self._center = e5_center() if self._e5 and center else None

    @property
    def model_id(self) -> str:
        if self._cfg.path:
            return f"local/{Path(self._cfg.path).expanduser().name}"
        if self._e5:
            return E5_MODEL_ID
        return self._cfg.name or minilm_model_id(self._cfg.precision)

    @property
    def dim(self) -> int:
        if self._dim is None:
            if self._cfg.path:
                self._dim = _config_dim(Path(self._cfg.path).expanduser())
            elif self._e5:
                self._dim = E5_DIM
            elif self._cfg.name:
                from fastembed import TextEmbedding

                description = fastembed_description(TextEmbedding.list_supported_models(), self._cfg.name)
                if description is None:
                    raise ModelUnavailableError(
                        f"fastembed does not know the embedding model {self._cfg.name!r}"
                    )
                self._dim = int(description["dim"])
            else:
                self._dim = MINILM_DIM
        return self._dim

    @property
    def max_tokens(self) -> int:
        return self._cfg.max_tokens

    def warm_up(self) -> None:
        with self._lock:
            self._loaded()

    def close(self) -> None:
        """Drop the loaded ONNX session (a batch in flight finishes first); a later call loads it again."""
        with self._lock:
            self._model = None
            self._counter = None  # it shares the dropped model's vocabulary

    def _loaded(self) -> Any:
        """The fastembed model; call with the lock held."""
        if self._model is None:
            origin = resolve_embedding(self._cfg, self._cache_dir)
            self._model = self._load_custom(origin) if origin.kind == "onnx-dir" else self._load_named(origin)
        return self._model

    def _load_custom(self, origin: ModelOrigin) -> Any:
        from fastembed import TextEmbedding

        model = _custom_model(origin)
        _register(model)
        try:
            loaded = TextEmbedding(
                model.registry_name, cache_dir=str(self._cache_dir), specific_model_path=origin.location
            )
        except Exception as err:  # onnxruntime and tokenizer errors have no common base
            raise ModelError(
                f"Could not load the embedding model in {origin.location}: {err}. Check that its model.onnx "
                "and tokenizer files are complete and belong together."
            ) from err
        self._directory = Path(origin.location)
        return loaded

    def _load_named(self, origin: ModelOrigin) -> Any:
        from fastembed import TextEmbedding

        name = origin.name
        fix = (
            "connect to the internet once so it can be downloaded, or set embedding.path to a local "
            "directory holding model.onnx and its tokenizer files"
        )
        if origin.network:
            reason = hub_unreachable_reason()
            if reason is not None:
                raise ModelUnavailableError(
                    f"The embedding model {name} is not in the model cache ({self._cache_dir}) and the "
                    f"Hugging Face hub cannot be reached ({reason}): {fix}."
                )
        try:
            loaded = TextEmbedding(name, cache_dir=str(self._cache_dir), local_files_only=not origin.network)
        except Exception as err:  # fastembed raises ValueError, the hub its own errors
            raise ModelUnavailableError(
                f"Could not load the embedding model {name}: {err}. Or {fix}."
            ) from err
        description = fastembed_description(TextEmbedding.list_supported_models(), name)
        self._directory = fastembed_snapshot(description or {}, self._cache_dir)
        return loaded

    def _embed(self, texts: Sequence[str], *, query: bool) -> Vector:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        prefix = self._prefixes[0 if query else 1]
        ordered = [prefix + texts[i] for i in order]
        # The lock is taken per batch, not per call: a question's embedding (or a small sync) waits for
        # one batch of a long indexing call, not for all of it.
        size = self._cfg.batch_size
        rows: list[Any] = []
        for start in range(0, len(ordered), size):
            with self._lock:
                model = self._loaded()
                embed = model.query_embed if query else model.passage_embed
                try:
                    rows += embed(ordered[start : start + size], batch_size=size)
                except Exception as err:
                    raise ModelError(f"The embedding model {self.model_id} failed: {err}") from err
        matrix = np.asarray(rows, dtype=np.float32)
        out = np.empty_like(matrix)
        out[np.asarray(order)] = matrix
        return _unit(_unit(out) - self._center if self._center is not None else out)

    def embed_query(self, texts: Sequence[str]) -> Vector:
        return self._embed(texts, query=True)

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        return self._embed(texts, query=False)

    def reads(self, text: str) -> bool:
        """An English-only model (the catalog says so: the embedded default, BGE English...) reads text
        written in Latin letters; a model of the user's own folder, or a multilingual one, reads any."""
        return not self._english_only or written_in_latin(text)

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` without special tokens and without truncation."""
        return len(self._counter_loaded().encode(text, add_special_tokens=False).ids)

    def shared_tokenizer(self) -> Any:
        """A ``tokenizers.Tokenizer`` on the loaded model's vocabulary, not a copy of it (``share_tokenizer``:
        283 MB saved for e5), without truncation or padding, its own to set: the embedded reader's. Loads
        the model when it is not loaded."""
        with self._lock:
            return share_tokenizer(self._tokenizer_of(self._loaded()))

    def _counter_loaded(self) -> Any:
        counter = self._counter
        if counter is not None:  # loaded: no lock, so chunking does not wait for an embedding batch
            return counter
        with self._lock:
            if self._counter is None:
                self._counter = share_tokenizer(self._tokenizer_of(self._loaded()))
            return self._counter

    def _tokenizer_of(self, model: Any) -> Any:
        """The loaded model's own tokenizer (fastembed's ``model.tokenizer``), else its tokenizer.json read."""
        tokenizer = getattr(getattr(model, "model", None), "tokenizer", None)
        if tokenizer is not None:
            return tokenizer
        if self._directory is None or not (self._directory / "tokenizer.json").is_file():
            raise ModelError(f"The tokenizer of the embedding model {self.model_id} was not found.")
        from tokenizers import Tokenizer

        return Tokenizer.from_file(str(self._directory / "tokenizer.json"))
