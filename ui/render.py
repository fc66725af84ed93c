"""Session values → Gradio chat messages, Markdown and HTML. Pure functions; nothing here decides anything.

Everything that comes from documents or models is escaped before it is put into markup.
"""

from __future__ import annotations

import html
import time
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from app.conversation import Conversation, Turn
from app.conversations import ConversationSummary
from app.desktop import ModelState, Outcome
from app.indexing import Activity, IndexingState
from app.knowledge import CollectionStatus
from app.sources import source_token
from kimas_desktop.answer.writing.markers import Marker, place_markers
from kimas_desktop.text.words import truncate
from kimas_desktop.types import Chunk, Citation, Quote, SentenceSupport
from ui.markup import code, esc
from ui.trace_view import trace_markdown

SOURCE_ROUTE = "/kimas/source"  # serves cited files; registered by cli/serve_cmd.py
TRACE_TITLE = "How this answer was made"
NO_KNOWLEDGE_HINT = (
    "**No knowledge yet.** Open the **Knowledge** tab, create a collection and drop files or a whole "
    "folder onto it (or add a folder to watch). Then ask your questions here."
)
READY_HINT = "Ask a question about your documents. Answers cite the files they come from."
SEND_WHILE_ANSWERING = (
    "Sending a question while an answer is being written stops that answer (it keeps what it found) "
    "and asks the new one. **Regenerate** writes a different answer; the earlier ones stay below it."
)


def _when(ts: float | None) -> str:
    if not ts:
        return "never"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))


def source_url(path: str, page: int | None = None) -> str:
    url = f"{SOURCE_ROUTE}/{source_token(path)}/{quote(Path(path).name)}"
    return url + (f"#page={page}" if page else "")


# -- chat --------------------------------------------------------------------------------------------


def chunk_html(chunk: Chunk, start: int | None = None, end: int | None = None) -> str:
    """The whole chunk, escaped, with ``chunk.text[start:end]`` (the cited sentence) highlighted."""
    text = chunk.text
    if start is None or end is None or not 0 <= start < end <= len(text):
        body = html.escape(text.strip())
    else:
        body = (
            html.escape(text[:start].lstrip())
            + f"<mark class='kimas-cited'>{html.escape(text[start:end])}</mark>"
            + html.escape(text[end:].rstrip())
        )
    return body.replace("\n", "<br>")


def source_name(chunk: Chunk) -> str:
    """What a source is called on the page: a file's name, or a web page's site."""
    return urlsplit(chunk.source).hostname or chunk.source if chunk.online else Path(chunk.source).name


def _open_link(chunk: Chunk) -> str:
    if chunk.online:  # the page itself, opened by the browser outside the app (no referrer sent)
        retrieved = (
            time.strftime("%Y-%m-%d %H:%M", time.localtime(chunk.indexed_at)) if chunk.indexed_at else ""
        )
        when = f" · retrieved {retrieved}" if retrieved else ""
        return (
            f"<div class='kimas-open'><a href='{html.escape(chunk.source, quote=True)}' target='_blank' "
            f"rel='noopener noreferrer'>Open the page</a> <code>{html.escape(chunk.source)}</code>"
            f"{when}</div>"
        )
    name = Path(chunk.source).name
    return (
        f"<div class='kimas-open'><a href='{source_url(chunk.source, chunk.page)}' target='_blank' "
        f"rel='noopener'>Open {html.escape(name)}</a> <code>{html.escape(chunk.source)}</code></div>"
    )


def _source_details(
    n: int, chunk: Chunk, summary: str, start: int | None, end: int | None, anchor: str = ""
) -> str:
    where = f" · {html.escape(chunk.locator)}" if chunk.locator else ""
    if chunk.online:
        where = f" · web ({html.escape(chunk.collection)})"
    heading = f"<div class='kimas-heading'>{html.escape(chunk.heading)}</div>" if chunk.heading else ""
    at = f" id='{anchor}'" if anchor else ""
    return (
        f"<details class='kimas-citation'{at}><summary>[{n}] <b>{html.escape(source_name(chunk))}</b>{where}{summary}</summary>"
        f"{heading}<div class='kimas-chunk'>{chunk_html(chunk, start, end)}</div>{_open_link(chunk)}"
        "</details>"
    )


