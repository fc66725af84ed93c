"""The trace ("How this answer was made") as Markdown: each typed stage record rendered by its fields, in the
language of its question (issue 69: ``ui.chat.trace_words``), like the chat's other lines."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.chat.viewer import viewable
from kimas_desktop.answer.phrases import language_of
from kimas_desktop.answer.writing.budget import Pace, first_word_s
from kimas_desktop.text.visible import visible_name
from kimas_desktop.text.words import truncate
from kimas_desktop.trace import (
    AgenticStage,
    AnswerCheckStage,
    AnswerStage,
    BudgetStage,
    CitationsStage,
    ComputeStage,
    DecisionStage,
    DocumentStage,
    FirstTokenStage,
    HopStage,
    OnlineStage,
    QuoteStage,
    Reason,
    ReembedStage,
    RewriteStage,
    SupportStage,
    Trace,
)
from kimas_desktop.types import Chunk, Hit
from ui.chat.said import said, said_in
from ui.chat.trace_words import MARKS, reason_said
from ui.markup import esc, viewer_url

__all__ = ["budget_line", "locator", "stage_label", "status_line", "trace_markdown"]


@dataclass(frozen=True)
class Say:
    """The trace's words in ``lang``: ``say(key, **values)`` is ``said_in`` (``ui.chat.trace_words``), and
    the marks between a list's items, between queries and at a sentence's end are the language's."""

    lang: str

    def __call__(self, key: str, **values: object) -> str:
        return said_in(key, self.lang, **values)

    def reason(self, english: str, reason: Reason | None) -> str:
        """A sentence of a record (``english``, with its ``Reason``) in ``lang``, escaped."""
        return esc(reason_said(english, reason, self))

    @property
    def sep(self) -> str:
        return MARKS.get(self.lang, MARKS["en"])[0]

    @property
    def query_sep(self) -> str:
        return MARKS.get(self.lang, MARKS["en"])[1]

    @property
    def end(self) -> str:
        return MARKS.get(self.lang, MARKS["en"])[2]


ENGLISH = Say("en")


def stage_label(stage: str, lang: str = "en") -> str:
    """What the timed ``stage`` is called on the page, in ``lang`` (an unknown stage: its own name)."""
    key = f"tr stage {stage}"
    text = said_in(key, lang)
    return stage if text == key else text


def locator(chunk: Chunk, lang: str = "en") -> str:
    """Where ``chunk`` is in its file, in ``lang``: ``Chunk.locator`` ("p. 3", "lines 10-24") said again."""
    if chunk.page is not None:
        return said_in("at page ocr" if chunk.ocr else "at page", lang, n=chunk.page)
    if chunk.lines is not None:
        return said_in("at lines", lang, start=chunk.line_start, end=chunk.line_end)
    return ""


def _hit_line(n: int, h: Hit, name_of: Callable[[str], str], say: Say, lang: str) -> str:
    """One piece of evidence; a file the viewer shows links to its page at the passage (``/kimas/view``)."""
    c = h.chunk
    where = f" · {locator(c, lang) or c.locator}" if c.locator else ""
    name = f"**{esc(c.source if c.online else visible_name(Path(c.source).name))}**"
    if not c.online and viewable(c.source):
        at = html.escape(viewer_url(c.source, c.page, c.lines, c.text), quote=True)
        name = f"<a class='kimas-evidence' href='{at}' target='_blank' rel='noopener'>{name}</a>"
    return (
        f"{n}. {name}{esc(where)} · {esc(name_of(c.collection))} · {say('tr score', score=f'{h.score:.3f}')}"
        f" — {esc(truncate(' '.join(c.text.split()), 160))}"
    )


# The answer policy's rules (``DecisionStage.rule``), by what each means to a reader.
DECISION_RULES = {
    rule: said_in(f"tr rule {rule}", "en")
    for rule in ("lexical", "rescued", "doubted", "try anyway", "computed")
}


def _files(files: tuple[str, ...], say: Say) -> str:
    return say.sep.join(esc(visible_name(Path(f).name)) for f in files)


