"""The pipeline with an online source: a real ``web`` source against a real server on 127.0.0.1."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from kimas_desktop.config import SourceConfig, parse_config
from kimas_desktop.events import CitationsReady, Done, QuoteReady, TraceReady
from kimas_desktop.pipeline import AskOptions, Pipeline
from kimas_desktop.trace import OnlineStage, Trace
from local_models.fake import HashEmbedder, MemorySearcher, ScriptedChatModel, WordOverlapReranker
from tests.web_site import Site, serve_site
from web import build_source

LOCAL_Q = "How often must the engine oil be changed?"
WEB_Q = "How many tonnes of goods did barges on the Rhine move in 2019?"
WEB_ANSWER = "Barges on the Rhine moved about 300 million tonnes of goods in 2019."


def make(site: Site, tmp_path: Path, answer: str = WEB_ANSWER, **spec: Any) -> Pipeline:
    emb = HashEmbedder()
    searcher = MemorySearcher(emb)
    searcher.add(
        "cars", ["The engine oil must be changed every 10000 km.", "Tyre pressure is 2.2 bar."], "/k/car.pdf"
    )
    searcher.add(
        "pets", ["Cats sleep sixteen hours a day.", "Dogs need daily walks in the park."], "/k/pets.md"
    )
    web = SourceConfig.model_validate(
        {"kind": "searxng", "enabled": True, "base_url": site.base, "timeout_s": 2.0, **spec}
    )
    config = parse_config({"preset": "routed"})
    return Pipeline(
        config=config,
        chat=ScriptedChatModel(lambda messages, schema: answer),
        embedder=emb,
        reranker=WordOverlapReranker(),
        searcher=searcher,
        sources=[(build_source("web", web, tmp_path / "cache"), web)],
    )


def ask(p: Pipeline, question: str, **options: Any) -> tuple[list[Any], Trace]:
    events = list(p.ask(question, options=AskOptions(**options)))
    traces = [e.trace for e in events if isinstance(e, TraceReady)]
    return events, traces[-1]


def online(trace: Trace) -> OnlineStage:
    (record,) = [s for s in trace.stages if isinstance(s, OnlineStage)]
    return record


def test_a_question_the_documents_answer_stays_local(site: Site, tmp_path: Path) -> None:
    p = make(site, tmp_path, answer="The engine oil must be changed every 10000 km.")
    events, trace = ask(p, LOCAL_Q)
    p.close()
    assert not site.requests  # nothing left the machine
    assert online(trace).skipped == "local knowledge answers"
    assert isinstance(events[-1], Done) and events[-1].outcome.kind == "answered"


def test_a_question_they_cannot_answer_asks_the_web_and_cites_the_page(site: Site, tmp_path: Path) -> None:
    # The slow result's page answers after 5 s: a 4 s limit leaves it out however busy the machine is, and
    # gives the article twice the time it had (a busy machine read nothing within 2 s, 1 of 8 runs).
    p = make(site, tmp_path, timeout_s=4.0)
    events, trace = ask(p, WEB_Q)
    p.close()
    record = online(trace)
    assert (
        record.why == "local knowledge was weak"
        and record.results == 3
        and record.pages_read == 1
        and record.ms < 5000  # the slow page was not waited for
    )
    assert record.query == "tonnes goods barges rhine move 2019"  # the keyword rewrite
    assert site.requests[0]["query"]["q"] == record.query  # the trace says what left the machine
    quotes = [e for e in events if isinstance(e, QuoteReady)]
    assert len(quotes) == 2 and any("300 million tonnes" in q.text for q in quotes[-1].quotes)
    (cites,) = [e for e in events if isinstance(e, CitationsReady)]
    assert [c.chunk.source for c in cites.citations] == [f"{site.base}/article"]
    assert cites.citations[0].chunk.heading == "Rhine shipping" and cites.citations[0].chunk.online
    assert events[-1].outcome.kind == "answered"


def test_a_slow_source_does_not_delay_the_local_quote(site: Site, tmp_path: Path) -> None:
    """Asked always, with its server 30 s slow and a 3 s limit: the local quote comes first, the answer
    follows at the limit with the local evidence, and the trace says why."""
    slow = {"base_url": f"{site.base}/slow-search?s=30&", "use": "always", "timeout_s": 3.0}
    p = make(site, tmp_path, answer="The engine oil must be changed every 10000 km.", **slow)
    t = time.monotonic()
    quote_at = None
    for e in p.ask(LOCAL_Q):
        if isinstance(e, QuoteReady) and quote_at is None:
            quote_at = time.monotonic() - t
        last = e
    total = time.monotonic() - t
    p.close()
    assert quote_at is not None and quote_at < 2.5
    assert 2.9 < total < 30
    assert isinstance(last, Done) and last.outcome.kind == "answered"


def test_a_source_set_to_ask_is_asked_only_when_named(site: Site, tmp_path: Path) -> None:
    p = make(site, tmp_path, use="ask")
    _, trace = ask(p, WEB_Q)
    assert not site.requests and online(trace).skipped == "only when you ask for it"
    _, trace = ask(p, WEB_Q, sources=("web",))
    p.close()
    assert online(trace).why == "you asked for it" and site.hits["/search"] == 1


def test_an_unreachable_source_leaves_the_local_answer_and_says_so(tmp_path: Path) -> None:
    with serve_site() as gone:  # a server that has stopped: its port refuses connections
        pass
    p = make(gone, tmp_path)
    events, trace = ask(p, WEB_Q)
    p.close()
    assert "could not be reached" in online(trace).error
    assert events[-1].outcome.kind == "declined"  # the documents do not say, and nothing else did


def test_a_described_source_is_asked_only_for_questions_about_what_it_knows(
    site: Site, tmp_path: Path
) -> None:
    described = {"use": "always", "description": "barges tonnes goods Rhine 2019 shipping", "min_match": 0.5}
    p = make(site, tmp_path, answer="The engine oil must be changed every 10000 km.", **described)
    _, trace = ask(p, LOCAL_Q)
    assert not site.requests and online(trace).skipped.startswith("the question is not about what it knows")
    _, trace = ask(p, WEB_Q)
    p.close()
    assert online(trace).why == "always asked" and site.hits["/search"] == 1
