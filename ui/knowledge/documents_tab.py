"""The Knowledge tab's document manager: the selected collection's files, and actions on one of them."""

from __future__ import annotations

from typing import Any

import gradio as gr

from app.desktop import DesktopApp
from ui.i18n import page_language, t
from ui.knowledge import documents_handlers

__all__ = ["bind", "build", "outputs"]


def build() -> dict[str, Any]:
    """The document manager: the selected collection's files, and actions on one of them."""
    with gr.Accordion(t("files_in_collection"), open=True, elem_id="documents"):
        show = gr.Radio(
            [
                (t("show_all_files"), documents_handlers.SHOW_ALL),
                (t("show_problems_only"), documents_handlers.PROBLEMS_ONLY),
            ],
            value=documents_handlers.SHOW_ALL,
            show_label=False,
            container=False,
            elem_id="documents-filter",
        )
        listing = gr.HTML(elem_id="document-list")
        pick = gr.Dropdown(choices=[], label=t("file_picked"), elem_id="document-select")
        with gr.Row():  # under the picker: in the Knowledge tab's half-width column they keep one line
            remove = gr.Button(
                t("remove_from_collection"), size="sm", variant="stop", elem_id="remove-document"
            )
            reindex = gr.Button(t("reindex_file"), size="sm", elem_id="reindex-document")
            dismiss = gr.Button(t("dismiss_problem"), size="sm", elem_id="dismiss-problem")
        gr.Markdown(t("documents_note"), elem_classes=["kimas-note"])
    return {"show": show, "list": listing, "pick": pick, "buttons": (remove, reindex, dismiss)}


def outputs(view: documents_handlers.DocumentsView) -> tuple[Any, ...]:
    """Values for (list, file picker)."""
    return view.html, gr.update(choices=view.choices, value=view.selected)


def bind(desk: DesktopApp, docs: dict[str, Any], selected: gr.Dropdown, message: gr.Markdown) -> None:
    shown = [docs["list"], docs["pick"]]

    def refresh(c: str | None, show: str, path: str | None, request: gr.Request) -> tuple[Any, ...]:
        language = page_language(desk.config.ui.language, request)
        return outputs(documents_handlers.documents_view(desk, c, show, path, language))

    selected.change(refresh, [selected, docs["show"], docs["pick"]], shown)
    docs["pick"].input(refresh, [selected, docs["show"], docs["pick"]], shown)  # its card below the list
    docs["show"].change(refresh, [selected, docs["show"], docs["pick"]], shown)
    for button, what in zip(docs["buttons"], ("remove", "reindex", "dismiss"), strict=True):

        def on_click(
            c: str | None, path: str | None, show: str, request: gr.Request, what: Any = what
        ) -> tuple[Any, ...]:
            view = documents_handlers.act(
                desk, what, c, path, show, page_language(desk.config.ui.language, request)
            )
            return (*outputs(view), view.message)

        button.click(on_click, [selected, docs["pick"], docs["show"]], [*shown, message])
