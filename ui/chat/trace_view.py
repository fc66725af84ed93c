"""The trace ("How this answer was made") as Markdown: each typed stage record rendered by its fields."""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

from app.chat.viewer import viewable
from kimas_desktop.answer.writing.budget import Pace, first_word_s
from kimas_desktop.text.words import truncate
from kimas_desktop.trace import (
    AgenticStage,
    AnswerCheckStage,
    AnswerStage,
    BudgetStage,
    ComputeStage,
    DecisionStage,
    DocumentStage,
    FirstTokenStage,
    HopStage,
    OnlineStage,
    QuoteStage,
    ReembedStage,
    RewriteStage,
    SupportStage,
    Trace,
)
from kimas_desktop.types import Chunk, Hit
from ui.chat.said import said, said_in
from ui.markup import esc, viewer_url

# What each timed stage is called on the page (the trace's own names are for `kimas ask --json`).
STAGE_LABELS = {
    "rewrite": "understanding the question",
    "route": "choosing collections",
    "reroute": "choosing collections again",
    "retrieve": "searching",
    "context_analysis": "reading the conversation",
    "rerank": "ranking the evidence",
    "pack": "fitting the evidence",
    "budget": "planning for the first word",
    "compute": "comparing the values",
    "hop": "searching for the bridge",
    "document": "reading the document's card or chapter",
    "agentic": "second search",
    "online": "online sources",
    "quote": "finding the quote",
    "answer_check": "the model's check",
    "first_token": "first word of the answer",
    "answer": "writing the answer",
    "citations": "citing sources",
    "support": "checking the answer",
    "total": "total",
}

__all__ = ["budget_line", "locator", "status_line", "trace_markdown"]


def locator(chunk: Chunk, lang: str = "en") -> str:
    """Where ``chunk`` is in its file, in ``lang``: ``Chunk.locator`` ("p. 3", "lines 10-24") said again."""
    if chunk.page is not None:
        return said_in("at page ocr" if chunk.ocr else "at page", lang, n=chunk.page)
    if chunk.lines is not None:
        return said_in("at lines", lang, start=chunk.line_start, end=chunk.line_end)
    return ""


def _hit_line(n: int, h: Hit, name_of: Callable[[str], str]) -> str:
    """One piece of evidence; a file the viewer shows links to its page at the passage (``/kimas/view``)."""
    c = h.chunk
    where = f" · {c.locator}" if c.locator else ""
    name = f"**{esc(c.source if c.online else Path(c.source).name)}**"
    if not c.online and viewable(c.source):
        at = html.escape(viewer_url(c.source, c.page, c.lines, c.text), quote=True)
        name = f"<a class='kimas-evidence' href='{at}' target='_blank' rel='noopener'>{name}</a>"
    return (
        f"{n}. {name}{esc(where)} · {esc(name_of(c.collection))} · score {h.score:.3f}"
        f" — {esc(truncate(' '.join(c.text.split()), 160))}"
    )


DECISION_RULES = {
    "lexical": "from how well the evidence matches the question",
    "rescued": "the chat model copied the answer from a source, though the match was weak",
    "doubted": "the chat model found no source that states it, though the match was good",
    "try anyway": "you asked the model to try",
    "computed": "the sources give both values the question compares",
}


def conversation_use(rewrite: RewriteStage) -> str:
    """What the context manager took from the conversation, in the user's words."""
    files = ", ".join(esc(Path(f).name) for f in rewrite.within)
    within = f"in the files the earlier answers came from ({files})" if files else ""
    if rewrite.depends == "self-contained":
        kept = f" ({esc(rewrite.note)})" if rewrite.note else ""
        also = f"; also {within}, and the searches merged" if within else ""
        return f"searched as asked{kept}: {esc(rewrite.reason)}{also}"
    asked = ", ".join(f"“{esc(truncate(q, 80))}”" for q in rewrite.earlier) or "the earlier answers"
    both = ""
    if rewrite.also_as_asked:
        kept = f", in all files and {within}" if within else ""
        both = f"; also searched as asked{kept}, and the searches merged"
    return f"used the earlier question {asked}: {esc(rewrite.reason)}{both}"


def status_line(message: str, pace: Pace | None, question: str = "") -> str:
    """The answer's status line while it runs: the step, and the model's speed (issue 46), in the
    language of ``question`` (else of ``message``, the step already said in it: ``ui.i18n.said``). No due
    time: the page redraws when the answer moves, so a promised second would stand there after it had passed."""
    if pace is None or (pace.step == "writing" and not pace.words_per_s):
        return message
    lang = question or message
    if pace.step == "writing":
        pace_text = said("pace writing", lang).format(words=f"{pace.words:,}", rate=f"{pace.words_per_s:.1f}")
    elif pace.tokens_per_s:
        pace_text = said("pace reading at", lang).format(
            tokens=f"{pace.prompt_tokens:,}",
            rate=f"{pace.tokens_per_s:.0f}",
            source=said(pace.speed_from, lang),
        )
    else:
        pace_text = said("pace reading", lang).format(tokens=f"{pace.prompt_tokens:,}")
    return f"{message} {pace_text}"


