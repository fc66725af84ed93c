"""``Settings``: the Settings tab's actions, which ``DesktopApp`` holds (``desk.settings``): the form,
presets, Restore defaults, and switching models without a restart (load beside the ones in use; save and
free the old ones only once the new ones load)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.knowledge.collections import Knowledge
from app.knowledge.scheduler import IndexScheduler
from app.models import catalog
from app.models.loading import ModelLoading
from app.models.local_model import LocalModel
from app.models.local_search import sections_for
from app.outcomes import ActionResult, ModelState, Said, attempt
from app.runtime import Runtime
from app.settings import rules
from app.settings.config_store import ConfigStore
from app.settings.form import SettingsForm, describe_models, preset_config
from kimas_desktop.config import Config
from kimas_desktop.errors import KimasError

__all__ = ["Settings"]


class Settings:
    """Reads and saves the settings of one ``ConfigStore``; a model switch shows in ``loading``,
    ``changed`` is told when something the tabs show may have changed, and errors become sentences
    through ``explain``. ``catalog_file``: the model catalog the downloads read (None: the shipped one)."""

    def __init__(
        self,
        *,
        runtime: Runtime,
        config_store: ConfigStore,
        catalog_file: Callable[[], Path | None],
        knowledge: Knowledge,
        indexing: IndexScheduler,
        loading: ModelLoading,
        changed: Callable[[], None],
        explain: Callable[[BaseException, str], Said],
    ) -> None:
        self._runtime = runtime
        self._config_store = config_store
        self._catalog_file = catalog_file
        self._knowledge = knowledge
        self._indexing = indexing
        self._loading = loading
        self._changed = changed
        self._explain = explain

    @property
    def _config(self) -> Config:
        return self._config_store.current

    def form(self) -> SettingsForm:
        """The form as the settings in use fill it."""
        return rules.form_of(self._config)

    def preset_form(self, preset: str) -> SettingsForm:
        """The form as ``preset`` would fill it (the models stay as they are)."""
        try:
            return rules.form_of(preset_config(self._config, preset))
        except KimasError:
            return self.form()

    def form_preset(self, form: SettingsForm) -> str:
        """What the preset radio shows for a form being edited ("custom" once it differs)."""
        try:
            return rules.form_preset(self._config, form)
        except KimasError:
            return rules.CUSTOM

    def save(self, form: SettingsForm) -> ActionResult:
        """Save the form. Other models are loaded first, beside the ones in use (which keep answering),
        and saved only once they load: a model that fails to load is not saved, and the reason shows."""

        def act() -> Said:
            models = rules.model_sections(self._config, rules.wanted_config(self._config, form))
            self._config_store.update(lambda cur: rules.keep_models(rules.wanted_config(cur, form), cur))
            self._changed()
            path = self._config_store.path
            msg = f"Settings saved to {path}."
            if not models:
                return Said(msg, "settings_saved_to", {"path": path})
            self._switch_async(models)
            msg += " Loading the model… (saved once it loads; answers use the current one meanwhile)"
            return Said(msg, "settings_saved_loading", {"path": path})

        return attempt(self._explain, "saving the settings", act)

    def restore_defaults(self) -> ActionResult:
        def act() -> Said:
            self._config_store.update(rules.defaults)
            self._changed()
            preset = rules.DEFAULT_PRESET
            english = f"Default settings restored (preset {preset}); your models and collections are kept."
            return Said(english, "defaults_restored", {"preset": preset})

        return attempt(self._explain, "restoring the default settings", act)

    def set_language(self, language: str) -> ActionResult:
        """Save the language of the app's own words (``[ui] language``: "auto", "en", "zh-CN")."""

        def act() -> Said:
            self._config_store.update(lambda cur: cur.updated(ui={"language": language}))
            return Said("Language saved; the page reloads in it.", "language_saved")

        return attempt(self._explain, "saving the language", act)

    def use_model(self, name: str) -> ActionResult:
        """Switch to the installed catalog model ``name`` (loaded first, saved once it loads)."""

        def act() -> Said:
            choice = catalog.choice(self._runtime.paths, name, self._catalog_file())
            sections = rules.with_choice(self._config, choice.section, choice.as_dict())
            if rules.model_sections(self._config, self._config.updated(**sections)):
                self._switch_async(sections)
                return _loading(name)
            return Said(f"{name} is already in use.", "model_in_use", {"name": name})

        return attempt(self._explain, f"switching to {name}", act)

    def use_local(self, model: LocalModel) -> ActionResult:
        """Switch to a model found on this computer: through its server's OpenAI-compatible API, or its
        GGUF file loaded where it is. The config values are ``kimas models use``'s (``sections_for``);
        loaded first, saved once it loads."""

        def act() -> Said:
            sections = sections_for(self._config, model)
            if rules.model_sections(self._config, self._config.updated(**sections)):
                self._switch_async(sections)
                return _loading(f"{model.name} ({model.holder})")
            return Said(f"{model.name} is already in use.", "model_in_use", {"name": model.name})

        return attempt(self._explain, f"switching to {model.name}", act)

    def _switch_async(self, sections: dict[str, dict[str, Any]]) -> None:
        """Load the models ``sections`` select beside the ones in use; once they load, save the config
        and free the old ones. A new embedder starts re-embedding the collections built with the old."""
        before = self._config
        target = before.updated(**sections)

        def commit() -> None:
            self._config_store.update(lambda cur: cur.updated(**sections))

        def load() -> ModelState:
            try:
                self._runtime.load(target, commit)
                return _ready(target, self._reembed_after_switch())
            except Exception as err:
                why = self._explain(err, "loading the model")
                english = (
                    f"Could not switch models: {why.english} Still using {describe_models(self._config)}; "
                    "the new model was not saved."
                )
                said = Said(english, "models_not_switched", {"why": why, "models": self._config})
                return ModelState("failed", english, said)

        english = f"Loading {describe_models(target)}… (answers use {describe_models(before)} meanwhile)"
        self._loading.start(
            Said(english, "models_switching", {"models": target, "before": before}),
            load,
            thread_name="kimas-switch-models",
            then=self._changed,
        )

    def _reembed_after_switch(self) -> list[str] | Said:
        """Start re-embedding every collection built with another embedding model than the one in use:
        their names, or why the collections could not be listed."""
        try:
            stale = [c.name for c in self._knowledge.collections() if c.needs_reembedding]
        except KimasError as err:
            return self._explain(err, "listing collections")
        for name in stale:
            self._indexing.submit(name, "new embedding model", reembed=True)
        return stale


def _ready(target: Config, reembedding: list[str] | Said) -> ModelState:
    """The models of ``target`` are in use; ``reembedding``: the collections re-embedded (or why not)."""
    english = f"Ready: {describe_models(target)}."
    if isinstance(reembedding, Said):
        english += " " + reembedding.english
        return ModelState(
            "ready", english, Said(english, "models_ready_but", {"models": target, "why": reembedding})
        )
    if not reembedding:
        return ModelState("ready", english, Said(english, "models_ready", {"models": target}))
    names = ", ".join(reembedding)
    english += (
        f" Re-embedding {names} with the new embedding model in the background; "
        "the Knowledge tab shows the progress."
    )
    return ModelState(
        "ready", english, Said(english, "models_ready_reembedding", {"models": target, "names": names})
    )


def _loading(name: str) -> Said:
    english = f"Loading {name}… (saved once it loads; answers use the current model meanwhile)"
    return Said(english, "model_loading_saved", {"name": name})
