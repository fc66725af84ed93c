"""``ServerProbe``: the models that local model servers serve, asked on 127.0.0.1 only, and only when called.

The well-known addresses (``WELL_KNOWN_SERVERS``): Ollama 11434, LM Studio 1234, llama.cpp's server 8080,
Jan 1337, vLLM 8000; Ollama's port is the one ``OLLAMA_HOST`` names, as Ollama's own clients read it, when that
names this computer (``servers_of_this_computer``). Each port is asked, in parallel and with short timeouts:

- ``GET /api/tags`` (Ollama; then ``POST /api/show`` per model for its capabilities and context), used
  through Ollama's OpenAI-compatible ``/v1`` API;
- else ``GET /api/v0/models`` (LM Studio's REST API: the model's type, quantization, context) or
  ``GET /v1/models`` (any OpenAI-compatible server; llama.cpp adds ``meta``, vLLM ``max_model_len``).

A port where nothing answers, or something else answers, adds nothing. Nothing is asked at import, at
start-up or in the background: only ``find()`` sends requests, and never through a proxy.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx

from app.models.local_model import Kind, LocalModel, Source, fits_ram
from local_models.catalog.catalog import machine_ram_mb

__all__ = [
    "HOST",
    "WELL_KNOWN_SERVERS",
    "ServerAddress",
    "ServerProbe",
    "embedding_by_name",
    "servers_of_this_computer",
]

HOST = "127.0.0.1"
_LOOPBACK = {"", "127.0.0.1", "localhost", "0.0.0.0", "::", "::1", "[::]", "[::1]"}
_EMBEDDING_WORDS = ("embed", "bge-", "bge:", "e5-", "gte-", "minilm", "arctic-embed", "jina-embeddings")
_EMBEDDING_FAMILIES = {"bert", "nomic-bert", "jina-bert-v2", "nomic-bert-moe"}


@dataclass(frozen=True)
class ServerAddress:
    source: Source  # what usually listens there ("openai-compatible" for a port of one's own)
    port: int


WELL_KNOWN_SERVERS: tuple[ServerAddress, ...] = (
    ServerAddress("ollama", 11434),
    ServerAddress("lm-studio", 1234),
    ServerAddress("llama.cpp", 8080),
    ServerAddress("jan", 1337),
    ServerAddress("vllm", 8000),
)


def _ollama_port(environ: Mapping[str, str]) -> int | None:
    """The port ``OLLAMA_HOST`` ("127.0.0.1:11435", "http://localhost:11435", ":11435") names on this
    computer; None when it is unset, names another computer or no port."""
    value = environ.get("OLLAMA_HOST", "").strip()
    value = value.split("://", 1)[-1].split("/", 1)[0]
    host, _, port = value.rpartition(":")
    if not port.isdigit() or host.lower() not in _LOOPBACK or not 0 < int(port) < 65536:
        return None
    return int(port)


def servers_of_this_computer(environ: Mapping[str, str] | None = None) -> tuple[ServerAddress, ...]:
    """The well-known addresses, Ollama's at the port ``OLLAMA_HOST`` names if it names one here."""
    port = _ollama_port(os.environ if environ is None else environ)
    if port is None:
        return WELL_KNOWN_SERVERS
    return tuple(ServerAddress("ollama", port) if a.source == "ollama" else a for a in WELL_KNOWN_SERVERS)


def embedding_by_name(model_id: str) -> bool:
    """A server that does not say a model's type: embedding models carry it in their names."""
    lowered = model_id.lower()
    return any(word in lowered for word in _EMBEDDING_WORDS)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _items(body: Any, key: str) -> list[dict[str, Any]]:
    items = body.get(key) if isinstance(body, dict) else None
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


