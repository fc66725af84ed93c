"""The Settings tab's "Models on this computer" (issue 45) as plain functions: one ``LocalRow`` per model
found (name, where it is, size, quantization, context, whether it fits this RAM, in use or not), and the
one-click use. ``ui/settings/local_layout.py`` binds them to widgets; tests call them directly."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from app.models.local_model import SOURCE_TITLES, LocalModel
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
    language: Language = "en"  # the language of ``facts``, and of the row's "in use"


def _size(n: int, language: Language) -> str:
    if n <= 0:
        return word("loc_size_unknown", language)
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


def _holder(model: LocalModel, language: Language) -> str:
    """Who holds the model: a server ("Ollama") or an app's folder ("LM Studio folder")."""
    title = SOURCE_TITLES[model.source]
    return title if model.where == "server" else word("loc_folder_of", language, title=title)


def _in_use(config: Config, model: LocalModel) -> bool:
    sections = sections_for(config, model)
    updated = config.updated(**sections)
    return all(getattr(updated, name) == getattr(config, name) for name in sections)


def _row(config: Config, model: LocalModel, language: Language) -> LocalRow:
    fits = {True: "loc_fits", False: "loc_too_big", None: "loc_ram_unknown"}
    context = f"{model.context:,}"
    bits = [
        word(f"loc_{model.kind}_model", language),
        f"{_holder(model, language)}: {model.location}",
        _size(model.size_bytes, language),
        model.quantization or word("loc_quantization_unknown", language),
        word("loc_context", language, n=context) if model.context else word("loc_context_unknown", language),
        word(fits[model.fits], language),
    ]
    facts = " · ".join(escape(b) for b in bits)
    try:
        in_use = _in_use(config, model)
    except KimasError as err:  # an embedding model in a GGUF file: KIMAs cannot load it in place
        facts = f"{facts}<br><small>{escape(str(err))}</small>"
        return LocalRow(model.key, model.name, facts, False, False, language)
    return LocalRow(model.key, model.name, facts, True, in_use, language)


def rows_of(config: Config, models: tuple[LocalModel, ...], language: Language = "en") -> list[LocalRow]:
    """Chat models first, then embedding models, each in the order found."""
    ordered = sorted(models, key=lambda m: m.kind != "chat")
    return [_row(config, m, language) for m in ordered]


def look(config: Config, choices: LocalModelChoices, language: Language = "en") -> tuple[list[LocalRow], str]:
    """Ask now (the tab was opened, or Look again): the rows and a line saying what was found."""
    models = choices.look()
    if not models:
        return [], word("loc_none", language)
    chats = sum(m.kind == "chat" for m in models)
    n = len(models)
    return rows_of(config, models, language), word(
        "loc_found", language, n=n, s="s" if n != 1 else "", chats=chats
    )


def use(choices: LocalModelChoices, key: str, language: Language = "en") -> str:
    return outcome_markdown(choices.use(key), language)
