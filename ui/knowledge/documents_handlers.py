"""Document manager handlers (Knowledge tab) as plain functions of the app and the widgets' values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.desktop import DesktopApp
from kimas_desktop.errors import KimasError
from ui.i18n import Language, told
from ui.knowledge.documents_view import card_html, document_choices, documents_html
from ui.knowledge.handlers import refused
from ui.markup import outcome_markdown, store_problem

__all__ = ["PROBLEMS_ONLY", "SHOW_ALL", "DocumentsView", "act", "documents_view"]

SHOW_ALL = "All files"
PROBLEMS_ONLY = "Problems only"


@dataclass(frozen=True)
class DocumentsView:
    html: str
    choices: list[tuple[str, str]]  # (label, path) for the file picker
    selected: str | None
    message: str = ""


def documents_view(
    desk: DesktopApp,
    collection: str | None,
    show: str = SHOW_ALL,
    selected: str | None = None,
    language: Language = "en",
    fallback: str | None = None,
) -> DocumentsView:
    """The files of ``collection`` (only those with a problem when ``show`` is ``PROBLEMS_ONLY``), with the
    card of ``selected``, else of ``fallback``, else of the first, whichever is listed first."""
    if not collection:
        return DocumentsView(
            documents_html("", [], problems_only=False, total=0, language=language), [], None
        )
    try:
        docs = desk.list_documents(collection)
        title = desk.knowledge.title(collection)
    except KimasError as err:
        said = desk.explain_said(err, "listing the files")
        message = told(said, said.english, language)
        return DocumentsView(store_problem(message, str(desk.log_file), language), [], None)
    desk.sources.remember(d.path for d in docs)  # so the list's links open the files
    problems_only = show == PROBLEMS_ONLY
    shown = [d for d in docs if d.problem] if problems_only else docs
    choices = document_choices(shown)
    listed = {path for _, path in choices}
    if selected not in listed:
        selected = fallback if fallback in listed else choices[0][1] if choices else None
    body = documents_html(
        collection, shown, problems_only=problems_only, total=len(docs), title=title, language=language
    )
    body += card_html(next((d for d in shown if d.path == selected), None), language)
    return DocumentsView(body, choices, selected)


def act(
    desk: DesktopApp,
    what: Literal["remove", "reindex", "dismiss"],
    collection: str | None,
    path: str | None,
    show: str = SHOW_ALL,
    language: Language = "en",
) -> DocumentsView:
    """``what``: "remove", "reindex" or "dismiss" the file ``path`` of ``collection``."""
    if not collection or not path:
        outcome = refused("choose_file")
    elif what == "remove":
        outcome = desk.remove_document(collection, path)
    elif what == "reindex":
        outcome = desk.reindex_document(collection, path)
    else:
        outcome = desk.dismiss_problem(collection, path)
    view = documents_view(desk, collection, show, path, language)
    return DocumentsView(view.html, view.choices, view.selected, outcome_markdown(outcome, language))
