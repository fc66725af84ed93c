"""Chat values → Gradio chat messages, Markdown and HTML: answers with their quotes, citations and [n]
markers, the trace under each answer, the sidebar's entries. Pure functions; nothing here decides anything.

Every text from documents, models and the user is escaped (``ui.markup.esc_html``, ``esc``) before it is
put into markup, so it shows as its characters (issue 69): only the app's own markup (quotes, citations,
[n] markers, flags) is drawn.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from app.chat.conversation import Conversation, Turn
from app.chat.store import ConversationSummary
from app.chat.viewer import viewable
from kimas_desktop.answer.phrases import language_of
from kimas_desktop.answer.tables.answer import TableAnswer, table_place
from kimas_desktop.answer.writing.markers import Marker, place_markers
from kimas_desktop.text.visible import visible_name
from kimas_desktop.trace import SupportStage
from kimas_desktop.types import Chunk, Citation, Hit, Quote, SentenceSupport
from ui.chat.answer_text import answering_html, places_said, without_preamble
from ui.chat.model_alone_view import model_alone_markdown, model_alone_trace, offer_markdown, stopped_line
from ui.chat.numbered import FOUND_SHOWN, numbered
from ui.chat.said import failure_said, said, said_in
from ui.chat.trace_view import locator, status_line, trace_markdown
from ui.i18n import Language, word
from ui.markup import attr, code, esc, esc_html, source_url, viewer_url

TRACE_TITLE = said_in("how made", "en")
NO_KNOWLEDGE_HINT = word("no_knowledge_hint", "en")
READY_HINT = word("ready_hint", "en")
SEND_WHILE_ANSWERING = word("send_note", "en")
_EDGE_BREAKS = re.compile(r"^(?:\s|<br>)+|(?:\s|<br>)+$")  # an escaped answer's blank first or last lines


def chunk_html(chunk: Chunk, start: int | None = None, end: int | None = None) -> str:
    """The whole chunk, escaped, with ``chunk.text[start:end]`` (the cited sentence) highlighted."""
    text = chunk.text
    if start is None or end is None or not 0 <= start < end <= len(text):
        return esc_html(text.strip())
    return (
        esc_html(text[:start].lstrip())
        + f"<mark class='kimas-cited'>{esc_html(text[start:end])}</mark>"
        + esc_html(text[end:].rstrip())
    )


def source_name(chunk: Chunk) -> str:
    """What a source is called on the page: a file's name (as ``visible_name`` shows it), or a web page's
    site."""
    if chunk.online:
        return urlsplit(chunk.source).hostname or chunk.source
    return visible_name(Path(chunk.source).name)


def _open_link(chunk: Chunk, start: int | None = None, end: int | None = None, lang: str = "en") -> str:
    if chunk.online:  # the page itself, opened by the browser outside the app (no referrer sent)
        retrieved = (
            time.strftime("%Y-%m-%d %H:%M", time.localtime(chunk.indexed_at)) if chunk.indexed_at else ""
        )
        when = said_in("retrieved", lang, when=retrieved) if retrieved else ""
        return (
            f"<div class='kimas-open'><a href='{attr(chunk.source)}' target='_blank' "
            f"rel='noopener noreferrer'>{said_in('open page', lang)}</a> {code(chunk.source)}"
            f"{when}</div>"
        )
    name = esc_html(source_name(chunk))
    shown = viewable(chunk.source)
    label = said_in("original file", lang) if shown else said_in("open file", lang, name=name)
    opened = (
        f"<div class='kimas-open'><a class='kimas-file' href='{source_url(chunk.source, chunk.page)}' "
        f"target='_blank' rel='noopener'>{label}</a> "
        f"{code(visible_name(chunk.source))}</div>"
    )
    if not shown:
        return opened
    ok = start is not None and end is not None and 0 <= start < end <= len(chunk.text)
    at = viewer_url(chunk.source, chunk.page, chunk.lines, chunk.text[start:end] if ok else chunk.text)
    return (
        f"<div class='kimas-view'><a class='kimas-view' href='{attr(at)}' target='_blank' "
        f"rel='noopener'>{said_in('open at passage', lang, name=name)}</a></div>{opened}"
    )


def _source_details(
    n: int, chunk: Chunk, summary: str, start: int | None, end: int | None, anchor: str = "", lang: str = "en"
) -> str:
    where = f" · {esc_html(locator(chunk, lang))}" if chunk.locator else ""
    if chunk.online:
        where = f" · {said_in('web', lang, name=esc_html(chunk.collection))}"
    heading = f"<div class='kimas-heading'>{esc_html(chunk.heading)}</div>" if chunk.heading else ""
    at = f" id='{anchor}'" if anchor else ""
    return (
        f"<details class='kimas-citation'{at}><summary>[{n}] <b>{esc_html(source_name(chunk))}</b>{where}{summary}</summary>"
        f"{heading}<div class='kimas-chunk'>{chunk_html(chunk, start, end)}</div>"
        f"{_open_link(chunk, start, end, lang)}</details>"
    )


def citation_html(c: Citation, key: str = "", lang: str = "en") -> str:
    """One citation: number, file, page or lines, the cited sentence (or snippet); expands to the whole
    chunk with that sentence highlighted, and a link. ``key`` (unique on the page) anchors it for the
    answer's [n] markers; the app's words in ``lang``."""
    shown = " ".join((c.sentence or c.snippet).split())
    anchor = source_anchor(key, c.n) if key else ""
    return _source_details(c.n, c.chunk, f" — “{esc_html(shown)}”", c.start, c.end, anchor, lang)


def source_anchor(key: str, n: int) -> str:
    return f"kimas-src-{key}-{n}"


def marker_html(key: str, n: int) -> str:
    """An inline [n] that jumps to source ``n`` of the answer ``key``."""
    return f"<sup class='kimas-marker'><a href='#{source_anchor(key, n)}'>[{n}]</a></sup>"


def quote_html(quotes: Sequence[Quote], answerable: bool, question: str = "") -> str:
    """The grounded quote, first in the answer: verbatim words of the user's documents (the phrase that
    answers marked), with where they are; each expands to its chunk with the quoted words highlighted.
    Headed in ``question``'s language."""
    label = said("from your documents" if answerable else "closest passages", question)
    lang = language_of(question)
    blocks = [
        f"<blockquote class='kimas-quote'>“{answering_html(q.display, question)}”</blockquote>"
        + _source_details(q.n, q.chunk, "", q.start, q.end, lang=lang)
        for q in quotes
    ]
    return f"<div class='kimas-quotes' data-answerable='{str(answerable).lower()}'>" + (
        f"<div class='kimas-quote-label'>{label}</div>" + "".join(blocks) + "</div>"
    )


