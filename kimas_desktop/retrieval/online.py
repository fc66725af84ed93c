"""The retrieval agent of an online source (KIMAs §3.3.1: a web search or a domain's search API).

What it sends is the user's own words and nothing else (``OnlineQueryWriter``): the question, and the
words of the earlier questions the context manager found it depends on, never the words of an answer or
a document, which may hold what is private. The agent rewrites that into keywords (the paper's keyword
rewrite, without an LLM), asks its source,
and splits what came back (a page's main text, or a result's snippet) into passages the size of a local
chunk. The passages go to the one reranker with the local evidence, so quotes, the support check and the
citations treat them like any other source: ``Chunk.source`` is the page's address, ``heading`` its title,
``indexed_at`` when it was retrieved.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor, Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass

from kimas_desktop.clock import elapsed_ms
from kimas_desktop.config import SourceConfig
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import SourceError
from kimas_desktop.protocols import OnlineSource
from kimas_desktop.text.sentences import split_sentences
from kimas_desktop.text.words import content_words, keywords, salient_terms
from kimas_desktop.trace import Reason
from kimas_desktop.types import Chunk, Hit, Message, OnlineDocument

__all__ = [
    "OnlineAgent",
    "OnlineOutcome",
    "OnlineQuery",
    "OnlineQueryWriter",
    "OnlineResult",
    "OnlineRound",
    "OnlineSources",
    "distinct",
    "document_hits",
    "passages",
]

PASSAGE_CHARS = 600  # about a local chunk (120 embedding tokens)
PASSAGES_PER_PAGE = 40  # a long page's first passages (the reranker reads every candidate)
EARLIER_TERMS = 10  # words a follow-up takes from the earlier questions (as the context manager's rewrite)
# What an online source's answer can raise while it is decoded or parsed (UnicodeError and json's errors
# are ValueErrors): that source is dropped with the reason, the answer goes on. Bugs and cancellation
# (``Cancelled``) pass through.
UNREADABLE = (LookupError, ValueError, RecursionError)


@dataclass(frozen=True)
class OnlineQuery:
    """What may leave the machine for a question: only words the user typed in this conversation."""

    text: str
    earlier: tuple[int, ...] = ()  # the earlier questions (indices into the history) it took words from


class OnlineQueryWriter:
    """The question, plus the telling words of the earlier user questions among ``turns`` (the turns the
    context manager found it depends on; an answer among them lends its question, never its own words)."""

    def write(self, question: str, history: Sequence[Message], turns: Sequence[int]) -> OnlineQuery:
        asked = [i for i in sorted(set(turns)) if 0 <= i < len(history) and history[i].role == "user"]
        if turns and not asked:  # it depends on an answer: the question that answer was for
            last = min(max(turns), len(history) - 1)
            asked = [i for i in range(last, -1, -1) if history[i].role == "user"][:1]
        earlier = [history[i].content for i in asked]
        terms = salient_terms([*earlier, *earlier[-1:]], exclude=content_words(question), limit=EARLIER_TERMS)
        return OnlineQuery(f"{question.strip()} {' '.join(terms)}".strip(), tuple(asked))


@dataclass(frozen=True)
class OnlineResult:
    source: str
    query: str  # what was sent
    hits: tuple[Hit, ...]
    results: int  # documents the source returned
    pages_read: int  # of them, pages whose text was read (the rest kept their snippets)
    ms: float
    error: str = ""
    error_said: Reason | None = None  # an error this module words itself, as a code


def passages(text: str, max_chars: int = PASSAGE_CHARS) -> list[str]:
    """``text`` in consecutive runs of whole sentences of at most ``max_chars`` (a longer sentence alone)."""
    out: list[str] = []
    current: list[str] = []
    size = 0
    for s in split_sentences(text, max_chars=max_chars):
        if current and size + len(s.text) + 1 > max_chars:
            out.append(" ".join(current))
            current, size = [], 0
        current.append(s.text)
        size += len(s.text) + 1
    if current:
        out.append(" ".join(current))
    return out


def document_hits(doc: OnlineDocument, rank: int) -> list[Hit]:
    """A document's passages as hits, scored by the source's rank (the reranker scores them again)."""
    hits: list[Hit] = []
    for i, text in enumerate(passages(doc.text)[:PASSAGES_PER_PAGE]):
        key = hashlib.sha256(f"{doc.source}\0{doc.url}\0{i}\0{text}".encode()).hexdigest()[:32]
        chunk = Chunk(key, doc.source, doc.url, text, heading=doc.title, indexed_at=doc.retrieved_at)
        hits.append(Hit(chunk, 1.0 / (rank + 1 + i / 100), origin=f"{doc.source}:online"))
    return hits


def distinct(hits: list[Hit]) -> list[Hit]:
    """The first of each passage whose words appear again (mirrors and syndicated copies on the web)."""
    seen: set[str] = set()
    out: list[Hit] = []
    for h in hits:
        key = " ".join(h.chunk.text.lower().split())
        if key not in seen:
            seen.add(key)
            out.append(h)
    return out


class OnlineAgent:
    def __init__(self, source: OnlineSource, timeout_s: float) -> None:
        self.source = source
        self.timeout_s = timeout_s

    def retrieve(self, query: str, cancel: CancelToken | None = None) -> OnlineResult:
        start = time.perf_counter()
        sent = keywords(query)
        name = self.source.name
        try:
            docs = self.source.search(sent, timeout_s=self.timeout_s, cancel=cancel)
        except SourceError as err:
            said = (
                Reason(str(err), err.code, {k: str(v) for k, v in err.values.items()}) if err.code else None
            )
            return OnlineResult(name, sent, (), 0, 0, elapsed_ms(start), str(err), said)
        except UNREADABLE as err:  # a source that did not turn its own failure into a SourceError
            kind = type(err).__name__
            why = Reason(f"its answer could not be read ({kind})", "unreadable", {"error": kind})
            return OnlineResult(name, sent, (), 0, 0, elapsed_ms(start), why.english, why)
        hits = distinct([h for rank, d in enumerate(docs) for h in document_hits(d, rank)])
        read = sum(d.page_read for d in docs)
        return OnlineResult(name, sent, tuple(hits), len(docs), read, elapsed_ms(start))


WHY = {
    "always": Reason("always asked", "always_asked"),
    "weak": Reason("local knowledge was weak", "local_weak"),
    "ask": Reason("you asked for it", "you_asked"),
}
NOT_ASKED = {
    "weak": Reason("local knowledge answers", "local_answers"),
    "ask": Reason("only when you ask for it", "only_when_asked"),
}
NO_ANSWER = Reason("no answer within the time limit", "no_answer_in_time")


@dataclass(frozen=True)
class OnlineOutcome:
    """One source's part in an answer: its result, or why it was not asked."""

    source: str
    why: Reason | None = None  # why it was asked
    result: OnlineResult | None = None
    skipped: Reason | None = None  # why it was not asked


