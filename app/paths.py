"""Where one installation keeps its data, and reading its config."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kimas_desktop.config import Config, default_data_dir, load_config

__all__ = ["Paths", "read_config", "resolve_paths"]


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
    def web_cache(self) -> Path:
        """Pages the online sources fetched, kept for their ``cache_minutes``."""
        return self.data_dir / "web-cache"

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