def citation_html(c: Citation, key: str = "") -> str:
    """One citation: number, file, page or lines, the cited sentence (or snippet); expands to the whole
    chunk with that sentence highlighted, and a link. ``key`` (unique on the page) anchors it for the
    answer's [n] markers."""
    shown = " ".join((c.sentence or c.snippet).split())
    anchor = source_anchor(key, c.n) if key else ""
    return _source_details(c.n, c.chunk, f" — “{html.escape(shown)}”", c.start, c.end, anchor)


def source_anchor(key: str, n: int) -> str:
    return f"kimas-src-{key}-{n}"


def marker_html(key: str, n: int) -> str:
    """An inline [n] that jumps to source ``n`` of the answer ``key``."""
    return f"<sup class='kimas-marker'><a href='#{source_anchor(key, n)}'>[{n}]</a></sup>"


def quote_html(quotes: Sequence[Quote], answerable: bool) -> str:
    """The grounded quote, first in the answer: verbatim words of the user's documents, with where they
    are; each expands to its chunk with the quoted words highlighted."""
    label = "From your documents" if answerable else "Closest passages in your documents"
    blocks = [
        f"<blockquote class='kimas-quote'>“{html.escape(q.display)}”</blockquote>"
        + _source_details(q.n, q.chunk, "", q.start, q.end)
        for q in quotes
    ]
    return f"<div class='kimas-quotes' data-answerable='{str(answerable).lower()}'>" + (
        f"<div class='kimas-quote-label'>{label}</div>" + "".join(blocks) + "</div>"
    )


def marked_answer(
    answer: str, support: Sequence[SentenceSupport], markers: Sequence[Marker] = (), key: str = ""
) -> str:
    """The answer with each sentence the sources do not back marked (and why, on hover), and an [n]
    after each sentence source n backs (``markers``, linked to the sources of answer ``key``)."""
    if markers:
        # Markers go after supported sentences only, so they never fall inside a flagged one: mark the
        # pieces between them.
        cuts = [0, *(m.at for m in markers), len(answer)]
        pieces = []
        for i, (a, b) in enumerate(pairwise(cuts)):
            inside = [replace(s, start=s.start - a, end=s.end - a) for s in support if a <= s.start < b]
            pieces.append(marked_answer(answer[a:b], inside))
            if i < len(markers):
                pieces.append(marker_html(key, markers[i].source))
        return "".join(pieces)
    flagged = [s for s in support if not s.supported and answer[s.start : s.end] == s.text]
    if not flagged:
        return answer
    out = []
    pos = 0
    for s in sorted(flagged, key=lambda x: x.start):
        if s.start < pos:
            continue
        why = f"not in the sources: {', '.join(s.missing)}" if s.missing else "not found in the sources"
        out.append(answer[pos : s.start])
        out.append(
            f"<span class='kimas-unsupported' title='{html.escape(why, quote=True)}'>{esc(s.text)}</span>"
            "<sup class='kimas-flag' title='unsupported'>⚠</sup>"
        )
        pos = s.end
    out.append(answer[pos:])
    return "".join(out)