TABLE_COLUMNS = 6  # the most columns the table of rows used shows


def table_html(t: TableAnswer, lang: str = "en") -> str:
    """A table answer's operation and the rows it used (the first few), each with its row number in the
    file, and a link to the file. Every cell is escaped; the app's words in ``lang``."""
    q, r = t.query, t.result
    named = [q.target, q.label, q.by, *(f.column for f in q.filters)] if q is not None else []
    order = list(dict.fromkeys(n for n in named if n))
    order += [c.name for c in t.table.columns if c.name not in order]
    shown = order[:TABLE_COLUMNS]
    head = "".join(f"<th>{esc_html(n)}</th>" for n in [said_in("row", lang), *shown])
    body = ""
    for row in r.rows:
        cells = dict(row.cells)
        tds = "".join(f"<td>{esc_html(cells.get(n, ''))}</td>" for n in shown)
        body += f"<tr><td>{row.row}</td>{tds}</tr>"
    more = r.used - len(r.rows)
    more_note = (
        f"<div class='kimas-table-more'>{said_in('more rows', lang, n=more)}</div>" if more > 0 else ""
    )
    link = (
        f"<a href='{source_url(t.table.source)}' target='_blank' rel='noopener'>"
        f"{said_in('open file', lang, name=esc_html(visible_name(table_place(t.table))))}</a>"
    )
    computed = said_in("computed", lang, what=esc_html(r.description))
    return (
        f"<div class='kimas-table-answer'><div class='kimas-quote-label'>{computed}"
        f"</div><table class='kimas-table-rows'><tr>{head}</tr>{body}</table>"
        f"{more_note}<div class='kimas-open'>{link}</div></div>"
    )


def unsupported_why(s: SentenceSupport, lang: str = "en") -> str:
    """The flag's tooltip: why the support check marked this sentence (issue 45), in ``lang``."""
    if s.missing:
        return said_in("missing facts", lang, facts=", ".join(s.missing))
    if s.reason in ("restates the question", "misses the answer") and s.lacks:
        return said_in("sources say", lang, reason=said_in(s.reason, lang), facts=", ".join(s.lacks))
    return said_in(s.reason, lang) if s.reason else said_in("not found", lang)


