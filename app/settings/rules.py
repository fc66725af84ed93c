"""What the Settings tab's values mean for the config: the preset it shows, defaults, model sections.

- ``shown_preset(config)``: the preset's name while the config holds that preset's values, else
  ``"custom"`` (the radio must not say "full" after custom changes).
- ``form_preset(current, form)``: the same for a form being edited (the radio follows the toggles).
- ``wanted_config(current, form)``: the config the form asks for (a ``"custom"`` form keeps every value).
- ``MODEL_SECTIONS`` / ``model_sections`` / ``keep_models``: the model parts are saved apart from the
  rest, only once they load (``DesktopApp.save_settings``).
- ``defaults(current)``: "Restore defaults": the default preset's values; models and collections stay.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from app.settings.form import SettingsForm, apply_settings, preset_config, settings_form
from kimas_desktop.config import PRESETS, Config
from kimas_desktop.errors import KimasError

__all__ = [
    "CUSTOM",
    "DEFAULT_PRESET",
    "MODEL_SECTIONS",
    "defaults",
    "form_of",
    "form_preset",
    "keep_models",
    "model_sections",
    "shown_preset",
    "wanted_config",
    "with_choice",
]

DEFAULT_PRESET = "full"
CUSTOM = "custom"
MODEL_SECTIONS = ("chat", "embedding", "rerank", "reader")


def shown_preset(config: Config) -> str:
    if config.preset not in PRESETS:
        return CUSTOM
    try:
        same = preset_config(config, config.preset) == config
    except KimasError:
        return CUSTOM
    return config.preset if same else CUSTOM


def _toggles(form: SettingsForm) -> tuple[bool, bool, int, bool]:
    return form.context_enabled, form.routing_enabled, int(form.routing_top_k), form.agentic_enabled


def form_preset(current: Config, form: SettingsForm) -> str:
    """The preset whose values the form's switches hold (the one already chosen first), else custom."""
    for preset in dict.fromkeys([form.preset, *PRESETS]):
        if preset in PRESETS and _toggles(settings_form(preset_config(current, preset))) == _toggles(form):
            return preset
    return CUSTOM


def wanted_config(current: Config, form: SettingsForm) -> Config:
    """Raises ``ConfigError``/``ModelUnavailableError`` with a sentence (a missing model file)."""
    if form.preset == CUSTOM:  # keep every value the config holds; apply only the form's switches
        current = current.updated(preset=CUSTOM)
    return apply_settings(current, form)


def model_sections(current: Config, wanted: Config) -> dict[str, dict[str, Any]]:
    """The model sections ``wanted`` changes, as whole sections for ``Config.updated``."""
    return {
        name: getattr(wanted, name).model_dump()
        for name in MODEL_SECTIONS
        if getattr(wanted, name) != getattr(current, name)
    }


def keep_models(new: Config, current: Config) -> Config:
    """``new`` with ``current``'s model sections (saved later, once the new models load)."""
    return new.updated(**{name: getattr(current, name).model_dump() for name in MODEL_SECTIONS})


def with_choice(current: Config, section: str, values: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A catalog model's config values merged into ``current``'s section."""
    return {section: {**getattr(current, section).model_dump(), **values}}


def defaults(current: Config) -> Config:
    return preset_config(current, DEFAULT_PRESET)


def form_of(config: Config) -> SettingsForm:
    return replace(settings_form(config), preset=shown_preset(config))
