"""``LocalModel``: one model found on this computer, served by a local app or lying on disk as a GGUF file.

A served model is used through its server's OpenAI-compatible API (``base_url`` + ``model_id``); a file is
loaded in place by llama.cpp (``path``), never copied. ``choice()`` gives the config values that select it
(the same ``ModelChoice`` a catalog model gives, applied with ``Config.updated``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from kimas_desktop.errors import ModelUnavailableError
from local_models.catalog.catalog import RESERVED_RAM_MB
from local_models.catalog.install import ModelChoice

__all__ = ["KV_OVERHEAD_MB", "Kind", "LocalModel", "Source", "Where", "fits_ram", "ram_needed_mb"]

Kind = Literal["chat", "embedding"]
Where = Literal["server", "file"]
# What holds the model: the app serving it, or the app whose folder the file is in.
Source = Literal["ollama", "lm-studio", "llama.cpp", "jan", "vllm", "gpt4all", "openai-compatible"]
SOURCE_TITLES: dict[str, str] = {
    "ollama": "Ollama",
    "lm-studio": "LM Studio",
    "llama.cpp": "llama.cpp server",
    "jan": "Jan",
    "vllm": "vLLM",
    "gpt4all": "GPT4All",
    "openai-compatible": "OpenAI-compatible server",
}
# Beside the weights, llama.cpp needs its KV cache (4,096 tokens of a 7B model: ~0.5 GB) and buffers.
KV_OVERHEAD_MB = 512


def ram_needed_mb(size_bytes: int) -> int:
    """A model's RAM need, estimated from its file size (the weights are mapped whole)."""
    return size_bytes // (1 << 20) + KV_OVERHEAD_MB


def fits_ram(size_bytes: int, machine_mb: int) -> bool | None:
    """Whether a model of this size runs here; None when the size or the machine's RAM is unknown."""
    if size_bytes <= 0 or machine_mb <= 0:
        return None
    return ram_needed_mb(size_bytes) + RESERVED_RAM_MB <= machine_mb


@dataclass(frozen=True)
class LocalModel:
    """A model found on this computer.

    ``name``: the model's own name (a server's model id, Ollama's ``name:tag``, a GGUF file's stem), what
    ``kimas models use NAME`` takes. ``key``: unique in one listing (``where:source:name``).
    Sizes, quantization and context are 0 / empty when the server or file does not say.
    """

    name: str
    source: Source
    kind: Kind
    base_url: str = ""  # a server's OpenAI-compatible API, e.g. http://127.0.0.1:11434/v1
    model_id: str = ""  # the id sent to that server
    path: Path | None = None  # a GGUF file, loaded where it is
    size_bytes: int = 0
    quantization: str = ""
    context: int = 0
    fits: bool | None = None  # fits this computer's RAM; None: unknown

    @property
    def where(self) -> Where:
        return "file" if self.path is not None else "server"

    @property
    def key(self) -> str:
        return f"{self.where}:{self.source}:{self.name}"

    @property
    def holder(self) -> str:
        """Who holds it, for people: "Ollama", "LM Studio folder" …"""
        title = SOURCE_TITLES[self.source]
        return title if self.where == "server" else f"{title} folder"

    @property
    def location(self) -> str:
        return str(self.path) if self.path is not None else self.base_url

    def choice(self) -> ModelChoice:
        """The config values that use this model; ``ModelUnavailableError`` (a sentence) when KIMAs cannot
        load it this way (an embedding model as a GGUF file: KIMAs embeds with ONNX models)."""
        if self.path is None:
            # A key kept for another server (api_key_env) is not sent to this one.
            server = (("base_url", self.base_url), ("model", self.model_id), ("api_key_env", ""))
            if self.kind == "chat":
                return ModelChoice("chat", (("kind", "openai"), *server))
            return ModelChoice("embedding", (("backend", "openai"), *server))
        if self.kind == "embedding":
            raise ModelUnavailableError(
                f"{self.name} is an embedding model in a GGUF file, which KIMAs cannot load in place (it "
                "embeds with ONNX models): serve it with Ollama or LM Studio and use it from the server."
            )
        chat: tuple[tuple[str, object], ...] = (("kind", "llama"), ("path", str(self.path)))
        if 0 < self.context < 4096:
            chat += (("n_ctx", max(512, self.context)),)
        return ModelChoice("chat", chat)
