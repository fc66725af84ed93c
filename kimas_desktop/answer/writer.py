"""The answer in the form the policy chose (``AnswerPolicy.form``): a decline with the closest passages,
the values computed in code, a document's own words, the quote (a model that writes no answer of its
own: ``quote_answer``), or the summarizer's streamed answer
(through the guard against loops and transcripts) with the support check, whose backing sources are the
citations; when the policy sets that answer aside (``AnswerPolicy.sets_aside``), the quote takes its
place. Every answer ends in one ``Outcome`` and the same trailing events (``finish``)."""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Sequence
from dataclasses import replace

from kimas_desktop.answer.decider import Decided
from kimas_desktop.answer.evidence import related_messages
from kimas_desktop.answer.outcome import (
    Answered,
    Declined,
    NothingFound,
    Outcome,
    Stopped,
    decline_text,
    quote_text,
)
from kimas_desktop.answer.phrases import phrase
from kimas_desktop.answer.prompt_plan import PromptPlanner
from kimas_desktop.answer.run import Run
from kimas_desktop.answer.signals.answer_slot import answer_shaped
from kimas_desktop.answer.signals.compare import Computed
from kimas_desktop.answer.signals.documents import OwnWords, in_own_words
from kimas_desktop.answer.signals.quote import renumber_quotes
from kimas_desktop.answer.signals.shape import misshapen
from kimas_desktop.answer.tables.answer import TableAnswer, table_place
from kimas_desktop.answer.writing.budget import PaceMeter, PromptSpeed
from kimas_desktop.answer.writing.citations import (
    cites_quote,
    closest_passages,
    supported_citations,
    value_citations,
)
from kimas_desktop.answer.writing.echo import EchoFilter
from kimas_desktop.answer.writing.guard import StreamGuard, guard_stream
from kimas_desktop.answer.writing.support import SupportChecker, uses_quote
from kimas_desktop.clock import Clock
from kimas_desktop.errors import Cancelled
from kimas_desktop.events import (
    AnswerDelta,
    CitationsReady,
    Done,
    Event,
    Status,
    SupportReady,
    TableReady,
    TraceReady,
)
from kimas_desktop.trace import (
    AnswerStage,
    CitationsStage,
    ComputeStage,
    FirstTokenStage,
    Reason,
    SupportStage,
    TotalStage,
)
from kimas_desktop.types import Message, Quote, SentenceSupport

__all__ = ["QUOTE_ONLY", "AnswerWriter", "finish", "quote_answer"]


def _cites_nowhere(s: SentenceSupport, nowhere: Sequence[int]) -> SentenceSupport:
    """``s`` unsupported when a marker pointing to no source stood in it (or right after it)."""
    if not any(s.start <= at <= s.end for at in nowhere):
        return s
    return replace(s, supported=False, source=None, reason="not in the sources")


Steps = Generator[Event, None, None]
# the trace's note, when the chat model writes no answer of its own (``quote_answer``)
QUOTE_ONLY = Reason("the chat model writes no answer of its own: the quote is the answer", "quote_only")