def conversation_use(rewrite: RewriteStage, say: Say = ENGLISH) -> str:
    """What the context manager took from the conversation, in the user's words."""
    within = say("tr within", files=_files(rewrite.within, say)) if rewrite.within else ""
    reason = say.reason(rewrite.reason, rewrite.reason_said)
    if rewrite.depends == "self-contained":
        also = say("tr also within", within=within) if within else ""
        if rewrite.note:
            note = say.reason(rewrite.note, rewrite.note_said)
            return say("tr as asked kept", note=note, reason=reason, also=also)
        return say("tr as asked", reason=reason, also=also)
    asked = say.sep.join(f"“{esc(truncate(q, 80))}”" for q in rewrite.earlier)
    both = ""
    if rewrite.also_as_asked:
        kept = say("tr in all files and", within=within) if within else ""
        both = say("tr also as asked", kept=kept)
    return say("tr used earlier", asked=asked or say("tr the earlier answers"), reason=reason, both=both)


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


def budget_line(b: BudgetStage, first: FirstTokenStage | None = None, say: Say = ENGLISH) -> str:
    """How the answer prompt was cut to start in time (issue 28), in the user's words: the aim, whether
    it was still ahead when the prompt was planned, when the first word was expected at the measured
    speed (where that speed comes from: ``PromptSpeed``'s "measured at load", "recent answers", "unknown")
    and when it came. A time is said to be due only while it was still ahead (issue 46)."""
    given = say("tr budget given", n=b.sources, s="s" if b.sources != 1 else "", prompt=b.prompt)
    came = say("tr budget came", at=f"{first.ms / 1000:.1f}") if first is not None else ""
    label = say("tr budget")
    if b.allowed is None:
        source = esc(say(b.speed_from))
        why = say("tr budget no limit") if b.target_s <= 0 else say("tr budget speed unknown", source=source)
        return f"\n{label} {say('tr budget none', why=why, given=given)}{came}"
    speed = (
        say("tr budget speed", rate=f"{b.tokens_per_s:.0f}", source=esc(say(b.speed_from)))
        if b.tokens_per_s
        else ""
    )
    target, elapsed = f"{b.target_s:g}", f"{b.elapsed_s:.1f}"
    if b.elapsed_s < b.target_s:
        aim = say(
            "tr budget ahead", target=target, elapsed=elapsed, speed=speed, allowed=b.allowed, given=given
        )
    else:
        aim = say("tr budget passed", target=target, elapsed=elapsed, speed=speed, given=given)
    text = f"\n{label} {aim}"
    if b.cut:
        text += say("tr budget cut", n=b.cut, s="s" if b.cut != 1 else "")
    if b.over:
        text += say("tr budget over")
    expected = first_word_s(b.elapsed_s, b.prompt, b.tokens_per_s)
    if expected is not None:
        text += say("tr budget expected", at=f"{expected:.1f}")
    return text + say.end + came


def _asked(r: OnlineStage, say: Say) -> str:
    why = say.reason(r.why, r.why_said)
    return say("tr asked query", query=esc(r.query), why=why) if r.query else say("tr asked", why=why)


def online_lines(trace: Trace, say: Say = ENGLISH) -> list[str]:
    """Which online sources were asked, with which query (what left this computer), and what came back."""
    records = [s for s in trace.stages if isinstance(s, OnlineStage)]
    if not records:
        return []
    out = [f"\n{say('tr online')}\n"]
    for r in records:
        source = esc(r.source)
        if r.skipped:
            out.append(f"- {say('tr not asked', source=source, why=say.reason(r.skipped, r.skipped_said))}")
        elif r.error:
            error = say.reason(r.error, r.error_said)
            out.append(f"- {say('tr online failed', source=source, asked=_asked(r, say), error=error)}")
        else:
            found = say(
                "tr online found",
                source=source,
                asked=_asked(r, say),
                results=r.results,
                pages=r.pages_read,
                passages=r.passages,
                seconds=f"{r.ms / 1000:.1f}",
            )
            out.append(f"- {found}")
    return out


def _question_lines(trace: Trace, name_of: Callable[[str], str], say: Say) -> list[str]:
    """The search query, what the conversation added, and collections that need re-embedding."""
    lines: list[str] = []
    rewrite = trace.find(RewriteStage)
    method = ""
    if rewrite is not None and rewrite.method:
        named = say(f"tr method {rewrite.method}")
        method = say("tr by", method=esc(rewrite.method if named.startswith("tr method") else named))
    lines.append(f"{say('tr query')} {esc(trace.query or trace.question)}{method}")
    if rewrite is not None and rewrite.reason and rewrite.method != "first-turn":
        lines.append(f"\n{say('tr conversation')} {conversation_use(rewrite, say)}")
    stale = trace.find(ReembedStage)
    if stale is not None:
        names = say.sep.join(esc(name_of(c)) for c in stale.collections)
        lines.append(f"\n{say('tr needs reembedding', names=names)}")
    return lines


