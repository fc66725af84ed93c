"""Where each configured model comes from, decided without loading a model or touching the network.

Order of precedence, first match wins:

- chat (``kind = "llama"``): ``path`` (a local GGUF) → ``hf_repo`` (download, only when configured) →
  the embedded SmolLM2-135M-Instruct. ``kind = "openai"``: the server at ``base_url``.
- embedding: ``backend = "openai"``: the server at ``base_url``. Otherwise ``path`` (a local directory with an ONNX model and tokenizer files) → ``name`` (a fastembed
  model, from its cache or downloaded; ``multilingual-e5-small`` is the embedded multilingual model) → the
  embedded all-MiniLM-L6-v2.
- reranker: ``backend = "http"``: the server at ``base_url``. Otherwise ``model`` (a fastembed cross-encoder) → the fallback scorer (embedding similarity blended
  with term overlap; see ``rerankers.EmbeddingReranker``).
- reader (``[reader] model``): a GGUF file's path → a catalog reader's name (installed by ``kimas models
  pull``) → the embedded reader trained by this project (``local_models/reader``).

A file installed by ``kimas models pull`` (it has a receipt) says so, with the URL it came from and
whether its SHA-256 matched the catalog's. Anything missing raises ``ModelUnavailableError`` with a sentence that says what to do about it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from kimas_desktop.config import ChatModelConfig, EmbeddingModelConfig, ReaderConfig, RerankConfig
from kimas_desktop.errors import ModelUnavailableError
from local_models.catalog.download import read_receipt
from local_models.catalog.hub import fastembed_description, fastembed_snapshot, hub_endpoint
from local_models.embedders.e5_embedded import E5_MODEL_ID, E5_NAME, E5_PACKAGE, materialize_e5
from local_models.embedders.embedded import materialize_minilm, minilm_model_id, smollm2_path

__all__ = [
    "FALLBACK_RERANKER",
    "ModelOrigin",
    "onnx_model_file",
    "resolve_chat",
    "resolve_embedding",
    "resolve_reader",
    "resolve_reranker",
]

Role = Literal["chat", "embedding", "reranker", "reader"]
Kind = Literal["llama", "openai", "http", "onnx-dir", "onnx", "fastembed", "cross-encoder", "fallback"]

FALLBACK_RERANKER = "fallback: embedding similarity + term overlap (single scorer)"
_LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
_ONNX_CANDIDATES = ("model.onnx", "onnx/model.onnx", "model_optimized.onnx")


@dataclass(frozen=True)
class ModelOrigin:
    """One resolved model: what it is, where its files are, and whether using it needs the network.

    ``location`` is a file or directory for local models, a URL for servers and hub downloads, and
    empty for the fallback reranker.
    """

    role: Role
    kind: Kind
    name: str
    location: str
    origin: str
    network: bool

    def describe(self) -> str:
        text = f"{self.name} ({self.origin})"
        if self.location:
            text += f" at {self.location}"
        return text + (" [uses the network]" if self.network else "")


def resolve_chat(cfg: ChatModelConfig) -> ModelOrigin:
    if cfg.kind == "openai":
        if not cfg.base_url:
            raise ModelUnavailableError(
                "chat.kind is 'openai' but chat.base_url is empty: set it to the server's "
                "OpenAI-compatible URL, for example http://127.0.0.1:8080/v1."
            )
        host = urlsplit(cfg.base_url).hostname or ""
        name = cfg.model or "server default model"
        origin = "OpenAI-compatible server"
        return ModelOrigin("chat", "openai", name, cfg.base_url, origin, host not in _LOCAL_HOSTS)
    if cfg.path:
        path = Path(cfg.path).expanduser()
        if not path.is_file():
            raise ModelUnavailableError(
                f"The chat model file {path} (chat.path) does not exist: point chat.path at a GGUF file, "
                "or leave it empty to use the embedded SmolLM2-135M-Instruct."
            )
        return ModelOrigin("chat", "llama", path.name, str(path), _pulled("local GGUF file", path), False)
    if cfg.hf_repo:
        name = f"{cfg.hf_repo}/{cfg.hf_file or '*.gguf'}"
        origin = "Hugging Face repo, downloaded when the model loads"
        return ModelOrigin("chat", "llama", name, f"{hub_endpoint()}/{cfg.hf_repo}", origin, True)
    path = smollm2_path()
    return ModelOrigin("chat", "llama", path.stem, str(path), "embedded default", False)


def onnx_model_file(directory: Path) -> str | None:
    """The ONNX file of a model directory, relative to it, or None."""
    for candidate in _ONNX_CANDIDATES:
        if (directory / candidate).is_file():
            return candidate
    return None


def _local_embedding(directory: Path) -> ModelOrigin:
    hint = "set embedding.path to a directory holding model.onnx, tokenizer.json, tokenizer_config.json "
    hint += "and config.json, or leave it empty to use the embedded all-MiniLM-L6-v2"
    if not directory.is_dir():
        raise ModelUnavailableError(f"The embedding model directory {directory} does not exist: {hint}.")
    missing = [
        n for n in ("tokenizer.json", "tokenizer_config.json", "config.json") if not (directory / n).is_file()
    ]
    if onnx_model_file(directory) is None:
        missing.insert(0, "model.onnx")
    if missing:
        raise ModelUnavailableError(
            f"The embedding model directory {directory} lacks {', '.join(missing)}: {hint}."
        )
    return ModelOrigin(
        "embedding", "onnx-dir", f"local/{directory.name}", str(directory), "local ONNX directory", False
    )


def _pulled(origin: str, path: Path) -> str:
    receipt = read_receipt(path)
    if receipt is None:
        return origin
    check = "SHA-256 verified" if receipt.verified else "SHA-256 recorded, no published hash to check"
    return f"{origin}, downloaded by kimas models pull from {receipt.url} ({check})"


def _server(role: Role, kind: Kind, base_url: str, name: str, what: str, setting: str) -> ModelOrigin:
    if not base_url:
        raise ModelUnavailableError(
            f"{setting.split('.')[0]}.backend is {kind!r} but {setting} is empty: set it to the {what}'s "
            "URL, for example http://127.0.0.1:8080/v1."
        )
    host = urlsplit(base_url).hostname or ""
    return ModelOrigin(role, kind, name or "server default model", base_url, what, host not in _LOCAL_HOSTS)


def resolve_embedding(cfg: EmbeddingModelConfig, cache_dir: Path) -> ModelOrigin:
    if cfg.backend == "openai":
        return _server(
            "embedding",
            "openai",
            cfg.base_url,
            cfg.model,
            "OpenAI-compatible embedding server",
            "embedding.base_url",
        )
    if cfg.path:
        return _local_embedding(Path(cfg.path).expanduser())
    if cfg.name.lower() == E5_NAME:
        directory = materialize_e5(cache_dir, cfg.max_tokens)
        origin = f"embedded multilingual model, weights from the {E5_PACKAGE} package, int8"
        return ModelOrigin("embedding", "onnx-dir", E5_MODEL_ID, str(directory), origin, False)
    if cfg.name:
        from fastembed import TextEmbedding

        description = fastembed_description(TextEmbedding.list_supported_models(), cfg.name)
        if description is None:
            raise ModelUnavailableError(
                f"fastembed does not know the embedding model {cfg.name!r} (embedding.name): use a name "
                "from fastembed's supported models, or set embedding.path to a local ONNX model directory."
            )
        return _fastembed_origin("embedding", "fastembed", description, cache_dir)
    directory = materialize_minilm(cache_dir, cfg.max_tokens, cfg.precision)
    name = minilm_model_id(cfg.precision)
    return ModelOrigin(
        "embedding", "onnx-dir", name, str(directory), f"embedded default, {cfg.precision}", False
    )


def resolve_reranker(cfg: RerankConfig, cache_dir: Path) -> ModelOrigin:
    if cfg.backend == "http":
        return _server("reranker", "http", cfg.base_url, cfg.model, "rerank server", "rerank.base_url")
    if not cfg.model:
        return ModelOrigin("reranker", "fallback", "embedding+term-overlap", "", FALLBACK_RERANKER, False)
    from fastembed.rerank.cross_encoder import TextCrossEncoder

    description = fastembed_description(TextCrossEncoder.list_supported_models(), cfg.model)
    if description is None:
        raise ModelUnavailableError(
            f"fastembed does not know the cross-encoder {cfg.model!r} (rerank.model): use one of its "
            "supported rerankers, e.g. Xenova/ms-marco-MiniLM-L-6-v2, or leave it empty for the fallback."
        )
    return _fastembed_origin("reranker", "cross-encoder", description, cache_dir)


def _fastembed_origin(role: Role, kind: Kind, description: dict[str, object], cache_dir: Path) -> ModelOrigin:
    name = str(description["model"])
    snapshot = fastembed_snapshot(description, cache_dir)
    if snapshot is not None:
        return ModelOrigin(role, kind, name, str(snapshot), _pulled("fastembed model cache", snapshot), False)
    sources = description.get("sources")
    repo = sources.get("hf", name) if isinstance(sources, dict) else name
    origin = f"not cached yet: downloaded from the Hugging Face hub into {cache_dir} when it loads"
    return ModelOrigin(role, kind, name, f"{hub_endpoint()}/{repo}", origin, True)


def resolve_reader(cfg: ReaderConfig, models_dir: Path) -> ModelOrigin:
    """The reader ``[reader] model`` names (kind ``llama``: a GGUF run by llama.cpp; ``onnx``: the embedded
    one). Raises ``ModelUnavailableError`` with what to do when its file is not there."""
    from local_models.catalog.catalog import installed_path, load_catalog

    name = cfg.model.strip()
    entry = next((e for e in load_catalog() if name and e.name.lower() == name.lower()), None)
    if entry is not None and entry.role != "reader":
        raise ModelUnavailableError(f"{entry.name} ([reader] model) is a {entry.role} model, not a reader.")
    if entry is not None and not entry.embedded:
        found = installed_path(entry, models_dir)
        if found is None:
            raise ModelUnavailableError(
                f"The reader {entry.name} ([reader] model) is not downloaded yet: Download it in Settings or "
                f"run 'kimas models pull {entry.name}' ({entry.size_mb} MB), or leave [reader] model empty."
            )
        return ModelOrigin("reader", "llama", entry.name, str(found), _pulled("catalog reader", found), False)
    if entry is None and name:
        return _reader_file(name)
    from local_models.reader.onnx_reader import READER_GRAPH

    if not READER_GRAPH.is_file():
        raise ModelUnavailableError(f"The embedded reader's weights ({READER_GRAPH.name}) are not installed.")
    origin = "embedded, trained by this project (local_models/reader/MODEL_CARD.md)"
    return ModelOrigin("reader", "onnx", "kimas-reader-e5-small", str(READER_GRAPH), origin, False)


def _reader_file(name: str) -> ModelOrigin:
    """A reader given by its GGUF file's path."""
    path = Path(name).expanduser()
    if not path.is_file():
        what = "file" if name.lower().endswith(".gguf") or "/" in name or "\\" in name else "name"
        raise ModelUnavailableError(
            f"The reader {what} {name} ([reader] model) is neither a reader of the catalog nor a GGUF file: "
            "name one of the catalog's readers (kimas models), give a .gguf file's path, or leave it empty "
            "for the embedded reader."
        )
    return ModelOrigin("reader", "llama", path.name, str(path), _pulled("local GGUF file", path), False)