def budget_line(b: BudgetStage, first: FirstTokenStage | None = None) -> str:
    """How the answer prompt was cut to start in time (issue 28), in the user's words: the aim, whether
    it was still ahead when the prompt was planned, when the first word was expected at the measured
    speed and when it came. A time is said to be due only while it was still ahead (issue 46)."""
    given = f"{b.sources} source{'s' if b.sources != 1 else ''} given to the model ({b.prompt} prompt tokens)"
    came = f" The first word came at {first.ms / 1000:.1f} s." if first is not None else ""
    if b.allowed is None:
        why = "no time limit set" if b.target_s <= 0 else f"prompt speed {esc(b.speed_from)}"
        return f"\n**Time budget:** none ({why}); {given}.{came}"
    speed = f"{b.tokens_per_s:.0f} prompt tokens/s ({esc(b.speed_from)})" if b.tokens_per_s else ""
    if b.elapsed_s < b.target_s:
        aim = (
            f"the first word was aimed for {b.target_s:g} s after the question, {b.elapsed_s:.1f} s had "
            f"passed; at {speed} that left {b.allowed} prompt tokens"
        )
    else:
        aim = (
            f"the aim of a first word {b.target_s:g} s after the question had passed before the model was "
            f"asked ({b.elapsed_s:.1f} s spent finding the evidence); at {speed}, only what must stay"
        )
    text = f"\n**Time budget:** {aim}: {given}"
    if b.cut:
        text += f", {b.cut} lower-ranked source{'s' if b.cut != 1 else ''} left out for time"
    if b.over:
        text += "; the quoted sources alone needed more, and they stay"
    expected = first_word_s(b.elapsed_s, b.prompt, b.tokens_per_s)
    if expected is not None:
        text += f". At that speed the first word was expected at {expected:.1f} s"
    return text + "." + came


def online_lines(trace: Trace) -> list[str]:
    """Which online sources were asked, with which query (what left this computer), and what came back."""
    records = [s for s in trace.stages if isinstance(s, OnlineStage)]
    if not records:
        return []
    out = ["\n**Online sources**\n"]
    for r in records:
        if r.skipped:
            out.append(f"- {esc(r.source)}: not asked ({esc(r.skipped)})")
            continue
        asked = f"asked “{esc(r.query)}” ({esc(r.why)})" if r.query else f"asked ({esc(r.why)})"
        if r.error:
            out.append(
                f"- {esc(r.source)}: {asked}; **failed**: {esc(r.error)}. The answer used your documents only."
            )
        else:
            found = f"{r.results} results, {r.pages_read} pages read, {r.passages} passages"
            out.append(f"- {esc(r.source)}: {asked}: {found} ({r.ms / 1000:.1f} s)")
    return out


def _question_lines(trace: Trace, name_of: Callable[[str], str]) -> list[str]:
    """The search query, what the conversation added, and collections that need re-embedding."""
    lines: list[str] = []
    rewrite = trace.find(RewriteStage)
    method = f" _(by {esc(rewrite.method)})_" if rewrite is not None and rewrite.method else ""
    lines.append(f"**Search query:** {esc(trace.query or trace.question)}{method}")
    if rewrite is not None and rewrite.reason and rewrite.method != "first-turn":
        lines.append(f"\n**Conversation:** {conversation_use(rewrite)}")
    stale = trace.find(ReembedStage)
    if stale is not None:
        lines.append(
            f"\n**Needs re-embedding:** {esc(', '.join(name_of(c) for c in stale.collections))} (built with another embedding "
            "model: not searched by meaning until re-embedded in the Knowledge tab)"
        )
    return lines


def _search_lines(trace: Trace, name_of: Callable[[str], str]) -> list[str]:
    """Routing, the retrieval agents' queries, and the evidence given to the model; each collection by
    the name it shows (``name_of``: id → name)."""
    lines: list[str] = []
    if trace.routes:
        searched = set(trace.agent_queries)
        lines.append(
            "\n**Collections** (how well each matches the question: its main topics, its description, "
            "the meaning of its best passages, its characteristic words)\n"
        )
        lines.append(
            "| collection | score | topics | description | passages | words | searched |\n"
            "|---|---|---|---|---|---|---|"
        )
        for r in trace.routes:
            mixin = "–" if r.mixin_score is None else f"{r.mixin_score:.3f}"
            lexical = "–" if r.lexical_score is None else f"{r.lexical_score:+.2f}"
            mark = "yes" if r.collection in searched else ""
            lines.append(
                f"| {esc(name_of(r.collection))} | {r.score:.3f} | {r.centroid_score:.3f} | {mixin} "
                f"| {r.dense_score:.3f} | {lexical} | {mark} |"
            )
    if trace.agent_queries:
        lines.append("\n**Queries of each retrieval agent**\n")
        for name, queries in trace.agent_queries.items():
            lines.append(f"- {esc(name_of(name))}: " + "; ".join(f"“{esc(q)}”" for q in queries))
    if trace.evidence:
        lines.append("\n**Evidence given to the model**\n")
        lines += [_hit_line(i + 1, h, name_of) for i, h in enumerate(trace.evidence)]
    return lines


