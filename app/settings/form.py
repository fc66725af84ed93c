"""The Settings tab's form and how it becomes a validated ``Config`` (models, preset, main switches)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kimas_desktop.config import Config, parse_config
from kimas_desktop.errors import ModelUnavailableError
from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER

__all__ = [
    "MULTILINGUAL_EMBEDDER",
    "SettingsForm",
    "apply_settings",
    "describe_models",
    "preset_config",
    "settings_form",
]

# Sections a preset does not decide: switching preset (or restoring the defaults) keeps the user's values for
# these. Besides the models and the library, the app's own: its language, its server and limits, the online
# sources (issue 69: a new user who chose the app's language saw the preset "custom" though config.toml said
# "full", and a preset switch would have reset the language and deleted the online sources).
_KEPT_ON_PRESET_SWITCH = (
    "chat",
    "embedding",
    "rerank",
    "reader",
    "storage",
    "indexer",
    "summarizer",
    "collections",
    "server",
    "limits",
    "ui",
    "sources",
)


@dataclass(frozen=True)
class SettingsForm:
    preset: str
    context_enabled: bool
    routing_enabled: bool
    routing_top_k: int
    agentic_enabled: bool
    chat_model_path: str  # a local GGUF file; empty = the built-in model
    embedding_model: str  # a fastembed model name or a local model folder; empty = the built-in model


def settings_form(config: Config) -> SettingsForm:
    return SettingsForm(
        preset=config.preset,
        context_enabled=config.context.enabled,
        routing_enabled=config.routing.enabled,
        routing_top_k=config.routing.top_k,
        agentic_enabled=config.agentic.enabled,
        chat_model_path=config.chat.path,
        embedding_model=config.embedding.path or config.embedding.name,
    )


def preset_config(current: Config, preset: str) -> Config:
    """``current`` with ``preset``'s values for everything a preset decides."""
    base = parse_config({"preset": preset}, origin="settings").model_dump()
    keep = current.model_dump()
    for section in _KEPT_ON_PRESET_SWITCH:
        base[section] = keep[section]
    return parse_config(base, origin="settings")


def apply_settings(current: Config, form: SettingsForm) -> Config:
    """The config the form asks for; raises ``ConfigError``/``ModelUnavailableError`` with a sentence."""
    base = current if form.preset == current.preset else preset_config(current, form.preset)
    data = base.model_dump()
    data["context"]["enabled"] = form.context_enabled
    data["routing"]["enabled"] = form.routing_enabled
    data["routing"]["top_k"] = int(form.routing_top_k)
    data["agentic"]["enabled"] = form.agentic_enabled
    data["chat"]["path"] = _chat_path(form.chat_model_path)
    data["embedding"]["name"], data["embedding"]["path"] = _embedding_choice(form.embedding_model)
    return parse_config(data, origin="settings")


def describe_models(config: Config) -> str:
    if config.chat.kind == "openai":
        chat = f"{config.chat.model or 'the server model'} at {config.chat.base_url}"
    elif config.chat.path:
        chat = Path(config.chat.path).name
    elif config.chat.hf_repo:
        chat = config.chat.hf_repo
    else:
        chat = "SmolLM2-135M-Instruct (built in)"
    if config.embedding.path:
        emb = Path(config.embedding.path).name
    elif config.embedding.name == MULTILINGUAL_EMBEDDER:  # installed with the app, like the default
        emb = f"{MULTILINGUAL_EMBEDDER} (built in)"
    else:
        emb = config.embedding.name or "all-MiniLM-L6-v2 (built in)"
    return f"chat model {chat}, embedding model {emb}"


def _chat_path(text: str) -> str:
    text = text.strip().strip('"')
    if not text:
        return ""
    path = Path(text).expanduser()
    if not path.is_file():
        raise ModelUnavailableError(
            f"There is no file at {path}. Give the full path of a .gguf model file, or leave the field "
            "empty to use the built-in model."
        )
    if path.suffix.lower() != ".gguf":
        raise ModelUnavailableError(f"{path.name} is not a GGUF file: the chat model must be a .gguf file.")
    return str(path.resolve())


def _embedding_choice(text: str) -> tuple[str, str]:
    """(fastembed name, local folder) from what the user typed."""
    text = text.strip().strip('"')
    if not text:
        return "", ""
    path = Path(text).expanduser()
    if path.is_absolute() or text.startswith((".", "~")):
        if not path.is_dir():
            raise ModelUnavailableError(f"There is no folder at {path} for the embedding model.")
        return "", str(path.resolve())
    return text, ""
