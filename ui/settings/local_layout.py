"""The Settings tab's "Models on this computer" (issue 45): looked for when the tab is opened or "Look
again" is pressed (never at start-up, never in the background), one row per model with a Use button.
Layout and wiring only; the handlers are ``ui.settings.local_handlers``."""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

import gradio as gr

from app.desktop import DesktopApp
from app.settings.local_models import LocalModelChoices
from ui.i18n import page_language, t, word
from ui.markup import model_markdown
from ui.settings import local_handlers as lh

__all__ = ["build"]

CSS = """
.kimas-local-model { align-items: center; border-bottom: 1px solid var(--border-color-primary); }
"""


def _row_markup(row: lh.LocalRow) -> str:
    badge = f" <b>{word('loc_in_use', row.language)}</b>" if row.in_use else ""
    return f"<b>{escape(row.name)}</b>{badge}<br><small>{row.facts}</small>"


def build(desk: DesktopApp, model_status: gr.Markdown, opened: gr.Tab | None) -> LocalModelChoices:
    """Lay the section out inside the Settings tab; ``opened``: the tab whose opening looks for models."""
    choices = LocalModelChoices(desk.settings)
    gr.Markdown(t("models_here"))
    with gr.Row():
        message = gr.Markdown(t("loc_waiting"), elem_id="local-models-message")
        again = gr.Button(t("look_again"), scale=0, elem_id="look-again")
    rows = gr.State([])
    used = gr.Markdown("", elem_id="local-use-message")

    def on_use(key: str) -> Callable[[gr.Request], tuple[str, str]]:
        def use(request: gr.Request) -> tuple[str, str]:
            language = page_language(desk.config.ui.language, request)
            return lh.use(choices, key, language), model_markdown(desk.model_state(), desk.config, language)

        return use

    @gr.render(inputs=[rows], triggers=[rows.change])  # type: ignore[untyped-decorator]
    def listing(current: list[lh.LocalRow]) -> None:
        for row in current:
            with gr.Row(elem_classes=["kimas-local-model"]):
                gr.HTML(_row_markup(row))
                if row.usable and not row.in_use:
                    use = gr.Button(t("use_model"), variant="primary", scale=0, min_width=80, size="sm")
                    use.click(on_use(row.key), None, [used, model_status])

    def look(request: gr.Request) -> tuple[Any, ...]:
        return lh.look(desk.config, choices, page_language(desk.config.ui.language, request))

    def looking(request: gr.Request) -> str:
        return word("loc_looking", page_language(desk.config.ui.language, request))

    for trigger in ([opened.select] if opened is not None else []) + [again.click]:
        trigger(looking, None, [message], queue=False).then(
            look, None, [rows, message], show_progress="hidden"
        )
    _keep_current(desk, choices, rows)
    return choices


def _keep_current(desk: DesktopApp, choices: LocalModelChoices, rows: gr.State) -> None:
    """Once a switch loads, "in use" moves: the rows are redrawn from the last listing (nothing is asked)."""
    seen = gr.State(-1)

    def tick(version: int, request: gr.Request) -> tuple[Any, ...]:
        if version == desk.version:
            return gr.skip(), gr.skip()
        language = page_language(desk.config.ui.language, request)
        return desk.version, lh.rows_of(desk.config, choices.models, language)

    # queued: a State changed by an unqueued call does not trigger its change event (the redraw)
    gr.Timer(1.0).tick(tick, [seen], [seen, rows], show_progress="hidden")
