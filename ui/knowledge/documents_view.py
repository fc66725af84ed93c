"""The document manager's list (Knowledge tab): one row per file of a collection, as HTML."""

from __future__ import annotations

import html
import time
from collections.abc import Sequence

from app.chat.viewer import viewable
from app.knowledge.documents import Document
from kimas_desktop.types import CardTable
from ui.i18n import Language, word
from ui.markup import source_url, viewer_url

__all__ = ["STATUS_LABELS", "card_html", "document_choices", "documents_html"]

STATUS_LABELS = {"indexed": "indexed", "skipped": "skipped", "failed": "failed"}


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts)) if ts else "—"


def _status(d: Document) -> str:
    label = STATUS_LABELS[d.status]
    if d.status == "indexed" and not d.reason:
        return f"<span class='kimas-doc-ok'>✓ {label}</span>"
    why = f": {html.escape(d.reason)}" if d.reason else ""
    if d.dismissed:
        return f"<span class='kimas-doc-dismissed'>{label}{why} (dismissed)</span>"
    return f"<span class='kimas-doc-problem'>⚠ {label}{why}</span>"


def _file_url(path: str) -> str:
    """A file opens in the viewer page when its kind is viewed there, else as itself (sandboxed)."""
    return viewer_url(path) if viewable(path) else source_url(path)


def documents_html(
    collection: str,
    docs: Sequence[Document],
    *,
    problems_only: bool,
    total: int,
    title: str = "",
    language: Language = "en",
) -> str:
    """``docs``: the rows to show (already filtered); ``total``: files in the collection; ``title``: the
    collection's name as the user wrote it (its id when empty)."""
    if not collection or not docs:
        empty = (
            "docs_choose"
            if not collection
            else "docs_no_problems"
            if problems_only and total
            else "docs_none"
        )
        return f"<p class='kimas-docs-empty'>{word(empty, language)}</p>"
    rows = "".join(
        f"<tr data-path='{html.escape(d.path)}'><td><a href='{_file_url(d.path)}' target='_blank' "
        f"title='{html.escape(d.path)}'>{html.escape(d.name)}</a>"
        f"{' <small>(uploaded)</small>' if d.uploaded else ''}</td>"
        f"<td>{_status(d)}</td><td class='num'>{d.chunks}</td><td>{_when(d.indexed_at)}</td></tr>"
        for d in docs
    )
    shown = f"{len(docs)} of {total} files" if problems_only else f"{total} file{'s' if total != 1 else ''}"
    return (
        f"<div class='kimas-docs' data-collection='{html.escape(collection)}'>"
        f"<div class='kimas-docs-count'>{shown} in <b>{html.escape(title or collection)}</b></div>"
        "<table><thead><tr><th>File</th><th>Status</th><th>Chunks</th><th>Last indexed</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></div>"
    )


def _where(page: int | None, line: int | None) -> str:
    return f"p. {page}" if page is not None else f"line {line}" if line is not None else ""


def card_html(doc: Document | None) -> str:
    """The selected file's card: its title, its central sentences and its outline (``indexer.upkeep.cards``)."""
    if doc is None or doc.status != "indexed":
        return ""
    card = doc.card
    if card is None:
        return "<div class='kimas-doc-card'><p class='kimas-note'>No card yet: it is made on the next sync.</p></div>"
    said = (
        " ".join(html.escape(s.text) for s in card.synopsis)
        or "<i>No sentences to show (code or tables).</i>"
    )
    items = "".join(
        f"<li style='margin-left:{(s.level - 1) * 1.2:.1f}em'>{html.escape(s.title)}"
        f"{f' <small>({_where(s.page, s.line)})</small>' if _where(s.page, s.line) else ''}</li>"
        for s in card.outline
    )
    outline = (
        f"<details open><summary>Outline ({len(card.outline)} heading{'s' if len(card.outline) != 1 else ''})"
        f"</summary><ul>{items}</ul></details>"
        if card.outline
        else "<p class='kimas-note'>No headings.</p>"
    )
    return (
        f"<div class='kimas-doc-card' data-path='{html.escape(doc.path)}'>"
        f"<div class='kimas-doc-card-title'><b>{html.escape(card.title)}</b> <small>(document card"
        f"{f', language: {html.escape(card.language)}' if card.language not in ('', 'und') else ''})</small></div>"
        f"{_tables_html(card.tables)}<p>{said}</p>{outline}</div>"
    )


def _tables_html(tables: Sequence[CardTable]) -> str:
    """A spreadsheet's or CSV's tables: sheet, rows, header row, each column with its kind."""
    if not tables:
        return ""
    items = "".join(
        f"<li><b>{html.escape(t.sheet or 'Table')}</b>: {t.rows:,} row{'s' if t.rows != 1 else ''}"
        f"{f' <small>(header on row {t.header_row})</small>' if t.header_row else ''}; "
        + ", ".join(f"{html.escape(name)} <small>({html.escape(kind)})</small>" for name, kind in t.columns)
        + "</li>"
        for t in tables
    )
    return f"<details open><summary>Tables ({len(tables)})</summary><ul>{items}</ul></details>"


def document_choices(docs: Sequence[Document]) -> list[tuple[str, str]]:
    """(label, path) for the file picker: the name, marked when it has a problem."""
    return [(("⚠ " if d.problem else "") + d.name, d.path) for d in docs]