class AnswerWriter:
    def __init__(self, planner: PromptPlanner, support: SupportChecker, speed: PromptSpeed) -> None:
        self._planner = planner
        self._support = support
        self._speed = speed

    def write(self, run: Run, decided: Decided | None) -> Steps:
        """The answer's events, from the first word to ``Done``."""
        if decided is None or run.policy is None:
            yield from finish(run, NothingFound(phrase("nothing found", run.question), "nothing close"))
            return
        form = run.policy.form(
            decided.decision,
            computed=run.computed is not None,
            focus=run.focus is not None,
            disagree=decided.grounding.disagree,
            quoted=bool(decided.grounding.quotes),
        )
        quotes = decided.grounding.quotes
        if form == "declined" and decided.decision.rule == "table" and run.table is not None:
            table = run.table
            yield from finish(run, Declined(table.text, (table.citation,), "table"))
        elif form == "table" and run.table is not None:
            yield from self._tabled(run, run.table)
        elif form == "declined":
            quoted = " ".join(q.text for q in quotes)
            shaped = bool(quotes) and answer_shaped(run.question, quoted, run.trace.query)
            may = run.policy.decline_wording(shaped=shaped) == "may answer"
            text = decline_text(run.question, quotes, may_answer=may)
            yield from finish(run, Declined(text, closest_passages(quotes), decided.decision.rule))
        elif form == "disagree":
            yield from self._disagree(run, renumber_quotes(quotes, decided.evidence.hits))
        elif form == "computed" and run.computed is not None:
            yield from self._computed(run, decided, run.computed)
        elif form == "quote":
            yield from quote_answer(run, quotes, QUOTE_ONLY, quote_only=True)
        else:
            said = self._own_words(run, decided) if form == "own words" else None
            yield from self._said(run, said) if said is not None else self._by_model(run, decided)

    def _by_model(self, run: Run, decided: Decided) -> Steps:
        """The summarizer's answer, streamed, then verified sentence by sentence."""
        evidence = replace(decided.evidence, related=related_messages(run))
        evidence, messages = self._planner.plan(run, evidence, decided.grounding)
        yield TraceReady(run.trace.snapshot())  # so far: a stopped answer keeps it
        meter, writing = PaceMeter(self._speed), phrase("writing", run.question)
        yield Status("answer", writing, None if run.checked else meter.reading(run.prompt_tokens))
        written: list[str] = []
        try:
            echo = EchoFilter({h.chunk.file_name for h in evidence.hits}, len(evidence.hits))
            answer = yield from self._stream(run, messages, written, meter, writing, echo)
        except Cancelled:
            yield from finish(run, Stopped("".join(written)))
            raise
        yield from self._verify(run, answer, replace(decided, evidence=evidence), echo.dropped)

    def _stream(
        self,
        run: Run,
        messages: list[Message],
        parts: list[str],
        meter: PaceMeter,
        writing: str,
        echo: EchoFilter,
    ) -> Generator[Event, None, str]:
        """Stream the summarizer's answer (without the labels and markers it copies, ``echo``, through the
        guard) into ``parts``; returns the answer's text. The status line hears the model's pace about once
        a second (``PaceMeter``)."""
        guard = StreamGuard()
        t = Clock()
        deltas = echo.stream(run.stages.summarizer.stream(messages, temperature=run.options.temperature))
        try:
            for delta in guard_stream(deltas, guard):
                if not parts:
                    run.trace.add(FirstTokenStage(run.clock.ms()))
                    if not run.checked and run.options.temperature is None:  # else the cache held a part
                        self._speed.observe(run.prompt_tokens, t.ms() / 1000)
                parts.append(delta)
                yield AnswerDelta(delta)
                pace = meter.wrote(delta)
                if pace is not None:
                    yield Status("answer", writing, pace)
        finally:
            run.trace.add(AnswerStage(t.ms(), len(parts), guard.reason or "", run.stages.summarizer.model_id))
        return guard.text

    def _verify(self, run: Run, answer: str, decided: Decided, nowhere: Sequence[int] = ()) -> Steps:
        """The support check: each sentence backed by a source or marked; the backing sources are the
        citations. A sentence that cited a source there is none of (its marker dropped at ``nowhere``) is
        unsupported, whatever the check found."""
        t = Clock()
        hits = decided.evidence.hits
        quotes = renumber_quotes(decided.grounding.quotes, hits)
        report = self._support.check(answer, hits, run.question, quotes)
        if nowhere:
            report = replace(report, sentences=tuple(_cites_nowhere(s, nowhere) for s in report.sentences))
        citations = supported_citations(report.sentences, hits)
        quote = " ".join(q.text for q in quotes)
        # the answer uses the quote when it cites its passage, or says its facts (issue 69)
        used = (cites_quote(citations, quotes) or uses_quote(answer, quote, run.question)) if quotes else None
        shape = misshapen(answer, run.question) if quotes else ""  # no answer at all: as if unsupported
        aside = bool(shape) or (
            run.policy is not None and run.policy.sets_aside(decided.decision, report.sentences, quotes)
        )
        run.trace.add(SupportStage(t.ms(), len(report.sentences), report.unsupported, used, aside))
        yield SupportReady(report.sentences, used)
        if aside:
            yield from self._quoted(run, quotes, set_aside=answer, why=shape)
            return
        note = "" if citations else "no sentence of the answer is backed by the sources"
        run.trace.add(CitationsStage(0.0, tuple(c.n for c in citations), note or "from the support check"))
        yield from finish(run, Answered(answer, citations, note))

    def _computed(self, run: Run, decided: Decided, computed: Computed) -> Steps:
        """A comparison answered in code: the two values with the sentences they were read from."""
        c, values = computed.comparison, computed.values
        run.trace.add(
            ComputeStage(0.0, c.order, c.items, tuple(v.text for v in values), tuple(v.n for v in values))
        )
        run.trace.add(FirstTokenStage(run.clock.ms()))
        yield AnswerDelta(computed.text)
        citations = value_citations(values, decided.evidence.hits)
        run.trace.add(
            CitationsStage(0.0, tuple(x.n for x in citations), "the sentences the values come from")
        )
        yield from finish(run, Answered(computed.text, citations, "compared in code"))

    @staticmethod
    def _tabled(run: Run, table: TableAnswer) -> Steps:
        """A question computed over a table: the value, the query in plain words and the rows used."""
        q, r = table.query, table.result
        op = q.operation if q is not None else "none"
        place = (table_place(table.table),)
        run.trace.add(ComputeStage(0.0, op, place, (r.description,), (table.citation.n,)))
        run.trace.add(FirstTokenStage(run.clock.ms()))
        yield TableReady(table)
        yield AnswerDelta(table.text)
        run.trace.add(CitationsStage(0.0, (table.citation.n,), "the table the value was computed over"))
        yield from finish(run, Answered(table.text, (table.citation,), "computed over the table's rows"))

    @staticmethod
    def _own_words(run: Run, decided: Decided) -> OwnWords | None:
        assert run.focus is not None
        quotes = renumber_quotes(decided.grounding.quotes, decided.evidence.hits)
        return in_own_words(run.focus, decided.evidence.hits, quotes)

    @staticmethod
    def _quoted(run: Run, quotes: list[Quote], set_aside: str, why: str = "") -> Steps:
        """The quote in place of a model's answer no source backs (rule ``quote instead``) or that is no
        answer (``why``: its shape, ``signals/shape.py``): the documents' own words, saying the model's text
        was set aside (``Done`` carries this text alone)."""
        text, cited = quote_text(quotes, set_aside=True, question=run.question), closest_passages(quotes)
        yield AnswerDelta(f"\n\n{text}")
        note = "the model's answer was set aside" + (f" ({why})" if why else "")
        run.trace.add(CitationsStage(0.0, tuple(c.n for c in cited), note))
        yield from finish(run, Answered(text, cited, "the model's answer was set aside", set_aside))

    @staticmethod
    def _disagree(run: Run, quotes: list[Quote]) -> Steps:
        """Sources that state the asked value differently: each one's sentence with its file, no model."""
        text = quote_text(quotes, question=run.question, disagree=True)
        yield from AnswerWriter._said(run, OwnWords(text, closest_passages(quotes), "the sources disagree"))

    @staticmethod
    def _said(run: Run, said: OwnWords) -> Steps:
        """A document's answer in its own words (``documents.py``), for a model that cannot judge."""
        run.trace.add(FirstTokenStage(run.clock.ms()))
        yield AnswerDelta(said.text)
        run.trace.add(CitationsStage(0.0, tuple(c.n for c in said.citations), said.note))
        yield from finish(run, Answered(said.text, said.citations, said.note))