def _search_lines(trace: Trace, name_of: Callable[[str], str], say: Say, lang: str) -> list[str]:
    """Routing, the retrieval agents' queries, and the evidence given to the model; each collection by
    the name it shows (``name_of``: id → name)."""
    lines: list[str] = []
    if trace.routes:
        searched = set(trace.agent_queries)
        lines.append(f"\n{say('tr collections')}\n")
        columns = "collection score topics description passages words searched".split()
        head = " | ".join(say(f"tr col {c}") for c in columns)
        lines.append(f"| {head} |\n" + "|---" * len(columns) + "|")
        for r in trace.routes:
            mixin = "–" if r.mixin_score is None else f"{r.mixin_score:.3f}"
            lexical = "–" if r.lexical_score is None else f"{r.lexical_score:+.2f}"
            mark = say("tr yes") if r.collection in searched else ""
            lines.append(
                f"| {esc(name_of(r.collection))} | {r.score:.3f} | {r.centroid_score:.3f} | {mixin} "
                f"| {r.dense_score:.3f} | {lexical} | {mark} |"
            )
    if trace.agent_queries:
        lines.append(f"\n{say('tr agent queries')}\n")
        for name, queries in trace.agent_queries.items():
            lines.append(f"- {esc(name_of(name))}: " + say.query_sep.join(f"“{esc(q)}”" for q in queries))
    if trace.evidence:
        lines.append(f"\n{say(_evidence_heading(trace))}\n")
        lines += [_hit_line(i + 1, h, name_of, say, lang) for i, h in enumerate(trace.evidence)]
    return lines


def _evidence_heading(trace: Trace) -> str:
    """What became of the evidence: the quote chosen from it as the answer, no model asked (``quoted``); given
    to the model to write from (its prompt planned); or neither (a decline, a value computed in code)."""
    cited = trace.find(CitationsStage)
    if cited is not None and cited.quoted is not None:
        return "tr evidence quote"
    return "tr evidence" if trace.find(BudgetStage) is not None else "tr evidence found"


def _order(order: str, say: Say) -> str:
    """A computed answer's order or operation (``ComputeStage.order``), as a word."""
    said_order = say(f"tr order {order}")
    return esc(order if said_order.startswith("tr order") else said_order)


def _evidence_lines(trace: Trace, say: Say) -> list[str]:
    """How the evidence was shaped: the time budget, a document's card or chapter, hops, computed values."""
    lines: list[str] = []
    budget = trace.find(BudgetStage)
    if budget is not None:
        lines.append(budget_line(budget, trace.find(FirstTokenStage), say))
    doc = trace.find(DocumentStage)
    if doc is not None:
        name = esc(visible_name(doc.source.rsplit("/", 1)[-1]))
        what = (
            say("tr its chapter", section=esc(doc.section), n=doc.passages)
            if doc.section
            else say("tr its card")
        )
        why = say.reason(doc.why, doc.why_said)
        lines.append(f"\n{say('tr document', name=name, what=what, why=why)}")
    hops = [s for s in trace.stages if isinstance(s, HopStage)]
    if hops:
        lines.append(f"\n{say('tr hops')}\n")
        for h in hops:
            if h.round:
                lines.append(f"- {say('tr hop round', round=h.round, query=esc(h.query), n=len(h.added))}")
            else:
                lines.append(f"- {say.reason(h.why, h.why_said)}")
    computed = trace.find(ComputeStage)
    if computed is not None and len(computed.items) == 1:  # over a table's rows (``answer/tables``)
        said_value = f"{esc(computed.items[0])}: {esc(computed.values[0])} [{computed.sources[0]}]"
        lines.append(f"\n{say('tr computed', said=said_value, order=_order(computed.order, say))}")
    elif computed is not None:
        pairs = say.sep.join(
            f"{esc(item)} {esc(value)} [{n}]"
            for item, value, n in zip(computed.items, computed.values, computed.sources, strict=True)
        )
        lines.append(f"\n{say('tr computed pairs', pairs=pairs, order=_order(computed.order, say))}")
    return lines


