"""The Settings tab's "Models on this computer" (issue 45) as plain functions: one ``LocalRow`` per model
found (name, where it is, size, quantization, context, whether it fits this RAM, in use or not), and the
one-click use. ``ui/settings/local_layout.py`` binds them to widgets; tests call them directly."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from app.models.local_model import LocalModel
from app.models.local_search import sections_for
from app.settings.local_models import LocalModelChoices
from kimas_desktop.config import Config
from kimas_desktop.errors import KimasError
from ui.i18n import Language, word
from ui.markup import outcome_markdown

__all__ = ["LocalRow", "look", "rows_of", "use"]

NOTHING_FOUND = word("loc_none", "en")


@dataclass(frozen=True)
class LocalRow:
    """One model as the tab lists it. ``usable``: KIMAs can use it this way (else ``facts`` says why)."""

    key: str
    name: str
    facts: str  # HTML, escaped
    usable: bool
    in_use: bool


def _size(n: int) -> str:
    if n <= 0:
        return "size unknown"
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


def _in_use(config: Config, model: LocalModel) -> bool:
    sections = sections_for(config, model)
    updated = config.updated(**sections)
    return all(getattr(updated, name) == getattr(config, name) for name in sections)


def _row(config: Config, model: LocalModel) -> LocalRow:
    fits = {
        True: "fits this computer's RAM",
        False: "too big for this computer's RAM",
        None: "RAM need unknown",
    }
    bits = [
        f"{model.kind} model",
        f"{model.holder}: {model.location}",
        _size(model.size_bytes),
        model.quantization or "quantization unknown",
        f"{model.context:,} tokens of context" if model.context else "context unknown",
        fits[model.fits],
    ]
    facts = " · ".join(escape(b) for b in bits)
    try:
        in_use = _in_use(config, model)
    except KimasError as err:  # an embedding model in a GGUF file: KIMAs cannot load it in place
        return LocalRow(model.key, model.name, f"{facts}<br><small>{escape(str(err))}</small>", False, False)
    return LocalRow(model.key, model.name, facts, True, in_use)


def rows_of(config: Config, models: tuple[LocalModel, ...]) -> list[LocalRow]:
    """Chat models first, then embedding models, each in the order found."""
    ordered = sorted(models, key=lambda m: m.kind != "chat")
    return [_row(config, m) for m in ordered]


def look(config: Config, choices: LocalModelChoices, language: Language = "en") -> tuple[list[LocalRow], str]:
    """Ask now (the tab was opened, or Look again): the rows and a line saying what was found."""
    models = choices.look()
    if not models:
        return [], word("loc_none", language)
    chats = sum(m.kind == "chat" for m in models)
    n = len(models)
    return rows_of(config, models), word("loc_found", language, n=n, s="s" if n != 1 else "", chats=chats)


def use(choices: LocalModelChoices, key: str, language: Language = "en") -> str:
    return outcome_markdown(choices.use(key), language)