class ServerProbe:
    """``find()`` asks each address which models it serves; ``addresses`` replaces the well-known ones
    (``servers_of_this_computer()``: a server on a port of one's own, tests)."""

    def __init__(
        self,
        addresses: Sequence[ServerAddress] | None = None,
        *,
        timeout_s: float = 1.5,
        connect_timeout_s: float = 0.3,
    ) -> None:
        self._addresses = tuple(servers_of_this_computer() if addresses is None else addresses)
        self._timeout = httpx.Timeout(timeout_s, connect=connect_timeout_s)

    def find(self) -> list[LocalModel]:
        """The models every answering server serves, in the addresses' order."""
        if not self._addresses:
            return []
        ram = machine_ram_mb()
        with (
            httpx.Client(timeout=self._timeout, trust_env=False) as client,
            ThreadPoolExecutor(len(self._addresses), thread_name_prefix="kimas-probe") as pool,
        ):
            found = pool.map(lambda a: _Server(client, a, ram).models(), self._addresses)
            return [model for models in found for model in models]


class _Server:
    """One address, asked once."""

    def __init__(self, client: httpx.Client, address: ServerAddress, ram_mb: int) -> None:
        self._client = client
        self._address = address
        self._root = f"http://{HOST}:{address.port}"
        self._ram = ram_mb

    def _get(self, route: str) -> Any:
        response = self._client.get(self._root + route)
        return response.json() if response.status_code == 200 else None

    def models(self) -> list[LocalModel]:
        try:
            tags = self._get("/api/tags")
            # llama.cpp's server answers /api/tags too, with an OpenAI "data" list beside "models"
            if isinstance(tags, dict) and isinstance(tags.get("models"), list) and "data" not in tags:
                return [self._ollama(m) for m in _items(tags, "models") if m.get("name")]
            lm_studio = _items(self._get("/api/v0/models"), "data")
            if lm_studio and all("type" in m for m in lm_studio):
                return [self._lm_studio(m) for m in lm_studio if m.get("id")]
            return [self._openai(m) for m in _items(self._get("/v1/models"), "data") if m.get("id")]
        except (httpx.HTTPError, ValueError):
            return []

    def _model(
        self, source: Source, model_id: str, kind: Kind, size: int, quant: str, ctx: int
    ) -> LocalModel:
        return LocalModel(
            name=model_id,
            source=source,
            kind=kind,
            base_url=f"{self._root}/v1",
            model_id=model_id,
            size_bytes=size,
            quantization=quant,
            context=ctx,
            fits=fits_ram(size, self._ram),
        )

    def _ollama(self, tag: dict[str, Any]) -> LocalModel:
        name = str(tag["name"])
        details, info = _dict(tag.get("details")), self._show(name)
        capabilities = info.get("capabilities")
        listed = details.get("families")
        families = {str(f) for f in (listed if isinstance(listed, list) else [])}
        families.add(str(details.get("family", "")))
        if isinstance(capabilities, list):
            embedding = "embedding" in capabilities and "completion" not in capabilities
        else:
            embedding = bool(families & _EMBEDDING_FAMILIES) or embedding_by_name(name)
        model_info = _dict(info.get("model_info"))
        context = next((_int(v) for k, v in model_info.items() if str(k).endswith(".context_length")), 0)
        quant = str(details.get("quantization_level") or "")
        kind: Kind = "embedding" if embedding else "chat"
        return self._model("ollama", name, kind, _int(tag.get("size")), quant, context)

    def _show(self, name: str) -> dict[str, Any]:
        """Ollama's facts about one model (capabilities, context); empty when it does not say."""
        try:
            response = self._client.post(self._root + "/api/show", json={"model": name})
            return _dict(response.json()) if response.status_code == 200 else {}
        except (httpx.HTTPError, ValueError):
            return {}

    def _lm_studio(self, m: dict[str, Any]) -> LocalModel:
        kind: Kind = "embedding" if m.get("type") == "embeddings" else "chat"
        quant, ctx = str(m.get("quantization") or ""), _int(m.get("max_context_length"))
        return self._model("lm-studio", str(m["id"]), kind, 0, quant, ctx)

    def _openai(self, m: dict[str, Any]) -> LocalModel:
        model_id = str(m["id"])
        meta = _dict(m.get("meta"))  # llama.cpp's server
        context = _int(meta.get("n_ctx_train")) or _int(m.get("max_model_len"))  # vLLM
        kind: Kind = "embedding" if embedding_by_name(model_id) else "chat"
        return self._model(self._address.source, model_id, kind, _int(meta.get("size")), "", context)