def marked_answer(
    answer: str,
    support: Sequence[SentenceSupport],
    markers: Sequence[Marker] = (),
    key: str = "",
    lang: str = "en",
) -> str:
    """The answer, escaped, with each sentence the sources do not back marked (and why, on hover, in
    ``lang``), and an [n] after each sentence source n backs (``markers``, linked to the sources of answer
    ``key``). The model copies documents: their ``$``, ``<b>`` or ``|`` show as characters (issue 69)."""
    if markers:
        # Markers go after supported sentences only, so they never fall inside a flagged one: mark the
        # pieces between them.
        cuts = [0, *(m.at for m in markers), len(answer)]
        pieces = []
        for i, (a, b) in enumerate(pairwise(cuts)):
            inside = [replace(s, start=s.start - a, end=s.end - a) for s in support if a <= s.start < b]
            pieces.append(marked_answer(answer[a:b], inside, lang=lang))
            if i < len(markers):
                pieces.append(marker_html(key, markers[i].source))
        return "".join(pieces)
    flagged = [s for s in support if not s.supported and answer[s.start : s.end] == s.text]
    if not flagged:
        return esc_html(answer)
    out = []
    pos = 0
    for s in sorted(flagged, key=lambda x: x.start):
        if s.start < pos:
            continue
        why = unsupported_why(s, lang)
        out.append(esc_html(answer[pos : s.start]))
        out.append(
            f"<span class='kimas-unsupported' title='{attr(why)}'>{esc_html(s.text)}</span>"
            f"<sup class='kimas-flag' title='{attr(said_in('flag', lang))}'>⚠</sup>"
        )
        pos = s.end
    out.append(esc_html(answer[pos:]))
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


def _checked(turn: Turn) -> Sequence[SentenceSupport]:
    """The answer's checked sentences; none when the model's answer was set aside: the shown text is then
    the documents' own words, and the check was of the model's (issue 60: "⚠ 2 sentences …" beside "the
    model's own answer was set aside")."""
    check = turn.trace.find(SupportStage) if turn.trace is not None else None
    return () if check is not None and check.set_aside else turn.support


def answer_markdown(turn: Turn, key: str = "", *, tell_quote_only: bool = False) -> str:
    """One answer as the chat shows it; ``key`` (unique on the page) links its [n] markers to its
    sources. The app's words are in the question's language. An answer that is the quote (the model
    writes none, issue 69) is the quote above it, not said twice; ``tell_quote_only``: say why, once."""
    lang = language_of(turn.question)
    if turn.mode == "model":  # labelled, never shown as grounded (issue 45)
        earlier = [earlier_html(turn.earlier, lang)] if turn.earlier else []
        return "\n\n".join([model_alone_markdown(turn), *earlier])
    turn, shown_as = numbered(turn)  # its sources as 1, 2, … in the order they appear (issue 69)
    parts = []
    if turn.quotes:
        parts.append(quote_html(turn.quotes, quote_answers(turn), turn.question))
    answer, support = without_preamble(turn.answer, _checked(turn), lang)
    if turn.quote_only and turn.quotes:
        answer = ""
    if not support:  # a decline's text (no sentence of it checked): its places in the question's language
        answer = places_said(answer, turn.quotes, lang)
    if answer:
        if turn.finished and support:
            shown = {c.n for c in turn.citations}
            markers = place_markers(answer, support, shown) if key else ()
            parts.append(_EDGE_BREAKS.sub("", marked_answer(answer, support, markers, key, lang)))
        elif turn.no_knowledge:  # the app's own words: how to add knowledge (Markdown)
            parts.append(answer.strip())
        else:  # the model's words or the documents' (a quote, a table's values): shown as text (issue 69)
            parts.append(esc_html(answer.strip() if turn.finished else answer.lstrip()))
        if turn.table is not None and turn.table.answered:
            parts.append(table_html(turn.table, lang))
        if turn.finished and turn.uses_quote is False:
            parts.append(f"<div class='kimas-support-note'>{said_in('quote unused', lang)}</div>")
        if turn.finished and support and any(not s.supported for s in support):
            n = sum(1 for s in support if not s.supported)
            unsupported = said_in("unsupported sentences", lang, n=n, s="s" if n != 1 else "")
            parts.append(f"<div class='kimas-support-note'>{unsupported}</div>")
        if turn.state == "running" and turn.pace is not None and turn.pace.step == "writing":
            parts.append(
                f"_{esc(status_line('', turn.pace, turn.question).strip())}_"
            )  # the model's speed (issue 46)
    elif turn.state == "running":
        parts.append(
            f"_{esc(status_line(turn.status or said_in('thinking', lang), turn.pace, turn.question))}_"
        )
    if turn.finished and not turn.answered_from_sources and turn.quotes:
        parts.append(said("try anyway", turn.question))
    if turn.quote_only and tell_quote_only:
        parts.append(said("quote only", turn.question))
    if turn.state == "stopped":
        parts.append(stopped_line(turn, lang, escaped=False))
    if turn.state == "failed":
        why = failure_said(turn.error, turn.error_code, turn.error_values, lang)
        parts.append(said_in("could not answer", lang, why=esc(why)))
    sources = _sources(turn, key, shown_as, lang)
    if sources:
        parts.append(sources)
    if turn.earlier:
        parts.append(earlier_html(turn.earlier, lang))
    offer = offer_markdown(turn)
    return "\n\n".join([*parts, offer] if offer else parts)


