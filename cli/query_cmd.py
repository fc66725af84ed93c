"""``kimas retrieve`` and ``kimas ask``: the retrieval and answer paths from the command line."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.chat.store import FILE_NAME as CONVERSATIONS
from app.chat.store import ConversationStore
from app.paths import read_config, resolve_paths
from app.runtime import Runtime
from app.tools.results import TableComputation
from cli.render import (
    Progress,
    answerable_json,
    citation_json,
    dumps,
    marked_text,
    quote_json,
    read_batch,
    read_history,
    retrieval_json,
    route_json,
    support_json,
    trace_json,
)
from cli.terminal import say
from kimas_desktop.answer.model_alone import LABEL, ModelAlone
from kimas_desktop.answer.outcome import ModelAlone as ModelAloneOutcome
from kimas_desktop.answer.writing.reading_order import StreamNumbering
from kimas_desktop.config import PRESETS
from kimas_desktop.errors import KimasError
from kimas_desktop.events import (
    AnswerDelta,
    CitationsReady,
    Done,
    Event,
    QuoteReady,
    SupportReady,
    TableReady,
    TraceReady,
)
from kimas_desktop.pipeline import AskOptions, Pipeline
from kimas_desktop.text.visible import visible_name
from kimas_desktop.types import Chunk, Citation, Message, SentenceSupport


def add_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    for name, run, helptext in (
        ("retrieve", run_retrieve, "find the best evidence for a question (JSON)"),
        ("ask", run_ask, "answer a question from your collections, with citations"),
    ):
        p = sub.add_parser(name, parents=[common], help=helptext)
        p.add_argument("question", nargs="?", help="the question (omit with --batch)")
        p.add_argument(
            "--history",
            help="the conversation before the question: a stored conversation's id (the app's chat sidebar "
            "shows it) or a JSON file with a list of {role, content} messages (an answer may add its "
            "sources: the files it came from)",
        )
        p.add_argument(
            "--batch", help="JSONL file: one {id, question, history?} per line; one result per line"
        )
        p.add_argument("--preset", choices=PRESETS, help="override the config's preset")
        p.add_argument("--json", action="store_true", help="print one JSON object per question")
        if name == "ask":
            p.add_argument(
                "--try-anyway",
                action="store_true",
                help="let the model answer even when your documents do not seem to say (and let the "
                "embedded model write, which otherwise answers with the quote)",
            )
            p.add_argument(
                "--no-documents",
                action="store_true",
                help="the model answers alone, from its own knowledge: no retrieval, no citations "
                "(labelled as not from your documents)",
            )
            p.add_argument(
                "--source",
                action="append",
                default=[],
                metavar="NAME",
                help="also ask this online source (an enabled [sources.NAME]) for this question",
            )
        p.set_defaults(run=run)


def _runtime(args: argparse.Namespace) -> Runtime:
    paths = resolve_paths(args.data_dir, args.config)
    return Runtime(paths, read_config(paths, preset=args.preset))


def _history(args: argparse.Namespace) -> list[Message]:
    """``--history``: a file, else the id of a conversation stored in the data dir."""
    value = args.history
    if not value or Path(value).exists():
        return read_history(value)
    stored = resolve_paths(args.data_dir, args.config).data_dir / CONVERSATIONS
    store = ConversationStore(stored) if stored.is_file() else None
    if store is not None and store.problem:  # a damaged file was set aside: say so here too
        say(f"kimas: {store.problem}", file=sys.stderr)
    conv = store.load(value) if store is not None else None
    if conv is None:
        raise KimasError(
            f"--history {value}: there is no such file, and no stored conversation with that id."
        )
    return conv.history("model" if getattr(args, "no_documents", False) else "documents")


def _inputs(args: argparse.Namespace) -> list[tuple[str, str, list[Message]]]:
    if args.batch:
        return read_batch(args.batch)
    if not args.question:
        raise SystemExit("kimas: give a QUESTION or --batch FILE")
    return [("", args.question, _history(args))]


def _batched(args: argparse.Namespace, answer_one: Any) -> int:
    items = _inputs(args)
    runtime = _runtime(args)
    try:
        pipeline = runtime.pipeline()
        progress = Progress(len(items), "questions") if args.batch else None
        for done, (qid, question, history) in enumerate(items, 1):
            if args.batch:
                try:
                    out = {"id": qid, **answer_one(pipeline, question, history)}
                except KimasError as err:  # one failed answer (say, a model crash) must not end the batch
                    out = {"id": qid, "error": str(err)}
            else:
                out = answer_one(pipeline, question, history)
            if out is not None and (args.json or args.batch):
                say(dumps(out), flush=True)
            if progress:
                progress.update(done, question)
    finally:
        runtime.close()
    return 0


def run_retrieve(args: argparse.Namespace) -> int:
    def one(pipeline: Pipeline, question: str, history: list[Message]) -> dict[str, Any]:
        return retrieval_json(pipeline.retrieve(question, history))

    if not args.json and not args.batch:
        args.json = True  # retrieve's output is JSON either way
    return _batched(args, one)


def _check_sources(args: argparse.Namespace) -> None:
    """Every ``--source`` names an enabled online source."""
    sources = read_config(resolve_paths(args.data_dir, args.config)).sources if args.source else {}
    for name in args.source or ():
        if name not in sources or not sources[name].enabled:
            known = ", ".join(n for n, s in sources.items() if s.enabled) or "none is enabled"
            raise KimasError(f"--source {name}: no enabled online source has that name ({known})")


def run_ask(args: argparse.Namespace) -> int:
    stream_text = not args.json and not args.batch
    if args.no_documents:
        return _run_model_alone(args, stream_text)
    _check_sources(args)

    def one(pipeline: Pipeline, question: str, history: list[Message]) -> dict[str, Any]:
        out: dict[str, Any] = {
            "answer": "",
            "citations": [],
            "citations_available": True,
            "quote": None,
            "answerable": None,
            "support": None,
            "answer_uses_quote": None,
            "table": None,  # computed over a table: operation, value, rows used, file/sheet/row numbers
        }
        text = AnswerText() if stream_text else None
        for event in pipeline.ask(
            question, history, options=AskOptions(try_anyway=args.try_anyway, sources=tuple(args.source))
        ):
            if text is not None:
                text.take(event)
            if isinstance(event, QuoteReady):
                out["quote"] = quote_json(event.quotes)
                out["answerable"] = answerable_json(event.answerability)
            elif isinstance(event, TableReady):
                out["table"] = dataclasses.asdict(TableComputation.of(event.answer))
            elif isinstance(event, SupportReady):
                out["support"] = [support_json(s) for s in event.sentences]
                out["answer_uses_quote"] = event.uses_quote
            elif isinstance(event, CitationsReady):
                out["citations"] = [citation_json(c) for c in event.citations]
                out["citations_available"] = event.available
            elif isinstance(event, TraceReady):
                out["routes"] = [route_json(r) for r in event.trace.routes]
                out["timings_ms"] = event.trace.timings_ms
                out["trace"] = trace_json(event.trace)
            elif isinstance(event, Done):
                out["answer"] = event.answer
                out["answered_from_sources"] = event.answered_from_sources
                out["outcome"] = event.outcome.kind
        if stream_text:
            say()
        return out

    return _batched(args, one)


def _run_model_alone(args: argparse.Namespace, stream_text: bool) -> int:
    """``kimas ask --no-documents``: the chat model alone (``answer.model_alone``); nothing is searched, so
    no store is opened. The reply says first that it is not from your documents."""
    if args.source or args.try_anyway:
        raise KimasError("--no-documents asks the model alone: it takes no --source or --try-anyway")
    items = _inputs(args)
    runtime = _runtime(args)
    try:
        model = runtime.model_alone()
        for qid, question, history in items:
            out: dict[str, Any] = {"id": qid} if args.batch else {}
            try:
                out |= _model_alone_one(model, question, history, stream_text)
            except KimasError as err:
                if not args.batch:
                    raise
                out["error"] = str(err)
            if args.json or args.batch:
                say(dumps(out), flush=True)
    finally:
        runtime.close()
    return 0


def _model_alone_one(
    model: ModelAlone, question: str, history: list[Message], stream_text: bool
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "mode": "model alone",
        "label": LABEL,
        "answer": "",
        "answered_from_sources": False,
        "citations": [],
        "quote": None,
        "support": None,
    }
    if stream_text:
        say(f"[{LABEL}]\n")
    for event in model.ask(question, history):
        if isinstance(event, AnswerDelta) and stream_text:
            say(event.text, end="", flush=True)
        elif isinstance(event, TraceReady):
            out["timings_ms"] = event.trace.timings_ms
            out["trace"] = trace_json(event.trace)
        elif isinstance(event, Done):
            out["answer"], out["outcome"] = event.answer, event.outcome.kind
            if isinstance(event.outcome, ModelAloneOutcome):
                out["model"] = event.outcome.model
    if stream_text:
        say()
    return out


# Said once where a model's answer would be, when the quote is the answer (issue 69: it was printed twice)
QUOTE_ONLY = (
    "(This chat model writes no answer of its own, so the quote is the answer. --try-anyway lets it write; "
    "a bigger model writes: kimas models.)"
)


class AnswerText:
    """What ``kimas ask`` prints as an answer comes (without ``--json``): the quote, the streamed answer, the
    sentences not found in the sources, the answer with its markers and the sources, each source by the
    number a reader meets it by, as the chat numbers them (``reading_order``; issue 69: they started at
    [2] or [3]). An answer that is the quote (``AnswerDelta.quote_only``) is the quote printed above, not
    printed again. ``--json`` keeps the evidence's numbers, as the trace does."""

    def __init__(self) -> None:
        self._numbering = StreamNumbering()
        self._support: tuple[SentenceSupport, ...] = ()

    def take(self, event: Event) -> None:
        if isinstance(event, QuoteReady):
            numbers = self._numbering.quoted(event.quotes)
            for q in event.quotes:
                say(f"“{' '.join(q.text.split())}” [{numbers[q.n]}] {_where(q.chunk)}")
            if event.quotes:
                say()
        elif isinstance(event, AnswerDelta) and event.quote_only:  # the quote above is the answer
            say(QUOTE_ONLY, end="")
        elif isinstance(event, AnswerDelta):
            say(self._numbering.add(event.text), end="", flush=True)
        elif isinstance(event, SupportReady):
            self._support = event.sentences
            say(self._numbering.flush(), end="")
            if event.unsupported:
                flagged = [self._numbering.said(s.text) for s in event.sentences if not s.supported]
                say(f"\n\n(not found in the sources: {' / '.join(flagged)})", end="")
        elif isinstance(event, CitationsReady):
            rest, order = self._numbering.end(None, self._support, event.citations)
            say(rest, end="")
            marked = marked_text(order.answer, order.support, order.citations)
            if marked:
                say(f"\n\nWith its sources: {marked}", end="")
            self._sources(order.citations, event.available)

    @staticmethod
    def _sources(citations: Sequence[Citation], available: bool) -> None:
        if not available:
            say("\n\n(citations are unavailable for this answer)")
            return
        if citations:
            say("\n\nSources:")
        for c in citations:
            say(f"  [{c.n}] {_where(c.chunk)}")


def _where(chunk: Chunk) -> str:
    """The file's name as it is shown, then ", p. 3", ", p. 3 (OCR)", ", lines 10-24" or nothing."""
    if chunk.page:
        place = f", p. {chunk.page}" + (" (OCR)" if chunk.ocr else "")
    else:
        place = f", lines {chunk.lines[0]}-{chunk.lines[1]}" if chunk.lines else ""
    return visible_name(chunk.source) + place
