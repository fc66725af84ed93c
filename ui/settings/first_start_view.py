"""The first-start hint above the tabs (issue 45): a chat model clearly better than the built-in one is
already on this computer, said once, with one button that uses it (``app.settings.first_start``: files
only at first start, no socket; remembered in the data dir). Layout, wiring and its words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from app.desktop import DesktopApp
from app.models.local_model import LocalModel
from app.settings.first_start import FirstStartHint
from ui.markup import esc, outcome_markdown

__all__ = ["FirstStartView", "bind", "build", "hint_markdown"]


def hint_markdown(model: LocalModel) -> str:
    size = f"{model.size_bytes / 1e9:.1f} GB" if model.size_bytes else "size unknown"
    facts = ", ".join(b for b in (size, model.quantization) if b)
    return (
        f"**A better chat model is already on this computer:** {esc(model.name)} ({esc(model.holder)}, "
        f"{esc(facts)}). It should answer much better than the built-in SmolLM2-135M. It is used where it "
        "is, nothing is copied; Settings lists every model found."
    )


@dataclass(frozen=True)
class FirstStartView:
    box: gr.Group
    text: gr.Markdown
    use: gr.Button
    offered: gr.State
    hint: FirstStartHint


def build(desk: DesktopApp) -> FirstStartView:
    """The hint, hidden until a page load finds something to say (once)."""
    hint = FirstStartHint(desk.data_dir)
    with gr.Group(visible=False, elem_id="first-start-hint") as box:
        text = gr.Markdown("", elem_id="first-start-text")
        use = gr.Button("Use it", variant="primary", elem_id="first-start-use")
    return FirstStartView(box, text, use, gr.State(None), hint)


def bind(desk: DesktopApp, view: FirstStartView, demo: gr.Blocks) -> None:
    def show() -> tuple[Any, ...]:
        model = view.hint.suggestion(desk.config)
        if model is None:
            return gr.skip(), gr.skip(), gr.skip()
        return gr.update(visible=True), hint_markdown(model), model

    def use(model: LocalModel | None) -> tuple[Any, ...]:
        if model is None:
            return gr.skip(), gr.skip()
        return outcome_markdown(desk.settings.use_local(model)), gr.update(visible=False)

    demo.load(show, None, [view.box, view.text, view.offered], show_progress="hidden")
    view.use.click(use, [view.offered], [view.text, view.use])