class OnlineRound:
    """The online sources of one question. ``always`` sources and those the user asked for start at
    once (beside the local answer's grounding); ``weak`` ones start only when the local evidence does not
    answer. ``join`` waits for each no longer than its own time limit."""

    def __init__(
        self,
        agents: Mapping[str, OnlineAgent],
        uses: Mapping[str, str],
        pool: Executor,
        query: str,
        asked: Sequence[str],
        cancel: CancelToken | None,
        off_topic: Mapping[str, Reason] | None = None,
    ) -> None:
        self._agents, self._uses, self._pool, self._query, self._cancel = agents, uses, pool, query, cancel
        self._started: dict[str, tuple[Reason, Future[OnlineResult], float]] = {}  # why, result, deadline
        self._off_topic = dict(off_topic or {})
        for name in agents:
            if name in asked:
                self._start(name, WHY["ask"])
            elif uses[name] == "always" and name not in self._off_topic:
                self._start(name, WHY["always"])

    def _start(self, name: str, why: Reason) -> None:
        deadline = time.monotonic() + self._agents[name].timeout_s + 1.0  # its own limit, from its start
        self._started[name] = (
            why,
            self._pool.submit(self._agents[name].retrieve, self._query, self._cancel),
            deadline,
        )

    @property
    def possible(self) -> bool:
        """Some source is asked now or would be if the local evidence is weak."""
        return bool(self._started) or any(
            u == "weak" and n not in self._off_topic for n, u in self._uses.items()
        )

    def local_was_weak(self) -> None:
        for name, use in self._uses.items():
            if use == "weak" and name not in self._started and name not in self._off_topic:
                self._start(name, WHY["weak"])

    @property
    def asked(self) -> list[str]:
        return list(self._started)

    def join(self) -> list[OnlineOutcome]:
        out: list[OnlineOutcome] = []
        for name, agent in self._agents.items():
            if name not in self._started:
                use = self._uses[name]
                why = NOT_ASKED["weak" if use == "weak" else "ask"]
                why = self._off_topic.get(name, why) if use != "ask" else why
                out.append(OnlineOutcome(name, skipped=why))
                continue
            why, future, deadline = self._started[name]
            try:
                result = future.result(timeout=max(0.0, deadline - time.monotonic()))
            except FutureTimeout:
                future.cancel()
                result = OnlineResult(
                    name, "", (), 0, 0, agent.timeout_s * 1000, NO_ANSWER.english, NO_ANSWER
                )
            out.append(OnlineOutcome(name, why, result))
        return out


def _off_topic(match: float, least: float) -> Reason:
    english = f"the question is not about what it knows (match {match:.2f} < {least:.2f})"
    return Reason(english, "off_topic", {"match": f"{match:.2f}", "least": f"{least:.2f}"})


class OnlineSources:
    """The enabled online sources, each with its agent and when it is asked."""

    def __init__(self, sources: Sequence[tuple[OnlineSource, SourceConfig]], pool: Executor) -> None:
        self._agents = {s.name: OnlineAgent(s, spec.timeout_s) for s, spec in sources}
        self._uses = {s.name: spec.use for s, spec in sources}
        self.specs = {s.name: spec for s, spec in sources}
        self._pool = pool

    @property
    def names(self) -> list[str]:
        return list(self._agents)

    def start(
        self,
        query: str,
        *,
        asked: Sequence[str] = (),
        cancel: CancelToken | None = None,
        matches: Mapping[str, float] | None = None,
    ) -> OnlineRound:
        """The round for ``query``. ``matches``: the routing match of each described source; one under
        its ``min_match`` is not asked unless the user asked for it."""
        off_topic = {
            name: _off_topic(m, self.specs[name].min_match)
            for name, m in (matches or {}).items()
            if name in self.specs and m < self.specs[name].min_match
        }
        return OnlineRound(self._agents, self._uses, self._pool, query, asked, cancel, off_topic)

    def close(self) -> None:
        for agent in self._agents.values():
            agent.source.close()
