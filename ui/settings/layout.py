"""The Settings tab: the app's language, the models on this computer, the answering settings with Save
(in view on first open), then the model catalog with downloads and switching, and the other tools.
Layout and wiring only; the handlers are ``ui.settings.handlers``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from app.desktop import DesktopApp
from app.settings.form import SettingsForm
from app.settings.tools_access import ToolsAccess
from kimas_desktop.config import PRESETS
from ui.i18n import Language, page_language, t, word
from ui.markup import code, model_markdown
from ui.settings import handlers as sh
from ui.settings import language_view, local_layout, other_tools

CSS = (
    """
.kimas-catalog { width: 100%; font-size: 0.9em; margin-bottom: 0.8em; }
.kimas-catalog td, .kimas-catalog th { padding: 0.25em 0.5em; vertical-align: top; text-align: left; }
.kimas-download { padding: 0.3em 0; }
/* Save and Restore belong to the answering settings just above them: the row sticks to the window's
   bottom until it scrolls into its place, so it is in view on first open at 1366x768 too. */
.gradio-container { overflow: clip !important; }  /* hidden made it a scroll box, where nothing sticks */
#settings-save-row { position: sticky; bottom: 0; z-index: 1000; background: var(--body-background-fill);
  padding: 6px 0; }
"""
    + local_layout.CSS
)


def _files_line(desk: DesktopApp, language: Language) -> str:
    return word("set_files", language, config=code(str(desk.config_path)), log=code(str(desk.log_file)))


def _form_values(f: SettingsForm) -> tuple[Any, ...]:
    return (f.preset, f.context_enabled, f.routing_enabled, f.routing_top_k, f.agentic_enabled,
            f.chat_model_path, f.embedding_model)  # fmt: skip


@dataclass(frozen=True)
class _Models:
    catalog: gr.HTML
    pick: gr.Dropdown
    download: gr.Button
    cancel: gr.Button
    use: gr.Button
    downloads: gr.HTML
    message: gr.Markdown


def _models(desk: DesktopApp) -> _Models:
    """The model catalog, the model picker with its buttons, and the downloads."""
    gr.Markdown(t("set_models"))
    catalog = gr.HTML(sh.catalog_html(desk), elem_id="model-catalog")
    with gr.Row():
        pick = gr.Dropdown(
            choices=sh.model_choices(desk),
            value=lambda: sh.model_in_use(desk),  # read at each page load: the model in use now
            label=t("set_model"),
            scale=3,
            elem_id="model-pick",
            allow_custom_value=False,
        )
        download = gr.Button(t("set_download"), scale=1, elem_id="download-model")
        cancel = gr.Button(t("set_cancel_download"), scale=1, elem_id="cancel-download")
        use = gr.Button(t("set_use_model"), variant="primary", scale=1, elem_id="use-model")
    downloads = gr.HTML(sh.downloads_html(desk), elem_id="model-downloads")
    models_message = gr.Markdown("", elem_id="models-message")
    return _Models(catalog, pick, download, cancel, use, downloads, models_message)


def _answering(form: SettingsForm) -> list[Any]:
    """The answering settings, in ``SettingsForm`` order."""
    gr.Markdown(t("set_answering"))
    preset = gr.Radio(
        choices=[(t(f"preset_{p}"), p) for p in (*PRESETS, "custom")],  # labels said, values the config's
        value=form.preset,
        label=t("set_preset"),
        info=t("set_preset_info"),
        elem_id="preset",
    )
    context = gr.Checkbox(form.context_enabled, label=t("set_context"), elem_id="context-enabled")
    with gr.Row():
        routing = gr.Checkbox(form.routing_enabled, label=t("set_routing"))
        top_k = gr.Slider(1, 8, value=form.routing_top_k, step=1, label=t("set_top_k"))
    agentic = gr.Checkbox(form.agentic_enabled, label=t("set_agentic"), elem_id="agentic-enabled")
    with gr.Accordion(t("set_other_model"), open=bool(form.chat_model_path)):
        chat_path = gr.Textbox(form.chat_model_path, label=t("set_chat_path"), elem_id="chat-model-path")
        embedding = gr.Textbox(form.embedding_model, label=t("set_embedding"))
    return [preset, context, routing, top_k, agentic, chat_path, embedding]


def _bind_models(desk: DesktopApp, models: _Models, model_status: gr.Markdown) -> None:
    """Download, cancel, use; a half-second timer keeps the catalog and the downloads current."""
    pick, catalog, downloads, models_message = models.pick, models.catalog, models.downloads, models.message

    def on_download(n: str | None, request: gr.Request) -> tuple[str, str, None]:
        return sh.download(desk, n, _language(desk, request))

    def on_cancel(n: str | None, request: gr.Request) -> str:
        return sh.cancel_download(desk, n, _language(desk, request))

    def on_use(n: str | None, request: gr.Request) -> tuple[str, str]:
        language = _language(desk, request)
        return sh.use_model(desk, n, language), model_markdown(desk.model_state(), desk.config, language)

    seen = gr.State(None)  # the version of the catalog and downloads the page shows
    models.download.click(on_download, [pick], [models_message, downloads, seen])
    models.cancel.click(on_cancel, [pick], [models_message])
    models.use.click(on_use, [pick], [models_message, model_status])

    def tick(version: Any, request: gr.Request) -> tuple[Any, ...]:
        p = sh.poll(desk, version, page_language(desk.config.ui.language, request))
        if p is None:  # nothing changed: the version too stays as it is
            return (gr.skip(),) * 3
        return list(p.version), p.catalog_html, p.downloads_html

    gr.Timer(0.5).tick(tick, [seen], [seen, catalog, downloads], show_progress="hidden", queue=False)


def _bind_form(
    desk: DesktopApp,
    inputs: list[Any],
    buttons: tuple[gr.Button, gr.Button],
    message: gr.Markdown,
    model_status: gr.Markdown,
) -> None:
    """The preset radio sets the switches (and says "custom" once they differ); Save; Restore defaults."""
    preset, switches = inputs[0], inputs[1:5]
    save, restore = buttons

    def on_preset(p: str) -> tuple[Any, ...]:
        if p not in PRESETS:  # "custom": the switches stay as they are
            return (gr.skip(),) * len(switches)
        return _form_values(desk.settings.preset_form(p))[1:5]

    def on_restore(request: gr.Request) -> tuple[Any, ...]:
        text, f = sh.restore_defaults(desk, _language(desk, request))
        return (text, *_form_values(f)[:5])

    def on_save(request: gr.Request, *v: Any) -> tuple[Any, ...]:
        language = _language(desk, request)
        said = sh.save_settings(desk, SettingsForm(*v), language)
        return (*said, model_markdown(desk.model_state(), desk.config, language))

    preset.input(on_preset, [preset], switches)
    for switch in switches:
        switch.input(lambda *v: sh.form_preset(desk, SettingsForm(*v)), inputs, [preset])
    save.click(on_save, inputs, [message, preset, model_status])
    restore.click(on_restore, None, [message, preset, *switches])


def build(desk: DesktopApp, opened: gr.Tab | None = None) -> gr.Markdown:
    """Lay the tab out inside the current ``gr.Tab`` (``opened``: that tab, whose opening looks for the
    models on this computer); returns the model status line (the app's timer keeps it current)."""
    form = desk.settings.form()
    gr.Markdown(t("set_heading"))
    language_view.build(desk)
    model_status = gr.Markdown(model_markdown(desk.model_state()), elem_id="settings-model-status")
    local_layout.build(desk, model_status, opened)
    inputs = _answering(form)
    with gr.Row(elem_id="settings-save-row"):  # kept in the window until it scrolls into place (CSS)
        save = gr.Button(t("set_save"), variant="primary", elem_id="save-settings")
        restore = gr.Button(t("set_restore"), elem_id="restore-defaults")
    message = gr.Markdown("", elem_id="settings-message")
    models = _models(desk)
    other_tools.build(desk, ToolsAccess(desk.config_store, desk.api_status), opened)
    files = gr.Markdown(_files_line(desk, "en"), elem_id="settings-files")
    if opened is not None:  # the server's words in the page's language once the tab is opened

        def on_open(request: gr.Request) -> tuple[str, Any]:
            language = page_language(desk.config.ui.language, request)
            return _files_line(desk, language), gr.update(choices=sh.model_choices(desk, language))

        opened.select(on_open, None, [files, models.pick], queue=False)
    _bind_models(desk, models, model_status)
    _bind_form(desk, inputs, (save, restore), message, model_status)
    return model_status


def _language(desk: DesktopApp, request: gr.Request | None) -> Language:
    return page_language(desk.config.ui.language, request)