def answer_markdown(turn: Turn, key: str = "") -> str:
    """One answer as the chat shows it; ``key`` (unique on the page) links its [n] markers to its
    sources."""
    parts = []
    if turn.quotes:
        answerable = turn.answerability is None or turn.answerability.answerable
        parts.append(quote_html(turn.quotes, answerable))
    if turn.answer:
        if turn.finished and turn.support:
            shown = {c.n for c in turn.citations}
            markers = place_markers(turn.answer, turn.support, shown) if key else ()
            parts.append(marked_answer(turn.answer, turn.support, markers, key).strip())
        else:
            parts.append(turn.answer.strip() if turn.finished else turn.answer)
        if turn.finished and turn.uses_quote is False:
            parts.append(
                "<div class='kimas-support-note'>⚠ The model's answer does not use the quoted passage above; "
                "the quote is what your documents say.</div>"
            )
        if turn.finished and turn.support and any(not s.supported for s in turn.support):
            n = sum(1 for s in turn.support if not s.supported)
            parts.append(
                f"<div class='kimas-support-note'>⚠ {n} sentence{'s' if n != 1 else ''} of this answer "
                "could not be found in the sources.</div>"
            )
    elif turn.state == "running":
        parts.append(f"_{esc(turn.status or 'Thinking…')}_")
    if turn.finished and not turn.answered_from_sources and turn.quotes:
        parts.append("_Press **Regenerate** to let the model try anyway._")
    if turn.state == "stopped":
        parts.append(f"_Stopped ({turn.stopped_because})._" if turn.stopped_because else "_Stopped._")
    if turn.state == "failed":
        parts.append(f"⚠ **Could not answer:** {esc(turn.error)}")
    if turn.citations:
        parts.append("**Sources**\n\n" + "\n".join(citation_html(c, key) for c in turn.citations))
    elif turn.state == "done" and not turn.citations_available:
        parts.append("_Citations are unavailable for this answer._")
    elif turn.state == "stopped" and turn.trace is not None and turn.trace.evidence:
        found = [
            _source_details(i + 1, h.chunk, "", None, None) for i, h in enumerate(turn.trace.evidence[:5])
        ]
        parts.append("**Sources found before it stopped**\n\n" + "\n".join(found))
    if turn.earlier:
        parts.append(earlier_html(turn.earlier))
    return "\n\n".join(parts)


def earlier_html(earlier: Sequence[Turn]) -> str:
    """The answers Regenerate replaced, folded under the current one (each with its sources)."""
    blocks = []
    for i, t in enumerate(earlier, 1):
        cited = "".join(citation_html(c) for c in t.citations)
        state = " (stopped)" if t.state == "stopped" else ""
        blocks.append(
            f"<div class='kimas-earlier-answer'><div class='kimas-quote-label'>Answer {i}{state}</div>"
            f"<div>{html.escape(t.answer.strip() or t.error or '(no answer)')}</div>{cited}</div>"
        )
    n = len(earlier)
    return (
        f"<details class='kimas-earlier'><summary>{n} earlier answer{'s' if n != 1 else ''} to this question"
        f"</summary>{''.join(blocks)}</details>"
    )


def chat_messages(conv: Conversation | None) -> list[dict[str, Any]]:
    """The Chatbot's value: each turn's question, answer (with sources) and, once done, its trace."""
    out: list[dict[str, Any]] = []
    for i, turn in enumerate(conv.turns if conv else []):
        out.append({"role": "user", "content": turn.question})
        out.append({"role": "assistant", "content": answer_markdown(turn, f"{i + 1}")})
        if turn.trace is not None and turn.finished:
            out.append(
                {
                    "role": "assistant",
                    "content": trace_markdown(turn.trace),
                    "metadata": {"title": TRACE_TITLE, "status": "done"},
                }
            )
    return out


def conversation_choices(items: Sequence[ConversationSummary]) -> list[tuple[str, str]]:
    """The sidebar's entries: title and date (time of day for today's), newest first."""
    today = time.strftime("%Y-%m-%d")

    def when(ts: float) -> str:
        day = time.strftime("%Y-%m-%d", time.localtime(ts))
        return time.strftime("%H:%M", time.localtime(ts)) if day == today else day

    return [(f"{c.title} · {when(c.updated_at)}", c.id) for c in items]


