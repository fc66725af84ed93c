"""The one place that wires everything together, and ``python launch.py`` to start the desktop app.

python launch.py [--port 7860] [--data-dir DIR] [--config FILE] [--preset NAME]
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

# Gradio must not phone home; set before it is imported anywhere.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("DO_NOT_TRACK", "1")

from kimas_desktop.config import Config, default_data_dir, load_config


@dataclass(frozen=True)
class Paths:
    data_dir: Path
    config_file: Path

    @property
    def models_cache(self) -> Path:
        return self.data_dir / "models"

    @property
    def uploads(self) -> Path:
        return self.data_dir / "uploads"

    @property
    def log_file(self) -> Path:
        return self.data_dir / "kimas.log"

    def db_uri(self, config: Config) -> str:
        return config.storage.uri or str(self.data_dir / "lancedb")


def resolve_paths(data_dir: str | None, config_file: str | None) -> Paths:
    base = Path(data_dir).expanduser() if data_dir else default_data_dir()
    cfg = Path(config_file).expanduser() if config_file else base / "config.toml"
    return Paths(data_dir=base.resolve(), config_file=cfg.resolve())


def read_config(paths: Paths, preset: str | None = None) -> Config:
    return load_config(paths.config_file, preset=preset)


class Services:
    """Every long-lived object of one running app, built lazily from one config."""

    def __init__(self, paths: Paths, config: Config) -> None:
        self.paths = paths
        self.config = config
        paths.data_dir.mkdir(parents=True, exist_ok=True)

    @cached_property
    def embedder(self) -> Any:
        from local_models import build_embedder

        return build_embedder(self.config.embedding, self.paths.models_cache)

    @cached_property
    def chat(self) -> Any:
        from local_models import build_chat_model

        return build_chat_model(self.config.chat)

    @cached_property
    def reranker(self) -> Any:
        from local_models import build_reranker

        return build_reranker(self.config.rerank, self.embedder, self.paths.models_cache)

    @cached_property
    def store(self) -> Any:
        from indexer import LanceStore

        return LanceStore(self.paths.db_uri(self.config), dict(self.config.storage.options))

    @cached_property
    def indexer(self) -> Any:
        from indexer import Indexer

        return Indexer(self.store, self.embedder, self.config.indexer)

    def pipeline(self) -> Any:
        from kimas_desktop.pipeline import Pipeline

        return Pipeline(
            config=self.config,
            chat=self.chat,
            embedder=self.embedder,
            reranker=self.reranker,
            searcher=self.store,
            small_model=chat_is_embedded(self.config),
        )


def chat_is_embedded(config: Config) -> bool:
    """The embedded 135M model: the context manager then rewrites without the LLM (measured better)."""
    from local_models.resolve import resolve_chat

    return resolve_chat(config.chat).origin == "embedded default"


def doctor_report(paths: Paths, config: Config) -> dict[str, Any]:
    from kimas_desktop.errors import ModelError
    from local_models.resolve import resolve_chat, resolve_embedding, resolve_reranker

    resolvers = [
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
    if config.storage.uri.startswith(("s3://", "gs://", "az://")):
        network.append(f"storage: {config.storage.uri}")
    report: dict[str, Any] = {
        "version": __import__("kimas_desktop").__version__,
        "data_dir": str(paths.data_dir),
        "config_file": f"{paths.config_file}" + ("" if paths.config_file.exists() else " (not created yet)"),
        "preset": config.preset,
        "database": paths.db_uri(config),
        "models": models,
        "network": "; ".join(network) if network else "not used (everything is local)",
    }
    if config.chat.kind == "llama":
        report["llama.cpp"] = llama_cpu_report()
    return report


def llama_cpu_report() -> dict[str, str]:
    """Which CPU features the installed llama.cpp uses, and whether the crashing AMX path is off."""
    from kimas_desktop.errors import ModelError
    from local_models.llama_chat import llama_runtime_info

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


def main(argv: list[str] | None = None) -> int:
    from cli.main import main as cli_main

    return cli_main(["serve", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