def _evidence_lines(trace: Trace) -> list[str]:
    """How the evidence was shaped: the time budget, a document's card or chapter, hops, computed values."""
    lines: list[str] = []
    budget = trace.find(BudgetStage)
    if budget is not None:
        lines.append(budget_line(budget, trace.find(FirstTokenStage)))
    doc = trace.find(DocumentStage)
    if doc is not None:
        name = esc(doc.source.rsplit("/", 1)[-1])
        what = (
            f"its chapter “{esc(doc.section)}” ({doc.passages} passage(s) first)"
            if doc.section
            else "its card"
        )
        lines.append(f"\n**Document**: {name}, {what}: {esc(doc.why)}")
    hops = [s for s in trace.stages if isinstance(s, HopStage)]
    if hops:
        lines.append(
            "\n**Hops** (searching again from the best passages for what the question leaves implicit)\n"
        )
        for h in hops:
            if h.round:
                lines.append(f"- round {h.round}: “{esc(h.query)}”: {len(h.added)} new passage(s)")
            else:
                lines.append(f"- {esc(h.why)}")
    computed = trace.find(ComputeStage)
    if computed is not None and len(computed.items) == 1:  # over a table's rows (``answer/tables``)
        said = f"{esc(computed.items[0])}: {esc(computed.values[0])} [{computed.sources[0]}]"
        lines.append(f"\n**Computed, not written by the model:** {said} ({esc(computed.order)}).")
    elif computed is not None:
        pairs = ", ".join(
            f"{esc(item)} {esc(value)} [{n}]"
            for item, value, n in zip(computed.items, computed.values, computed.sources, strict=True)
        )
        lines.append(f"\n**Computed, not written by the model:** compared {pairs} ({esc(computed.order)}).")
    return lines


def _agentic_lines(trace: Trace) -> list[str]:
    """The agentic round (the KIMAs paper's second retrieval round), or that it did not run."""
    lines: list[str] = []
    agentic = trace.find(AgenticStage)
    if agentic is not None:
        if agentic.skipped:
            text = f"skipped ({esc(agentic.skipped)})"
        elif agentic.fallback:
            text = f"fell back to the first search ({esc(agentic.fallback)})"
        elif agentic.is_sufficient:
            text = "the evidence was judged sufficient"
        else:
            text = "searched again for: " + "; ".join(f"“{esc(q)}”" for q in agentic.queries)
            if agentic.missing_info:
                text += f" (missing: {esc(agentic.missing_info)})"
        lines.append(f"\n**Agentic round:** {text}")
    else:
        lines.append("\n**Agentic round:** did not run")
    return lines


def _verdict_lines(trace: Trace) -> list[str]:
    """Grounding, the chat model's check, the decision, and the support check of the answer."""
    lines: list[str] = []
    quote = trace.find(QuoteStage)
    if quote is not None:
        verdict = "answers" if quote.answerable else "does not answer"
        lines.append(
            f"\n**Grounding:** the evidence {verdict} the question (score {quote.score}, "
            f"threshold {quote.threshold}); quote ready after {quote.at_ms} ms"
        )
    check = trace.find(AnswerCheckStage)
    if check is not None:
        if check.answerable is None:
            text = f"could not judge ({esc(check.fallback)}); the answer went ahead"
        else:
            found = f" (“{esc(check.words)}”)" if check.words else ""
            if check.answerable:
                text = f"the sources answer the question{found}"
            else:
                text = f"the sources do not answer it: {esc(check.reason)}{found}"
        lines.append(f"\n**The chat model's check:** {text}")
    decision = trace.find(DecisionStage)
    if decision is not None:
        lines.append(
            f"\n**Decision:** {'answer' if decision.answer else 'decline'} ({esc(DECISION_RULES.get(decision.rule, decision.rule))})"
        )
    written = trace.find(AnswerStage)
    if written is not None and written.model:
        lines.append(f"\n**Written by:** {esc(written.model)}")
    support = trace.find(SupportStage)
    if support is not None:
        lines.append(
            f"\n**Support check:** {support.unsupported} of {support.sentences} answer "
            "sentences not found in the sources"
        )
    return lines


def _timing_lines(trace: Trace) -> list[str]:
    """How long each stage took."""
    lines: list[str] = []
    timings = trace.timings_ms
    if timings:
        lines.append("\n**Timings**\n")
        lines.append("| stage | ms |\n|---|---|")
        lines += [f"| {esc(STAGE_LABELS.get(stage, stage))} | {ms:,.0f} |" for stage, ms in timings.items()]
    return lines


def trace_markdown(trace: Trace, name_of: Callable[[str], str] = str) -> str:
    """The trace: rewritten query, routing, agents' queries, evidence, agentic round, timings; ``name_of``
    (collection id → the name the user gave it) names the collections as the Knowledge tab does."""
    lines = [
        *_question_lines(trace, name_of),
        *_search_lines(trace, name_of),
        *_evidence_lines(trace),
        *_agentic_lines(trace),
        *online_lines(trace),
        *_verdict_lines(trace),
        *_timing_lines(trace),
    ]
    return "\n".join(lines)