def quote_answer(run: Run, quotes: Sequence[Quote], note: Reason, *, quote_only: bool = False) -> Steps:
    """The quote as the answer, with its sources, no model writing: the form ``quote`` (``quote_only``: a
    model whose description says it writes no answer of its own) and a model not ready yet
    (``answer.unwritten``). ``note`` says which, in the trace (``CitationsStage.quoted``)."""
    text, cited = quote_text(quotes, question=run.question), closest_passages(quotes)
    run.trace.add(FirstTokenStage(run.clock.ms()))
    yield AnswerDelta(text, quote_only=quote_only)
    run.trace.add(CitationsStage(0.0, tuple(c.n for c in cited), note.english, quoted=note))
    yield from finish(run, Answered(text, cited, note.english, quote_only=quote_only))


def finish(run: Run, outcome: Outcome) -> Steps:
    """The trailing events of every answer, whatever its outcome."""
    if isinstance(outcome, NothingFound | Declined):
        yield AnswerDelta(outcome.text)
    if isinstance(outcome, Declined):
        note = "the closest passages; they do not answer the question"
        yield CitationsReady(outcome.closest, True, note)
    elif isinstance(outcome, Answered):
        yield CitationsReady(outcome.citations, True, outcome.note)
    elif isinstance(outcome, NothingFound) and outcome.reason == "nothing close":
        yield CitationsReady((), True, "nothing relevant was found")
    with contextlib.suppress(Cancelled):  # the analysis a stopped answer ended has nothing to add
        related_messages(run)  # no model call of this answer outlives it
    run.trace.add(TotalStage(run.clock.ms()))
    yield TraceReady(run.trace.snapshot())
    yield Done(outcome)
