"""The Knowledge tab's document manager: the selected collection's files, and actions on one of them."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import gradio as gr

from app.desktop import DesktopApp
from ui.i18n import page_language, t
from ui.knowledge import documents_handlers

__all__ = ["Picks", "bind", "build", "outputs", "timed_view"]


class Picks:
    """The file each page (Gradio session) was last shown by an event of its own: a pick, a filter, another
    collection, an action on a file, the page's first view.

    The one-second timer sends the picker's value as it was when the tick was sent: answered after the
    person picked another file, it put the old file and its card back for good (a busy machine widens that
    window to seconds). The timer prefers ``last``. Bounded: the oldest pages are forgotten first."""

    def __init__(self, pages: int = 256) -> None:
        self._pages = pages
        self._picked: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def remember(self, page: str | None, path: str | None) -> None:
        if page is None or not path:
            return
        with self._lock:
            self._picked[page] = path
            self._picked.move_to_end(page)
            while len(self._picked) > self._pages:
                self._picked.popitem(last=False)

    def last(self, page: str | None) -> str | None:
        with self._lock:
            return self._picked.get(page) if page is not None else None


def timed_view(
    desk: DesktopApp, picks: Picks, c: str | None, show: str, sent: str | None, request: gr.Request
) -> documents_handlers.DocumentsView | None:
    """The files for the timer, with the card of the file this page's own events last showed while it is
    listed, else of the one the tick ``sent``; None when such an event came while they were read (it drew
    them)."""
    language = page_language(desk.config.ui.language, request)
    last = picks.last(request.session_hash)
    view = documents_handlers.documents_view(desk, c, show, last or sent, language, fallback=sent)
    return view if picks.last(request.session_hash) == last else None


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
        # A tick sent before a file was removed still carries it: Gradio would refuse that value, and every
        # later tick with it, so the list would stop updating. documents_view checks the value instead.
        pick = gr.Dropdown(
            choices=[], label=t("file_picked"), elem_id="document-select", allow_custom_value=True
        )
        with gr.Row():  # under the picker: in the Knowledge tab's half-width column they keep one line
            remove = gr.Button(
                t("remove_from_collection"), size="sm", variant="stop", elem_id="remove-document"
            )
            reindex = gr.Button(t("reindex_file"), size="sm", elem_id="reindex-document")
            dismiss = gr.Button(t("dismiss_problem"), size="sm", elem_id="dismiss-problem")
        gr.Markdown(t("documents_note"), elem_classes=["kimas-note"])
    return {
        "show": show,
        "list": listing,
        "pick": pick,
        "buttons": (remove, reindex, dismiss),
        "picks": Picks(),
    }


def outputs(view: documents_handlers.DocumentsView) -> tuple[Any, ...]:
    """Values for (list, file picker)."""
    return view.html, gr.update(choices=view.choices, value=view.selected)


def bind(desk: DesktopApp, docs: dict[str, Any], selected: gr.Dropdown, message: gr.Markdown) -> None:
    shown = [docs["list"], docs["pick"]]
    picks: Picks = docs["picks"]

    def refresh(c: str | None, show: str, path: str | None, request: gr.Request) -> tuple[Any, ...]:
        language = page_language(desk.config.ui.language, request)
        view = documents_handlers.documents_view(desk, c, show, path, language)
        picks.remember(request.session_hash, view.selected)  # what the timer keeps showing
        return outputs(view)

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
            picks.remember(request.session_hash, view.selected)
            return (*outputs(view), view.message)

        button.click(on_click, [selected, docs["pick"], docs["show"]], [*shown, message])
