"""Reading ``config.toml``: its text as TOML, the preset it names layered under it, and a sentence for every way it can fail (not UTF-8, a folder
in its place, no permission, not TOML, a key that does not validate). The file is only read, never
changed; ``kimas_desktop.config`` turns the mapping into the typed ``Config``."""

from __future__ import annotations

import logging
import os
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kimas_desktop.errors import ConfigError

__all__ = ["PRESETS", "default_data_dir", "explain", "merge", "preset_data", "read_toml"]

PRESETS = ("full", "routed", "turbo")

_log = logging.getLogger("kimas_desktop.config")


def explain(err: ValidationError, origin: str) -> str:
    """The validation errors of a config from ``origin``, in one sentence."""
    lines = []
    for e in err.errors():
        key = ".".join(str(p) for p in e["loc"])
        if e["type"] == "extra_forbidden":
            lines.append(f"unknown key '{key}'")
        else:
            lines.append(f"'{key}': {e['msg']}")
    return f"invalid config {origin}: " + "; ".join(lines)


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML mapping of ``path``; an empty file is the defaults (with a warning)."""
    untouched = "KIMAs has not changed it"
    if path.is_dir():
        raise ConfigError(
            f"the config file {path} is a folder, not a file; move it away or point --config at a file "
            f"({untouched})."
        )
    try:
        text = path.read_text("utf-8")
    except UnicodeDecodeError as err:
        line = err.object[: err.start].count(b"\n") + 1
        raise ConfigError(
            f"the config file {path} is not UTF-8 text (byte 0x{err.object[err.start]:02x} on line {line}); "
            f"save it as UTF-8 ({untouched})."
        ) from None
    except OSError as err:
        raise ConfigError(
            f"the config file {path} cannot be read: {err.strerror or err} ({untouched})."
        ) from None
    if not text.strip():
        _log.warning("the config file %s is empty: using the default settings", path)
        return {}
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"config file {path} is not valid TOML: {err}") from None


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def preset_data(name: str) -> dict[str, Any]:
    if name == "custom":
        return {}
    if name not in PRESETS:
        raise ConfigError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
    text = resources.files("kimas_desktop.presets").joinpath(f"{name}.toml").read_text("utf-8")
    return tomllib.loads(text)


def default_data_dir() -> Path:
    """Where the app keeps its data: ``KIMAS_HOME``, else ``~/.kimas``."""
    env = os.environ.get("KIMAS_HOME")
    return Path(env).expanduser() if env else Path.home() / ".kimas"
