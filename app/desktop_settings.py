"""The Settings tab's actions of ``DesktopApp``: the form, presets, Restore defaults, and switching models
without a restart (load beside the ones in use; save and free the old ones only once the new ones load).
A mixin of ``DesktopApp``: the attributes it uses are declared below and set by ``DesktopApp``."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app import model_catalog, settings_rules
from app.config_store import ConfigStore
from app.knowledge import Knowledge
from app.model_downloads import ModelDownloads
from app.outcomes import ModelState, Outcome
from app.runtime import Runtime
from app.scheduler import IndexScheduler
from app.settings_form import SettingsForm, describe_models, preset_config
from kimas_desktop.config import Config
from kimas_desktop.errors import KimasError

__all__ = ["SettingsActions"]


class SettingsActions:
    runtime: Runtime
    config_store: ConfigStore
    config_path: Path
    models: ModelDownloads
    knowledge: Knowledge
    indexing: IndexScheduler
    _lock: threading.Lock
    _warm_generation: int
    _model: ModelState

    @property
    def config(self) -> Config:
        raise NotImplementedError

    def _changed(self) -> None:
        raise NotImplementedError

    def explain(self, err: BaseException, doing: str) -> str:
        raise NotImplementedError

    def _attempt(self, doing: str, action: Callable[[], str]) -> Outcome:
        raise NotImplementedError

    def settings(self) -> SettingsForm:
        return settings_rules.form_of(self.config)

    def preset_settings(self, preset: str) -> SettingsForm:
        """The form as ``preset`` would fill it (the models stay as they are)."""
        try:
            return settings_rules.form_of(preset_config(self.config, preset))
        except KimasError:
            return self.settings()

    def form_preset(self, form: SettingsForm) -> str:
        """What the preset radio shows for a form being edited ("custom" once it differs)."""
        try:
            return settings_rules.form_preset(self.config, form)
        except KimasError:
            return settings_rules.CUSTOM

    def save_settings(self, form: SettingsForm) -> Outcome:
        """Save the form. Other models are loaded first, beside the ones in use (which keep answering),
        and saved only once they load: a model that fails to load is not saved, and the reason shows."""

        def act() -> str:
            models = settings_rules.model_sections(
                self.config, settings_rules.wanted_config(self.config, form)
            )
            self.config_store.update(
                lambda cur: settings_rules.keep_models(settings_rules.wanted_config(cur, form), cur)
            )
            self._changed()
            msg = f"Settings saved to {self.config_path}."
            if models:
                self._switch_async(models)
                msg += " Loading the model… (saved once it loads; answers use the current one meanwhile)"
            return msg

        return self._attempt("saving the settings", act)

    def restore_defaults(self) -> Outcome:
        def act() -> str:
            self.config_store.update(settings_rules.defaults)
            self._changed()
            return (
                f"Default settings restored (preset {settings_rules.DEFAULT_PRESET}); "
                "your models and collections are kept."
            )

        return self._attempt("restoring the default settings", act)

    def use_model(self, name: str) -> Outcome:
        """Switch to the installed catalog model ``name`` (loaded first, saved once it loads)."""

        def act() -> str:
            choice = model_catalog.choice(self.runtime.paths, name, self.models.catalog_file)
            sections = settings_rules.with_choice(self.config, choice.section, choice.as_dict())
            if settings_rules.model_sections(self.config, self.config.updated(**sections)):
                self._switch_async(sections)
                return f"Loading {name}… (saved once it loads; answers use the current model meanwhile)"
            return f"{name} is already in use."

        return self._attempt(f"switching to {name}", act)

    def _switch_async(self, sections: dict[str, dict[str, Any]]) -> None:
        """Load the models ``sections`` select beside the ones in use; once they load, save the config
        and free the old ones. A new embedder starts re-embedding the collections built with the old."""
        before = self.config
        target = before.updated(**sections)
        with self._lock:
            self._warm_generation += 1
            generation = self._warm_generation
            self._model = ModelState(
                "loading",
                f"Loading {describe_models(target)}… (answers use {describe_models(before)} meanwhile)",
            )

        def commit() -> None:
            self.config_store.update(lambda cur: cur.updated(**sections))

        def work() -> None:
            try:
                self.runtime.load(target, commit)
                state = ModelState(
                    "ready", f"Ready: {describe_models(target)}.{self._reembed_after_switch()}"
                )
            except Exception as err:
                state = ModelState(
                    "failed",
                    f"Could not switch models: {self.explain(err, 'loading the model')} "
                    f"Still using {describe_models(self.config)}; the new model was not saved.",
                )
            with self._lock:
                if generation == self._warm_generation:
                    self._model = state
            self._changed()

        threading.Thread(target=work, name="kimas-switch-models", daemon=True).start()

    def _reembed_after_switch(self) -> str:
        """Start re-embedding every collection built with another embedding model than the one in use."""
        try:
            stale = [c.name for c in self.knowledge.collections() if c.needs_reembedding]
        except KimasError as err:
            return " " + self.explain(err, "listing collections")
        for name in stale:
            self.indexing.submit(name, "new embedding model", reembed=True)
        if not stale:
            return ""
        return (
            f" Re-embedding {', '.join(stale)} with the new embedding model in the background; "
            "the Knowledge tab shows the progress."
        )
