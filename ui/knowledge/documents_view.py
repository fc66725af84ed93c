"""The document manager's list (Knowledge tab): one row per file of a collection, as HTML."""

from __future__ import annotations

import html
import time
from collections.abc import Sequence

from app.chat.viewer import viewable
from app.knowledge.documents import Document
from kimas_desktop.text.visible import visible_name
from kimas_desktop.types import CardTable
from ui.i18n import Language, counted, word
from ui.markup import source_url, viewer_url

__all__ = ["card_html", "document_choices", "documents_html", "problem_said"]

_COLUMNS = ("col_file", "col_status", "col_chunks", "col_indexed")  # the table's headers (``ui.i18n``)


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts)) if ts else "—"


def problem_said(name: str, status: str, reason: str, language: Language) -> str:
    """Why file ``name`` was ``status`` ("failed", "skipped", or "indexed" with a note), as HTML in
    ``language``: a sentence that names the file, with ``reason`` (the indexer's or a library's own words)
    shown as technical detail; in English "failed: <reason>"."""
    why = html.escape(reason)
    if language == "zh":
        why = f"<code>{why}</code>"
    label = word(f"status_{status}", language)
    return word(f"docs_problem_{status}", language, status=label, name=html.escape(name), why=why)


def _status(d: Document, language: Language) -> str:
    label = word(f"status_{d.status}", language)
    if d.status == "indexed" and not d.reason:
        return f"<span class='kimas-doc-ok'>✓ {label}</span>"
    text = problem_said(visible_name(d.name), d.status, d.reason, language) if d.reason else label
    if d.dismissed:
        return f"<span class='kimas-doc-dismissed'>{text}{word('docs_dismissed', language)}</span>"
    return f"<span class='kimas-doc-problem'>⚠ {text}</span>"


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
    uploaded = word("docs_uploaded", language)
    rows = "".join(
        f"<tr data-path='{html.escape(d.path)}'><td><a href='{_file_url(d.path)}' target='_blank' "
        f"title='{html.escape(visible_name(d.path))}'>{html.escape(visible_name(d.name))}</a>"
        f"{f' <small>{uploaded}</small>' if d.uploaded else ''}</td>"
        f"<td>{_status(d, language)}</td><td class='num'>{d.chunks}</td><td>{_when(d.indexed_at)}</td></tr>"
        for d in docs
    )
    shown = (
        word("docs_of", language, n=len(docs), total=total)
        if problems_only
        else counted("coll_files", total, language)
    )
    count = word("docs_in", language, files=shown, name=f"<b>{html.escape(title or collection)}</b>")
    headers = "".join(f"<th>{word(column, language)}</th>" for column in _COLUMNS)
    return (
        f"<div class='kimas-docs' data-collection='{html.escape(collection)}'>"
        f"<div class='kimas-docs-count'>{count}</div>"
        f"<table><thead><tr>{headers}</tr></thead><tbody>{rows}</tbody></table></div>"
    )


def _where(page: int | None, line: int | None, language: Language) -> str:
    if page is not None:
        return f" <small>{word('card_page', language, n=page)}</small>"
    return f" <small>{word('card_line', language, n=line)}</small>" if line is not None else ""


def card_html(doc: Document | None, language: Language = "en") -> str:
    """The selected file's card: its title, its central sentences and its outline (``indexer.upkeep.cards``)."""
    if doc is None or doc.status != "indexed":
        return ""
    card = doc.card
    if card is None:
        return f"<div class='kimas-doc-card'><p class='kimas-note'>{word('card_none', language)}</p></div>"
    said = (
        " ".join(html.escape(s.text) for s in card.synopsis)
        or f"<i>{word('card_no_sentences', language)}</i>"
    )
    items = "".join(
        f"<li style='margin-left:{(s.level - 1) * 1.2:.1f}em'>{html.escape(s.title)}"
        f"{_where(s.page, s.line, language)}</li>"
        for s in card.outline
    )
    outline = (
        f"<details open><summary>{counted('card_outline', len(card.outline), language)}"
        f"</summary><ul>{items}</ul></details>"
        if card.outline
        else f"<p class='kimas-note'>{word('card_no_headings', language)}</p>"
    )
    what = _language(card.language, bool(card.tables), language)
    return (
        f"<div class='kimas-doc-card' data-path='{html.escape(doc.path)}'>"
        f"<div class='kimas-doc-card-title'><b>{html.escape(card.title)}</b> "
        f"<small>{word('card_what', language, details=what)}</small></div>"
        f"{_tables_html(card.tables, language)}<p>{said}</p>{outline}</div>"
    )


def _language(code: str, tables: bool, language: Language) -> str:
    """The card's language: its code; "zxx" (the language identifier's "no linguistic content": numbers,
    codes, a spreadsheet's cells) said as no language, a table's or not (issue 69: "language: zxx")."""
    if code == "zxx":
        return word("card_table_no_language" if tables else "card_no_language", language)
    return word("card_language", language, name=html.escape(code)) if code not in ("", "und") else ""


def _tables_html(tables: Sequence[CardTable], language: Language) -> str:
    """A spreadsheet's or CSV's tables: sheet, rows, header row, each column with its kind."""
    if not tables:
        return ""
    items = "".join(
        f"<li><b>{html.escape(t.sheet or word('card_table', language))}</b>: "
        + word("card_rows", language, n=f"{t.rows:,}", s="" if t.rows == 1 else "s")
        + (f" <small>{word('card_header_row', language, n=t.header_row)}</small>" if t.header_row else "")
        + "; "
        + ", ".join(f"{html.escape(name)} <small>({html.escape(kind)})</small>" for name, kind in t.columns)
        + "</li>"
        for t in tables
    )
    return f"<details open><summary>{word('card_tables', language, n=len(tables))}</summary><ul>{items}</ul></details>"


def document_choices(docs: Sequence[Document]) -> list[tuple[str, str]]:
    """(label, path) for the file picker: the name, marked when it has a problem."""
    return [(("⚠ " if d.problem else "") + visible_name(d.name), d.path) for d in docs]
