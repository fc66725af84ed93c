"""Issue 40, items 4 and 6, through the whole pipeline with a real ``web`` source on a real server on
127.0.0.1: a web query carries only the user's words, and an answer the source cannot read (a charset
that is none, a JSON bomb) leaves the local answer standing, with the reason in the trace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kimas_desktop.config import SourceConfig, parse_config
from kimas_desktop.events import AnswerDelta, Done, QuoteReady, TraceReady
from kimas_desktop.pipeline import Pipeline
from kimas_desktop.text.words import words
from kimas_desktop.trace import OnlineStage, Trace
from kimas_desktop.types import Message
from local_models.fake import HashEmbedder, MemorySearcher, ScriptedChatModel, WordOverlapReranker
from tests.web_site import Site
from web import build_source

NOTES = "The password in the team notes is hunter2, chosen by the night shift."
OIL = "The engine oil must be changed every 10000 km."


def make(site: Site, tmp_path: Path, answer: str, **spec: Any) -> Pipeline:
    emb = HashEmbedder()
    searcher = MemorySearcher(emb)
    searcher.add("notes", [NOTES, "The team meets on Mondays in room 4."], "/k/team-notes.md")
    searcher.add("cars", [OIL, "Tyre pressure is 2.2 bar."], "/k/car.pdf")
    web = SourceConfig.model_validate(
        {"kind": "searxng", "enabled": True, "base_url": site.base, "timeout_s": 2.0, "use": "always", **spec}
    )
    return Pipeline(
        config=parse_config({"preset": "routed"}),
        chat=ScriptedChatModel(lambda messages, schema: answer),
        embedder=emb,
        reranker=WordOverlapReranker(),
        searcher=searcher,
        sources=[(build_source("web", web, tmp_path / "cache"), web)],
    )


def turn(p: Pipeline, question: str, history: list[Message]) -> tuple[list[Any], Trace]:
    events = list(p.ask(question, history))
    trace = [e.trace for e in events if isinstance(e, TraceReady)][-1]
    text = "".join(e.text for e in events if isinstance(e, AnswerDelta))
    history += [Message("user", question), Message("assistant", text)]
    return events, trace


def online(trace: Trace) -> OnlineStage:
    (record,) = [s for s in trace.stages if isinstance(s, OnlineStage)]
    return record


def test_a_follow_up_sends_only_words_the_user_typed(site: Site, tmp_path: Path) -> None:
    p = make(site, tmp_path, answer=NOTES)
    history: list[Message] = []
    questions = ["What is the password in the team notes?", "Is it also used on Rhine barges?"]
    _, first = turn(p, questions[0], history)
    assert "hunter2" in history[-1].content  # the local file answered, and the answer is in the chat
    _, second = turn(p, questions[1], history)
    p.close()
    typed = {w.lower() for q in questions for w in words(q)}
    sent = [r["query"]["q"] for r in site.requests if r["path"] == "/search"]
    assert len(sent) == 2 and all(w in typed for q in sent for w in words(q)), sent
    assert {"password", "rhine"} <= set(sent[1].split())  # the follow-up still says what it is about
    assert [online(first).query, online(second).query] == sent  # the trace shows what left the machine


def test_a_json_bomb_from_the_search_api_leaves_the_local_answer(site: Site, tmp_path: Path) -> None:
    p = make(site, tmp_path, answer=OIL, base_url=f"{site.base}/deep-json?n=200000&")
    events, trace = turn(p, "How often must the engine oil be changed?", [])
    p.close()
    assert site.hits["/deep-json"] == 1
    assert "nested too deeply" in online(trace).error
    quotes = [e for e in events if isinstance(e, QuoteReady)]
    assert any("10000 km" in q.text for q in quotes[-1].quotes)
    assert isinstance(events[-1], Done) and events[-1].outcome.kind == "answered"


def test_result_pages_with_bogus_charsets_leave_the_local_answer(site: Site, tmp_path: Path) -> None:
    site.extra = [
        {"title": cs, "url": f"{site.base}/charset?cs={cs}&type={kind}", "content": f"snippet {cs}"}
        for cs in ("idna", "rot13", "no-such-charset")
        for kind in ("text/plain", "text/html")
    ]
    p = make(site, tmp_path, answer=OIL, max_pages=10, max_results=10)
    events, trace = turn(p, "How often must the engine oil be changed?", [])
    p.close()
    assert site.hits["/charset"] == 6
    record = online(trace)
    assert record.error == "" and record.results == 9 and record.pages_read >= 7
    assert isinstance(events[-1], Done) and events[-1].outcome.kind == "answered"
    assert "10000 km" in "".join(e.text for e in events if isinstance(e, AnswerDelta))
