"""The Knowledge tab's collections, indexing progress and recent activity as Markdown and HTML. Pure
functions; everything from documents is escaped."""

from __future__ import annotations

import html
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from app.knowledge.collections import CollectionStatus
from app.knowledge.indexing import Activity, IndexingState
from app.models.languages import SWITCH_BUTTON
from kimas_desktop.text.words import truncate
from ui.i18n import Language, word
from ui.markup import code, esc

__all__ = ["activity_markdown", "collections_markdown", "progress_html"]


def _when(ts: float | None) -> str:
    if not ts:
        return "never"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))


def collections_markdown(items: list[CollectionStatus], advice: Mapping[str, str] = {}) -> str:
    """``advice``: collection id → the multilingual embedder's recommendation, for those that need it.
    No collections: ``ui.knowledge.handlers.collections_view`` says so in the page's language."""
    blocks = []
    for c in items:
        state = (
            f"**{c.files} file{'s' if c.files != 1 else ''} · {c.chunks} chunk{'s' if c.chunks != 1 else ''}**"
            if c.indexed
            else "**not indexed yet**"
        )
        model = f" · embedding model {code(c.embedding_model)}" if c.embedding_model else ""
        lines = [f"### {esc(c.shown)}", f"{state}{model} · last update {_when(c.updated_at)}", ""]
        if c.damaged:
            lines.append(
                f"- ⚠ **Index damaged, being rebuilt from its files** (Re-index does the same): {esc(c.damaged)}"
            )
        if c.needs_reembedding:
            lines.append(
                "- ⚠ **Needs re-embedding**: built with another embedding model than the one in Settings. "
                "Press **Re-embed**; it keeps answering from its old index until the new one is complete."
            )
        if c.name in advice:
            lines.append(
                "- 🌐 **Most of these documents are not in English** and the embedding model reads English "
                f"only. Press **{SWITCH_BUTTON}** below the collections: it downloads the multilingual "
                "model when needed, switches to it and re-embeds in the background."
            )
        if c.folders:
            shown = [
                code(f) + (" (uploaded files)" if f == c.uploads_folder else " (watched in place)")
                for f in c.folders
            ]
            lines.append("- Folders: " + ", ".join(shown))
        else:
            lines.append("- Folders: none yet")
        s = c.settings
        if s.description or s.examples or s.strategy or s.scale != 1.0:
            lines.append(
                f"- Routing: {esc(truncate(s.description, 120)) or 'no description'}"
                f"{f'; {len(s.examples)} example(s)' if s.examples else ''}; weight {s.mixin_weight:g};"
                f" scale {s.scale:g}; rewrite {esc(s.strategy or 'default')}"
            )
        if c.problems:
            items_html = "".join(
                f"<li><code>{html.escape(p.path)}</code> — {html.escape(p.kind)}: {html.escape(p.reason)}</li>"
                for p in c.problems
            )
            lines.append(
                f"\n<details><summary>{len(c.problems)} file(s) skipped or failed</summary>"
                f"<ul>{items_html}</ul></details>"
            )
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def progress_html(
    state: IndexingState, others: Sequence[IndexingState] = (), language: Language = "en"
) -> str:
    """``state``: the longest-running sync (or idle); ``others``: syncs of other collections beside it."""

    def files(s: IndexingState) -> str:
        return word("idx_files", language, done=s.files_done, total=s.files_total) + _ocr(s, language)

    also = "".join(
        f"<div class='kimas-also'>{word('idx_also', language, name=_bold(o.collection), files=files(o))}</div>"
        for o in others
        if o.active
    )
    waiting = also + (
        f"<div class='kimas-waiting'>{word('idx_waiting', language, names=html.escape(', '.join(state.waiting)))}</div>"
        if state.waiting
        else ""
    )
    if state.paused and not state.active:
        return f"<div class='kimas-progress idle' data-state='paused'>{word('idx_paused', language)}{waiting}</div>"
    if not state.active:
        label = word("idx_queued" if state.waiting else "idx_idle", language)
        return f"<div class='kimas-progress idle' data-state='idle'>{label}{waiting}</div>"
    pct = round(100 * state.fraction)
    total = files(state) if state.files_total else word("idx_scanning", language) + _ocr(state, language)
    now = (
        word("idx_now", language, name=html.escape(Path(state.current_file).name))
        if state.current_file
        else ""
    )
    eta = word("idx_eta", language, s=f"{state.eta_s:.0f}") if state.eta_s is not None else ""
    why = f" ({html.escape(state.trigger)})" if state.trigger else ""
    doing, phase = ("idx_paused_in", "paused") if state.paused else ("idx_active", "active")
    line = word(doing, language, name=_bold(state.collection), why=why, files=total)
    return (
        f"<div class='kimas-progress' data-state='{phase}'><div>{line}{now}{eta}</div>"
        f"<div class='kimas-bar'><div style='width:{pct}%'></div></div>{waiting}</div>"
    )


def _bold(name: str) -> str:
    return f"<b>{html.escape(name)}</b>"


def _ocr(state: IndexingState, language: Language) -> str:
    n = state.ocr_pages_waiting
    return word("idx_ocr", language, n=n, s="" if n == 1 else "s") if n else ""


def activity_markdown(items: list[Activity], limit: int = 8) -> str:
    if not items:
        return ""
    icon = {"info": "", "problem": "⚠ ", "error": "✗ "}
    lines = [
        f"- {icon[a.kind]}{time.strftime('%H:%M:%S', time.localtime(a.at))}"
        f"{f' · **{esc(a.collection)}**' if a.collection else ''} · {esc(a.text)}"
        for a in items[:limit]
    ]
    return "**Recent activity**\n\n" + "\n".join(lines)