def _agentic_lines(trace: Trace, say: Say) -> list[str]:
    """The agentic round (the KIMAs paper's second retrieval round), or that it did not run."""
    agentic = trace.find(AgenticStage)
    if agentic is None:
        text = say("tr did not run")
    elif agentic.skipped:
        text = say("tr skipped", why=say.reason(agentic.skipped, agentic.skipped_said))
    elif agentic.fallback:
        text = say("tr fell back", why=say.reason(agentic.fallback, agentic.fallback_said))
    elif agentic.is_sufficient:
        text = say("tr sufficient")
    else:
        queries = say.query_sep.join(f"“{esc(q)}”" for q in agentic.queries)
        text = say("tr searched again", queries=queries)
        if agentic.missing_info:  # the model's words
            text += say("tr missing", info=esc(agentic.missing_info))
    return [f"\n{say('tr agentic', text=text)}"]


def _check_line(check: AnswerCheckStage, say: Say) -> str:
    """The chat model's answerability check (``AnswerCheckStage``)."""
    if check.answerable is None:
        text = say("tr check failed", why=say.reason(check.fallback, check.fallback_said))
    else:
        found = say("tr check words", words=esc(check.words)) if check.words else ""
        if check.answerable:
            text = say("tr check answers", found=found)
        else:
            text = say("tr check not", reason=say.reason(check.reason, check.reason_said), found=found)
    return f"\n{say('tr check', text=text)}"


def _verdict_lines(trace: Trace, say: Say) -> list[str]:
    """Grounding, the chat model's check, the decision, and the support check of the answer."""
    lines: list[str] = []
    quote = trace.find(QuoteStage)
    if quote is not None:
        key = "tr grounding answers" if quote.answerable else "tr grounding not"
        lines.append(f"\n{say(key, score=quote.score, threshold=quote.threshold, ms=quote.at_ms)}")
    check = trace.find(AnswerCheckStage)
    if check is not None:
        lines.append(_check_line(check, say))
    decision = trace.find(DecisionStage)
    if decision is not None:
        what = say("tr answer" if decision.answer else "tr decline")
        rule = say(f"tr rule {decision.rule}") if decision.rule in DECISION_RULES else decision.rule
        lines.append(f"\n{say('tr decision', what=what, rule=esc(rule))}")
    written = trace.find(AnswerStage)
    if written is not None and written.model:
        lines.append(f"\n{say('tr written by', model=esc(written.model))}")
    quoted = cited.quoted if (cited := trace.find(CitationsStage)) is not None else None
    if quoted is not None:  # the answer is the quote: why no model wrote it
        lines.append(f"\n{say('tr answer quote', why=say.reason(quoted.english, quoted))}")
    support = trace.find(SupportStage)
    if support is not None:
        lines.append(f"\n{say('tr support', n=support.unsupported, total=support.sentences)}")
    return lines


def _timing_lines(trace: Trace, say: Say, lang: str) -> list[str]:
    """How long each stage took."""
    timings = trace.timings_ms
    if not timings:
        return []
    rows = [f"| {esc(stage_label(stage, lang))} | {ms:,.0f} |" for stage, ms in timings.items()]
    return [f"\n{say('tr timings')}\n", f"{say('tr timings head')}\n|---|---|", *rows]


def trace_markdown(trace: Trace, name_of: Callable[[str], str] = str, lang: str | None = None) -> str:
    """The trace: rewritten query, routing, agents' queries, evidence, agentic round, timings; ``name_of``
    (collection id → the name the user gave it) names the collections as the Knowledge tab does. Said in
    ``lang`` (None: the language of the trace's question, as the chat's other lines, issue 69)."""
    lang = language_of(trace.question) if lang is None else lang
    say = Say(lang)
    lines = [
        *_question_lines(trace, name_of, say),
        *_search_lines(trace, name_of, say, lang),
        *_evidence_lines(trace, say),
        *_agentic_lines(trace, say),
        *online_lines(trace, say),
        *_verdict_lines(trace, say),
        *_timing_lines(trace, say, lang),
    ]
    return "\n".join(lines)
