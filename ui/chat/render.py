"""Chat values → Gradio chat messages, Markdown and HTML: answers with their quotes, citations and [n]
markers, the trace under each answer, the sidebar's entries. Pure functions; nothing here decides anything.

Everything that comes from documents or models is escaped before it is put into markup.
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from app.chat.conversation import Conversation, Turn
from app.chat.store import ConversationSummary
from app.chat.viewer import viewable
from kimas_desktop.answer.tables.answer import TableAnswer, table_place
from kimas_desktop.answer.writing.markers import Marker, place_markers
from kimas_desktop.types import Chunk, Citation, Quote, SentenceSupport
from ui.chat.model_alone_view import model_alone_markdown, model_alone_trace, offer_markdown
from ui.chat.trace_view import status_line, trace_markdown
from ui.i18n import said
from ui.markup import esc, source_url, viewer_url

TRACE_TITLE = "How this answer was made"
NO_KNOWLEDGE_HINT = (
    "**No knowledge yet.** Open the **Knowledge** tab, create a collection and drop files or a whole "
    "folder onto it (or add a folder to watch). Then ask your questions here. Or choose **Answer from: "
    "the model alone** below: it answers from its own knowledge, labelled as not from your documents."
)
READY_HINT = "Ask a question about your documents. Answers cite the files they come from."
SEND_WHILE_ANSWERING = (
    "Sending a question while an answer is being written stops that answer (it keeps what it found) "
    "and asks the new one. **Regenerate** writes a different answer; the earlier ones stay below it."
)


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


def _open_link(chunk: Chunk, start: int | None = None, end: int | None = None) -> str:
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
    name = html.escape(Path(chunk.source).name)
    shown = viewable(chunk.source)
    opened = (
        f"<div class='kimas-open'><a class='kimas-file' href='{source_url(chunk.source, chunk.page)}' "
        f"target='_blank' rel='noopener'>{'The original file' if shown else f'Open {name}'}</a> "
        f"<code>{html.escape(chunk.source)}</code></div>"
    )
    if not shown:
        return opened
    ok = start is not None and end is not None and 0 <= start < end <= len(chunk.text)
    at = viewer_url(chunk.source, chunk.page, chunk.lines, chunk.text[start:end] if ok else chunk.text)
    return (
        f"<div class='kimas-view'><a class='kimas-view' href='{html.escape(at, quote=True)}' target='_blank' "
        f"rel='noopener'>Open {name} at the passage</a></div>{opened}"
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
        f"{heading}<div class='kimas-chunk'>{chunk_html(chunk, start, end)}</div>{_open_link(chunk, start, end)}"
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


def quote_html(quotes: Sequence[Quote], answerable: bool, question: str = "") -> str:
    """The grounded quote, first in the answer: verbatim words of the user's documents, with where they
    are; each expands to its chunk with the quoted words highlighted. Headed in ``question``'s language."""
    label = said("from your documents" if answerable else "closest passages", question)
    blocks = [
        f"<blockquote class='kimas-quote'>“{html.escape(q.display)}”</blockquote>"
        + _source_details(q.n, q.chunk, "", q.start, q.end)
        for q in quotes
    ]
    return f"<div class='kimas-quotes' data-answerable='{str(answerable).lower()}'>" + (
        f"<div class='kimas-quote-label'>{label}</div>" + "".join(blocks) + "</div>"
    )


TABLE_COLUMNS = 6  # the most columns the table of rows used shows


def table_html(t: TableAnswer) -> str:
    """A table answer's operation and the rows it used (the first few), each with its row number in the
    file, and a link to the file. Every cell is escaped."""
    q, r = t.query, t.result
    named = [q.target, q.label, q.by, *(f.column for f in q.filters)] if q is not None else []
    order = list(dict.fromkeys(n for n in named if n))
    order += [c.name for c in t.table.columns if c.name not in order]
    shown = order[:TABLE_COLUMNS]
    head = "".join(f"<th>{html.escape(n)}</th>" for n in ["row", *shown])
    body = ""
    for row in r.rows:
        cells = dict(row.cells)
        tds = "".join(f"<td>{html.escape(cells.get(n, ''))}</td>" for n in shown)
        body += f"<tr><td>{row.row}</td>{tds}</tr>"
    more = r.used - len(r.rows)
    more_note = f"<div class='kimas-table-more'>and {more} more rows</div>" if more > 0 else ""
    link = (
        f"<a href='{source_url(t.table.source)}' target='_blank' rel='noopener'>"
        f"Open {html.escape(table_place(t.table))}</a>"
    )
    return (
        f"<div class='kimas-table-answer'><div class='kimas-quote-label'>Computed: "
        f"{html.escape(r.description)}</div><table class='kimas-table-rows'><tr>{head}</tr>{body}</table>"
        f"{more_note}<div class='kimas-open'>{link}</div></div>"
    )


