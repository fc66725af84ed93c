"""The models already on this computer, as the CLI and the Settings page see them.

find_local_models(servers=None, files=None) -> list[LocalModel]
    asks the local servers (``local_servers.ServerProbe``, 127.0.0.1 only) and scans the model folders
    (``local_files.FileScan``); only when called, never at start-up or in the background
pick(models, name) -> LocalModel
    the model ``name`` names (its name, or its ``key`` when names clash; a server before a file)
sections_for(config, model) -> dict[str, dict[str, Any]]
    the whole config sections that use it, for ``Config.updated`` (the Settings page loads them first)
use_local_model(store, model) -> Config
    writes them to the config file at once (the CLI)
better_chat_model(models) -> LocalModel | None
    the one to suggest over the embedded 135M chat model, if any is clearly better
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.models.local_files import FileScan
from app.models.local_model import LocalModel
from app.models.local_servers import ServerProbe
from app.settings.config_store import ConfigStore
from kimas_desktop.config import Config
from kimas_desktop.errors import ModelUnavailableError

__all__ = [
    "CLEARLY_BETTER_BYTES",
    "better_chat_model",
    "find_local_models",
    "pick",
    "sections_for",
    "use_local_model",
]

# The embedded SmolLM2-135M is 94 MB; the 0.5B benchmark model (Q4, ~400 MB) answered 12/30 where it
# answered 4/30 (../MODELS.md): a chat model from this size up is worth suggesting.
CLEARLY_BETTER_BYTES = 300 * 10**6


def find_local_models(servers: ServerProbe | None = None, files: FileScan | None = None) -> list[LocalModel]:
    """Served models first, then files; each list in the order found."""
    return (servers or ServerProbe()).find() + (files or FileScan()).find()


def pick(models: Sequence[LocalModel], name: str) -> LocalModel:
    """The model called ``name``; ``ModelUnavailableError`` (a sentence) when none or several are."""
    by_key = [m for m in models if m.key == name]
    matches = (
        by_key
        or [m for m in models if m.name == name]
        or [m for m in models if m.name.lower() == name.lower()]
    )
    if not matches:
        raise ModelUnavailableError(
            f"No model called {name!r} was found on this computer: 'kimas models --local' lists them "
            "(a server must be running to be found)."
        )
    servers = [m for m in matches if m.where == "server"]
    if len(matches) == 1 or len(servers) == 1:
        return servers[0] if servers else matches[0]
    keys = ", ".join(m.key for m in matches)
    raise ModelUnavailableError(f"Several models are called {name!r}; name one by its key: {keys}.")


def sections_for(config: Config, model: LocalModel) -> dict[str, dict[str, Any]]:
    """``config``'s section that ``model`` changes, whole, with the model's values in it."""
    choice = model.choice()
    return {choice.section: {**getattr(config, choice.section).model_dump(), **choice.as_dict()}}


def use_local_model(store: ConfigStore, model: LocalModel) -> Config:
    """Write the config so the app uses ``model`` (from its next start); returns the config written."""
    model.choice()  # a model KIMAs cannot use this way raises before the file is touched
    return store.update(lambda current: current.updated(**sections_for(current, model)))


def better_chat_model(models: Sequence[LocalModel]) -> LocalModel | None:
    """The biggest chat model known to fit this computer's RAM and clearly bigger than the embedded one
    (a served one before a file of the same size); None when there is none."""
    fitting = [m for m in models if m.kind == "chat" and m.fits and m.size_bytes >= CLEARLY_BETTER_BYTES]
    return max(fitting, key=lambda m: (m.size_bytes, m.where == "server"), default=None)
