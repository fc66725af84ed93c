"""The language of the app's own words and labels (issue 42), a Settings choice over the browser's: saved
as ``[ui] language``, applied to the tables Gradio serves (``ui.i18n.apply_language``), shown by reloading
the page. Layout and wiring only."""

from __future__ import annotations

import gradio as gr

from app.desktop import DesktopApp
from ui.i18n import I18N, LANGUAGES, Language, apply_language, page_language, t
from ui.markup import outcome_markdown

__all__ = ["build", "choose"]

RELOAD_JS = "(message) => { if (message && !message.startsWith('⚠')) { window.location.reload(); } }"


def choose(desk: DesktopApp, language: str, page: Language = "en") -> str:
    """Save ``language`` and make the pages served from now on say it; the message, in ``page``: the
    language of the page it was chosen on (the page then reloads in the new one)."""
    result = desk.settings.set_language(language)
    if result.ok:
        apply_language(I18N, desk.config.ui.language)
    return outcome_markdown(result, page)


def build(desk: DesktopApp) -> None:
    with gr.Row():
        pick = gr.Radio(
            choices=[(t("ui_language_auto") if v == "auto" else label, v) for v, label in LANGUAGES.items()],
            value=lambda: desk.config.ui.language,  # read at each page load: the saved choice
            label=t("ui_language"),
            info=t("ui_language_info"),
            elem_id="ui-language",
        )
    message = gr.Markdown("", elem_id="ui-language-message")

    def on_pick(v: str, request: gr.Request) -> str:
        return choose(desk, v, page_language(desk.config.ui.language, request))

    pick.input(on_pick, [pick], [message]).then(None, [message], None, js=RELOAD_JS)