def unsupported_why(s: SentenceSupport) -> str:
    """The flag's tooltip: why the support check marked this sentence (issue 45)."""
    if s.missing:
        return f"not in the sources: {', '.join(s.missing)}"
    if s.reason in ("restates the question", "misses the answer") and s.lacks:
        return f"{s.reason}: the sources say {', '.join(s.lacks)}"
    return s.reason or "not found in the sources"


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
        why = unsupported_why(s)
        out.append(answer[pos : s.start])
        out.append(
            f"<span class='kimas-unsupported' title='{html.escape(why, quote=True)}'>{esc(s.text)}</span>"
            "<sup class='kimas-flag' title='unsupported'>⚠</sup>"
        )
        pos = s.end
    out.append(answer[pos:])
    return "".join(out)


def once(citations: Sequence[Citation]) -> list[Citation]:
    """Each source once, at its first citation (a decline's quote may hold two sentences of one source)."""
    first: dict[int, Citation] = {}
    for c in citations:
        first.setdefault(c.n, c)
    return list(first.values())


def quote_answers(turn: Turn) -> bool:
    """Whether the quote heads an answer ("From your documents") or the closest passages of a decline: the
    outcome once the turn is done (a Regenerate that answered, a summary), the answerability check before."""
    if turn.state == "done":
        return turn.answered_from_sources
    return turn.answerability is None or turn.answerability.answerable


def answer_markdown(turn: Turn, key: str = "") -> str:
    """One answer as the chat shows it; ``key`` (unique on the page) links its [n] markers to its
    sources."""
    if turn.mode == "model":  # labelled, never shown as grounded (issue 45)
        earlier = [earlier_html(turn.earlier)] if turn.earlier else []
        return "\n\n".join([model_alone_markdown(turn), *earlier])
    parts = []
    if turn.quotes:
        parts.append(quote_html(turn.quotes, quote_answers(turn), turn.question))
    if turn.answer:
        if turn.finished and turn.support:
            shown = {c.n for c in turn.citations}
            markers = place_markers(turn.answer, turn.support, shown) if key else ()
            parts.append(marked_answer(turn.answer, turn.support, markers, key).strip())
        elif turn.table is not None:  # the values and names are the file's: shown as text
            parts.append(esc(turn.answer.strip()))
        else:
            parts.append(turn.answer.strip() if turn.finished else turn.answer)
        if turn.table is not None and turn.table.answered:
            parts.append(table_html(turn.table))
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
        if turn.state == "running" and turn.pace is not None and turn.pace.step == "writing":
            parts.append(
                f"_{esc(status_line('', turn.pace, turn.question).strip())}_"
            )  # the model's speed (issue 46)
    elif turn.state == "running":
        parts.append(f"_{esc(status_line(turn.status or 'Thinking…', turn.pace, turn.question))}_")
    if turn.finished and not turn.answered_from_sources and turn.quotes:
        parts.append(said("try anyway", turn.question))
    if turn.state == "stopped":
        parts.append(f"_Stopped ({turn.stopped_because})._" if turn.stopped_because else "_Stopped._")
    if turn.state == "failed":
        parts.append(f"⚠ **Could not answer:** {esc(turn.error)}")
    if turn.citations:
        heading = said("sources", turn.question)
        parts.append(f"**{heading}**\n\n" + "\n".join(citation_html(c, key) for c in once(turn.citations)))
    elif turn.state == "done" and not turn.citations_available:
        parts.append("_Citations are unavailable for this answer._")
    elif turn.state == "stopped" and turn.trace is not None and turn.trace.evidence:
        found = [
            _source_details(i + 1, h.chunk, "", None, None) for i, h in enumerate(turn.trace.evidence[:5])
        ]
        parts.append("**Sources found before it stopped**\n\n" + "\n".join(found))
    if turn.earlier:
        parts.append(earlier_html(turn.earlier))
    offer = offer_markdown(turn)
    return "\n\n".join([*parts, offer] if offer else parts)


def earlier_html(earlier: Sequence[Turn]) -> str:
    """The answers Regenerate replaced, folded under the current one (each with its sources)."""
    blocks = []
    for i, t in enumerate(earlier, 1):
        cited = "".join(citation_html(c) for c in once(t.citations))
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


def chat_messages(conv: Conversation | None, name_of: Callable[[str], str] = str) -> list[dict[str, Any]]:
    """The Chatbot's value: each turn's question, answer (with sources) and, once done, its trace
    (``name_of``: collection id → the name it shows)."""
    out: list[dict[str, Any]] = []
    for i, turn in enumerate(conv.turns if conv else []):
        out.append({"role": "user", "content": turn.question})
        out.append({"role": "assistant", "content": answer_markdown(turn, f"{i + 1}")})
        if turn.trace is not None and turn.finished:
            out.append(
                {
                    "role": "assistant",
                    "content": _trace(turn, name_of),
                    "metadata": {"title": said("how made", turn.question), "status": "done"},
                }
            )
    return out


def _trace(turn: Turn, name_of: Callable[[str], str]) -> str:
    assert turn.trace is not None
    return model_alone_trace(turn.trace) if turn.mode == "model" else trace_markdown(turn.trace, name_of)


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