def _sources(turn: Turn, key: str, shown_as: Mapping[int, int], lang: str) -> str:
    """The answer's sources; or that it has none; or what a stopped answer had found ("": nothing)."""
    if turn.citations:
        cited = "\n".join(citation_html(c, key, lang) for c in once(turn.citations))
        return f"**{said('sources', turn.question)}**\n\n" + cited
    if turn.state == "done" and not turn.citations_available:
        return said_in("no citations", lang)
    if turn.state == "stopped" and turn.trace is not None and turn.trace.evidence:
        return _found_before_stop(turn.trace.evidence, shown_as, lang)
    return ""


def _found_before_stop(evidence: Sequence[Hit], shown_as: Mapping[int, int], lang: str) -> str:
    """The passages a stopped answer had found, each by the number the answer and quote show it by."""
    found = sorted((shown_as.get(i, i), h.chunk) for i, h in enumerate(evidence[:FOUND_SHOWN], 1))
    listed = [_source_details(n, chunk, "", None, None, lang=lang) for n, chunk in found]
    return f"**{said_in('found before stop', lang)}**\n\n" + "\n".join(listed)


def earlier_html(earlier: Sequence[Turn], lang: str = "en") -> str:
    """The answers Regenerate replaced, folded under the current one (each with its sources), the app's
    words in ``lang``."""
    blocks = []
    for i, t in enumerate((numbered(e)[0] for e in earlier), 1):  # each one's sources from [1]
        cited = "".join(citation_html(c, lang=lang) for c in once(t.citations))
        state = said_in("answer stopped", lang) if t.state == "stopped" else ""
        answer = without_preamble(t.answer, (), lang)[0].strip()
        blocks.append(
            f"<div class='kimas-earlier-answer'><div class='kimas-quote-label'>{said_in('answer n', lang, n=i)}"
            f"{state}</div><div>{esc_html(answer or t.error or said_in('no answer', lang))}</div>{cited}</div>"
        )
    n = len(earlier)
    summary = said_in("earlier answers", lang, n=n, s="s" if n != 1 else "")
    return f"<details class='kimas-earlier'><summary>{summary}</summary>{''.join(blocks)}</details>"


def chat_messages(conv: Conversation | None, name_of: Callable[[str], str] = str) -> list[dict[str, Any]]:
    """The Chatbot's value: each turn's question, answer (with sources) and, once done, its trace
    (``name_of``: collection id → the name it shows)."""
    out: list[dict[str, Any]] = []
    turns = conv.turns if conv else []
    told = next((i for i, t in enumerate(turns) if t.quote_only), -1)  # said once in a chat: at the first
    for i, turn in enumerate(turns):
        out.append({"role": "user", "content": turn.question})
        out.append(
            {"role": "assistant", "content": answer_markdown(turn, f"{i + 1}", tell_quote_only=i == told)}
        )
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


def history_note(problem: str, *, searching: bool, found: bool, language: Language = "en") -> str:
    """Under the sidebar: why conversations are not saved, or that a search found nothing (in the page's
    ``language``; the problem is app/'s sentence)."""
    if problem:
        return f"⚠ {esc(problem)}"
    if searching and not found:
        return word("chats_no_match", language)
    if not found:
        return word("chats_none", language)
    return ""
