"""``OnlineSourcesAdmin``: the user's online knowledge sources (web search, HTTP APIs), one set of rules
for the app and the CLI.

A source is a ``[sources.NAME]`` table in the config, off until the user enables it. Every change goes
through ``ConfigStore.update``; a source's name follows the collections' rule and may not be a
collection's name (they are routed and cited side by side). ``try_query`` asks a source once, enabled or
not: the user asked for that request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from app.knowledge.uploads import check_collection_name
from app.settings.config_store import ConfigStore
from kimas_desktop.config import Config, SourceConfig
from kimas_desktop.errors import ConfigError, KimasError
from kimas_desktop.protocols import OnlineSource
from kimas_desktop.types import OnlineDocument

__all__ = ["OnlineSourcesAdmin", "SourceRow", "network_sources"]


@dataclass(frozen=True)
class SourceRow:
    name: str
    spec: SourceConfig

    @property
    def address(self) -> str:
        where = self.spec.base_url or {"ddgs": "web search through the ddgs library"}.get(self.spec.kind, "")
        return f"{where} (site: {self.spec.site})" if self.spec.site else where


def network_sources(config: Config) -> list[str]:
    """Every enabled source and where its questions go, for ``kimas doctor``."""
    return [
        f"source {r.name}: {r.address}, asked {r.spec.use}"
        for r in (SourceRow(n, s) for n, s in config.sources.items())
        if r.spec.enabled
    ]


def _with(config: Config, name: str, spec: SourceConfig | None) -> Config:
    sources = {k: v.model_dump() for k, v in config.sources.items() if k != name}
    if spec is not None:
        sources[name] = spec.model_dump()
    return config.updated(sources=sources)


class OnlineSourcesAdmin:
    def __init__(self, config: ConfigStore, build: Callable[[str, SourceConfig], OnlineSource]) -> None:
        self._config = config
        self._build = build

    def rows(self) -> list[SourceRow]:
        return [SourceRow(n, s) for n, s in sorted(self._config.current.sources.items())]

    def spec(self, name: str) -> SourceConfig:
        sources = self._config.current.sources
        if name not in sources:
            raise ConfigError(f"there is no online source named '{name}'")
        return sources[name]

    @staticmethod
    def validate(values: Mapping[str, Any]) -> SourceConfig:
        try:
            return SourceConfig.model_validate(dict(values))
        except ValidationError as err:
            problems = "; ".join(
                ".".join(map(str, e["loc"])) + ": " * bool(e["loc"]) + e["msg"].removeprefix("Value error, ")
                for e in err.errors()
            )
            raise ConfigError(f"this source cannot be saved: {problems}") from None

    def save(self, name: str, values: Mapping[str, Any], *, replaces: str = "") -> SourceRow:
        """Add a source, or change one (``replaces``: its name before, when it is renamed)."""
        name = check_collection_name(name)
        spec = self.validate(values)

        def change(config: Config) -> Config:
            if name in config.collections:
                raise ConfigError(f"'{name}' is already a collection's name; choose another")
            if name in config.sources and name != replaces:
                raise ConfigError(f"there is already an online source named '{name}'")
            return _with(_with(config, replaces, None) if replaces else config, name, spec)

        self._config.update(change)
        return SourceRow(name, spec)

    def remove(self, name: str) -> None:
        self.spec(name)
        self._config.update(lambda config: _with(config, name, None))

    def try_query(
        self, query: str, *, name: str = "", values: Mapping[str, Any] | None = None
    ) -> list[OnlineDocument]:
        """Ask a source once (a saved one by ``name``, or the settings being edited), enabled or not."""
        if not query.strip():
            raise KimasError("type a query to try the source with")
        spec = self.validate(values) if values is not None else self.spec(name)
        source = self._build(name or "trial", spec)
        try:
            return source.search(query.strip(), timeout_s=spec.timeout_s)
        finally:
            source.close()