def history_note(problem: str, *, searching: bool, found: bool) -> str:
    """Under the sidebar: why conversations are not saved, or that a search found nothing."""
    if problem:
        return f"⚠ {esc(problem)}"
    if searching and not found:
        return "_No conversation matches._"
    if not found:
        return "_Your conversations will be listed here._"
    return ""


# -- knowledge ---------------------------------------------------------------------------------------


def collections_markdown(items: list[CollectionStatus]) -> str:
    if not items:
        return (
            "_No collections yet._ Create one on the right, then drop files or a folder onto it, "
            "or add a folder on this computer to watch."
        )
    blocks = []
    for c in items:
        state = (
            f"**{c.files} file{'s' if c.files != 1 else ''} · {c.chunks} chunk{'s' if c.chunks != 1 else ''}**"
            if c.indexed
            else "**not indexed yet**"
        )
        model = f" · embedding model {code(c.embedding_model)}" if c.embedding_model else ""
        lines = [f"### {esc(c.name)}", f"{state}{model} · last update {_when(c.updated_at)}", ""]
        if c.damaged:
            lines.append(
                f"- ⚠ **Index damaged, being rebuilt from its files** (Re-index does the same): {esc(c.damaged)}"
            )
        if c.needs_reembedding:
            lines.append(
                "- ⚠ **Needs re-embedding**: built with another embedding model than the one in Settings. "
                "Press **Re-embed**; it keeps answering from its old index until the new one is complete."
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


def progress_html(state: IndexingState, others: Sequence[IndexingState] = ()) -> str:
    """``state``: the longest-running sync (or idle); ``others``: syncs of other collections beside it."""
    also = "".join(
        f"<div class='kimas-also'>Also indexing <b>{html.escape(o.collection)}</b>: "
        f"{o.files_done} / {o.files_total} files{_ocr_waiting(o)}</div>"
        for o in others
        if o.active
    )
    waiting = also + (
        f"<div class='kimas-waiting'>Waiting: {html.escape(', '.join(state.waiting))}</div>"
        if state.waiting
        else ""
    )
    if state.paused and not state.active:
        return f"<div class='kimas-progress idle' data-state='paused'>Indexing paused.{waiting}</div>"
    if not state.active:
        label = "Indexing queued…" if state.waiting else "Idle: all collections are up to date."
        return f"<div class='kimas-progress idle' data-state='idle'>{html.escape(label)}{waiting}</div>"
    pct = round(100 * state.fraction)
    total = f"{state.files_done} / {state.files_total} files" if state.files_total else "scanning files…"
    now = f" · now: {html.escape(Path(state.current_file).name)}" if state.current_file else ""
    eta = f" · about {state.eta_s:.0f} s left" if state.eta_s is not None else ""
    why = f" ({html.escape(state.trigger)})" if state.trigger else ""
    doing, phase = ("Paused while indexing", "paused") if state.paused else ("Indexing", "active")
    return (
        f"<div class='kimas-progress' data-state='{phase}'><div>{doing} <b>{html.escape(state.collection)}</b>"
        f"{why}: {total}{_ocr_waiting(state)}{now}{eta}</div><div class='kimas-bar'><div style='width:{pct}%'></div></div>"
        f"{waiting}</div>"
    )


def _ocr_waiting(state: IndexingState) -> str:
    n = state.ocr_pages_waiting
    return f" · {n} page{'' if n == 1 else 's'} waiting for OCR" if n else ""


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


def outcome_markdown(outcome: Outcome) -> str:
    return esc(outcome.message) if outcome.ok else f"⚠ {esc(outcome.message)}"


def model_markdown(state: ModelState) -> str:
    icon = {"loading": "◌", "ready": "✓", "failed": "⚠"}[state.phase]
    return f"{icon} {esc(state.message)}"


def store_problem(message: str, log_file: str) -> str:
    """Why the collections cannot be shown: the store itself failed (never mistaken for "no knowledge")."""
    return f"**The knowledge store cannot be read.** {esc(message)} Details are in {code(log_file)}."
