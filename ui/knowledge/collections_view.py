"""The Knowledge tab's collections, indexing progress and recent activity as Markdown and HTML. Pure
functions; everything from documents is escaped."""

from __future__ import annotations

import html
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from app.knowledge.collections import CollectionStatus
from app.knowledge.indexing import Activity, IndexingState
from kimas_desktop.text.visible import visible_name
from kimas_desktop.text.words import truncate
from ui.i18n import Language, counted, spoken, word
from ui.knowledge.documents_view import problem_said
from ui.markup import code, esc

__all__ = ["activity_markdown", "collections_markdown", "progress_html"]


def _when(ts: float | None, language: Language) -> str:
    if not ts:
        return word("coll_never", language)
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))


def collections_markdown(
    items: list[CollectionStatus], advice: Mapping[str, str] = {}, language: Language = "en"
) -> str:
    """``advice``: collection id → the multilingual embedder's recommendation, for those that need it.
    No collections: ``ui.knowledge.handlers.collections_view`` says so in the page's language."""
    blocks = []
    for c in items:
        state = (
            f"**{counted('coll_files', c.files, language)} · {counted('coll_chunks', c.chunks, language)}**"
            if c.indexed
            else f"**{word('coll_not_indexed', language)}**"
        )
        model = word("coll_model", language, model=code(c.embedding_model)) if c.embedding_model else ""
        updated = word("coll_updated", language, when=_when(c.updated_at, language))
        lines = [f"### {esc(visible_name(c.shown))}", f"{state}{model}{updated}", ""]
        if c.damaged:
            why = esc(c.damaged)
            lines.append(f"- ⚠ {word('coll_damaged', language, button=word('reindex', language), why=why)}")
        if c.needs_reembedding:
            lines.append(f"- ⚠ {word('coll_reembed', language, button=word('reembed', language))}")
        if c.name in advice:
            lines.append(f"- {word('coll_advice', language, button=word('use_multilingual', language))}")
        shown = [
            code(visible_name(f))
            + word("coll_uploaded" if f == c.uploads_folder else "coll_watched", language)
            for f in c.folders
        ]
        folders = word("coll_folders", language, folders=", ".join(shown)) if shown else ""
        lines.append(f"- {folders or word('coll_no_folders', language)}")
        s = c.settings
        if s.description or s.examples or s.strategy or s.scale != 1.0:
            routing = word(
                "coll_routing",
                language,
                description=esc(truncate(s.description, 120)) or word("coll_no_description", language),
                examples=word("coll_n_examples", language, n=len(s.examples)) if s.examples else "",
                weight=f"{s.mixin_weight:g}",
                scale=f"{s.scale:g}",
                strategy=esc(s.strategy) or word("coll_default", language),
            )
            lines.append(f"- {routing}")
        if c.problems:
            items_html = "".join(
                f"<li><code>{html.escape(visible_name(p.path))}</code> — "
                f"{problem_said(visible_name(Path(p.path).name), p.kind, p.reason, language)}</li>"
                for p in c.problems
            )
            lines.append(
                f"\n<details><summary>{word('coll_problems', language, n=len(c.problems))}</summary>"
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
        word("idx_now", language, name=html.escape(visible_name(Path(state.current_file).name)))
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
    return counted("idx_ocr", n, language) if n else ""


def _report(a: Activity, language: Language) -> str:
    """A sync's report (code "report") in ``language``: what it did, and in how long."""
    v = a.values
    parts = [word("act_indexed", language, n=v["indexed"], chunks=v["chunks"])] if v["indexed"] else []
    parts += [
        word(f"act_{k}", language, n=v[k]) for k in ("deleted", "unchanged", "skipped", "failed") if v[k]
    ]
    what = word("act_list_sep", language).join(parts) or word("act_no_files", language)
    return word(f"act_{v['trigger'] or 'sync'}", language, what=what, seconds=v["seconds"])


def _activity_text(a: Activity, language: Language) -> str:
    if a.code == "report" and language == "zh":
        return _report(a, language)
    values = dict(a.values)
    if values.get("why_code"):  # the reason's own code ("why_<name>": its values)
        why = {k[4:]: v for k, v in values.items() if k.startswith("why_")}
        values["why"] = spoken(str(why.pop("code")), why, str(values["why"]), language)
    return spoken(a.code, values, a.text, language)


def activity_markdown(items: list[Activity], limit: int = 8, language: Language = "en") -> str:
    """The indexer's recent activity in ``language`` (the app gives each line a code and its values)."""
    if not items:
        return ""
    icon = {"info": "", "problem": "⚠ ", "error": "✗ "}
    lines = [
        f"- {icon[a.kind]}{time.strftime('%H:%M:%S', time.localtime(a.at))}"
        f"{f' · **{esc(a.collection)}**' if a.collection else ''} · {esc(_activity_text(a, language))}"
        for a in items[:limit]
    ]
    return word("activity_title", language) + "\n\n" + "\n".join(lines)
