"""The Knowledge tab's one click to the multilingual embedding model (issue 42): the button and the switch's
state line, in the page's language (issue 60). Wiring only; the handlers are ``ui.knowledge.handlers``."""

from __future__ import annotations

from typing import Any

import gradio as gr

from app.desktop import DesktopApp
from ui.i18n import page_language
from ui.knowledge import handlers as kh

__all__ = ["bind"]


def bind(desk: DesktopApp, button: gr.Button, status: gr.Markdown) -> None:
    """The button starts the switch; a timer of its own shows the switch's state and shows the button while
    a collection needs it (read again only when the collections changed or a switch runs)."""
    seen = gr.State(-1)

    def refresh(version: int, request: gr.Request) -> tuple[Any, ...]:
        if version == desk.version and desk.multilingual.state().phase == "idle":
            return version, gr.skip(), gr.skip()
        shown, said = kh.multilingual_status(desk, page_language(desk.config.ui.language, request))
        return desk.version, gr.update(visible=shown), said

    def switch(request: gr.Request) -> tuple[Any, str]:
        language = page_language(desk.config.ui.language, request)
        return gr.update(visible=False), kh.multilingual_switch(desk, language)

    button.click(switch, None, [button, status])
    gr.Timer(2.0).tick(refresh, [seen], [seen, button, status], show_progress="hidden", queue=False)
