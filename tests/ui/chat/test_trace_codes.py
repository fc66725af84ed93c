"""The sentences the pipeline writes into the trace's records are said from their codes (issue 69), never
by matching their English: a Chinese conversation's trace from the real pipeline has no English, a
producer's English reworded changes nothing on a Chinese page, an online source's failure is said from its
error's code, and a trace stored before the codes still opens (its sentences in English) while one stored
now keeps them."""

from __future__ import annotations

import json
import re
import socket
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from app.chat import record_codec
from kimas_desktop.answer import decider, second_round
from kimas_desktop.answer.signals import verify
from kimas_desktop.config import SourceConfig
from kimas_desktop.context import decision, dependence, manager
from kimas_desktop.control import CancelToken
from kimas_desktop.events import TraceReady
from kimas_desktop.retrieval import documents, hops, online, second_look
from kimas_desktop.trace import (
    AgenticStage,
    AnswerCheckStage,
    HopStage,
    OnlineStage,
    Reason,
    RewriteStage,
    Trace,
)
from kimas_desktop.types import Message, OnlineDocument
from local_models.fake import ScriptedChatModel
from tests.kimas_desktop.pipeline_rig import by_schema, make
from tests.ui.english import english_runs
from tests.web_site import Site
from ui.chat.trace_view import Say, trace_markdown
from ui.chat.trace_words import reason_said
from web import build_source

# Words apart: the fake embedder and reranker match whole words (``\w+``), and an unsegmented Chinese
# sentence is one word to them.
PAPER = ("查询重写 步骤 是 把 用户 的 问题 改写 成 查询。", "作者 是 张长旺。", "文章 发表 在 2021 年。")
QUESTIONS = ("查询重写 步骤 是 什么？", "它 的 作者 是 谁？", "文章 发表 在 哪 一年？")


class BrokenSource:
    """An online source whose answer cannot be read (its parser's ``ValueError``)."""

    name = "wiki"

    def search(
        self, query: str, *, timeout_s: float, cancel: CancelToken | None = None
    ) -> list[OnlineDocument]:
        raise ValueError("unexpected token at line 1")

    def close(self) -> None:
        pass


def _conversation() -> list[Trace]:
    """A Chinese conversation through the real pipeline over the fakes: the context manager asks the chat
    model (which finds each question stands alone: the rules keep the follow-up's reference), hops, the
    answer check (the model copies words no source holds), the agentic round, the time budget after the
    check, and an online source that is always asked and whose answer cannot be read. Each answer's
    trace."""
    judged = json.dumps({"needs_history": "no", "query": "作者"})
    related = json.dumps({"analysis": "它 指 论文", "indices_of_related_messages": [0]})
    missing = json.dumps({"is_sufficient": False, "missing_info": "年份", "queries": ["发表 年份"]})
    replies = {"needs_history": judged, "analysis": related, "is_sufficient": missing}
    chat = ScriptedChatModel(by_schema(replies, "张长旺。"), judges=True)
    spec = SourceConfig.model_validate({"kind": "ddgs", "enabled": True, "use": "always"})
    pipe, searcher = make(
        chat,
        online=[(BrokenSource(), spec)],
        context={"rewrite": "llm"},
        grounding={"model_rescues_from": 0.0, "model_doubts_below": 1.0},
    )
    searcher.add("papers", list(PAPER), "/k/rag.zh.txt")
    history: list[Message] = []
    traces = []
    try:
        for question in QUESTIONS:
            events = list(pipe.ask(question, history))
            traces.append([e.trace for e in events if isinstance(e, TraceReady)][-1])
            history += [Message("user", question), Message("assistant", f"关于“{question}”的回答。")]
    finally:
        pipe.close()
    return traces


def _shown_english(trace: Trace) -> list[str]:
    """The English runs of the trace as a Chinese page shows it, but for what the user and the documents
    wrote (queries, passages, file names) and the model's own words."""
    allowed = [
        trace.query,
        *(q for qs in trace.agent_queries.values() for q in qs),
        *(s.query for s in trace.stages if isinstance(s, HopStage | OnlineStage)),
        *(" ".join(h.chunk.text.split()) for h in trace.evidence),
        *(s.words for s in trace.stages if isinstance(s, AnswerCheckStage)),
        "rag.zh.txt",
        "pets.md",
        "car.pdf",
        "fake/scripted-chat",
    ]
    return english_runs(trace_markdown(trace), allowed)


def _sentences(trace: Trace) -> list[str]:
    """The English sentences the records hold."""
    out: list[str] = []
    for s in trace.stages:
        if isinstance(s, RewriteStage):
            out += [s.reason, s.note]
        elif isinstance(s, HopStage | OnlineStage):
            out += [s.why, getattr(s, "skipped", ""), getattr(s, "error", "")]
        elif isinstance(s, AgenticStage):
            out += [s.skipped, s.fallback]
        elif isinstance(s, AnswerCheckStage):
            out += [s.fallback, s.reason]
    return [x for x in out if x]


def test_a_chinese_conversations_trace_from_the_real_pipeline_is_chinese() -> None:
    traces = _conversation()
    said = [x for t in traces for x in _sentences(t)]
    assert "its answer could not be read (ValueError)" in said  # the online source's failure
    assert any("; kept: " in x for x in said)  # the model's judgement set aside, with the rules' reason
    assert any(isinstance(s, HopStage) and s.round for t in traces for s in t.stages)
    for trace in traces:
        assert not _shown_english(trace), (trace.question, trace_markdown(trace))
    first, follow_up, _ = (trace_markdown(t) for t in traces)
    assert "**失败**：无法读取它的回答（ValueError）" in first
    assert "（提示速度：检查时已读过来源）" in first  # the check read the sources: they are in the cache
    assert re.search(r"- 最佳段落涵盖了问题中 \d+% 的词；停止：轮次已用完\n", follow_up), follow_up
    assert "**第二轮检索：**" in follow_up


# The modules that write the trace's sentences.
PRODUCERS: tuple[ModuleType, ...] = (
    decision,
    dependence,
    manager,
    hops,
    second_look,
    documents,
    online,
    decider,
    second_round,
    verify,
)


def _reworded(reason: Reason) -> Reason:
    values = {k: _reworded(v) if isinstance(v, Reason) else v for k, v in reason.values.items()}
    return replace(reason, english=f"Put another way: {reason.english.upper()}", values=values)


def _reword_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every producer's English reworded: the sentences they build (``Reason``) and those they keep."""

    def reason(english: str, code: str, values: Any = None) -> Reason:
        return _reworded(Reason(english, code, values or {}))

    for module in PRODUCERS:
        for name, value in list(vars(module).items()):
            if name == "Reason":
                monkeypatch.setattr(module, name, reason)
            elif isinstance(value, Reason):
                monkeypatch.setattr(module, name, _reworded(value))
            elif isinstance(value, dict) and value and all(isinstance(v, Reason) for v in value.values()):
                monkeypatch.setattr(module, name, {k: _reworded(v) for k, v in value.items()})


def _untimed(text: str) -> str:
    """``text`` with its numbers as "#": two runs take their own time."""
    return re.sub(r"\d+(?:\.\d+)?", "#", text)


def test_a_producer_can_reword_its_english_without_changing_the_chinese_trace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = _conversation()
    _reword_everything(monkeypatch)
    after = _conversation()
    reworded = [x for t in after for x in _sentences(t) if x.startswith("Put another way")]
    assert len(reworded) >= 5, [x for t in after for x in _sentences(t)]  # the CLI's and the log's English
    for old, new in zip(before, after, strict=True):
        assert _untimed(trace_markdown(new)) == _untimed(trace_markdown(old))
        assert not _shown_english(new)


# A trace as an earlier version stored it: records of ``kimas_desktop.trace`` (before it became a package),
# sentences in English only.
OLD_TRACE = {
    "@": "kimas_desktop.trace.Trace",
    "question": "查询重写步骤是什么？",
    "query": "查询重写步骤是什么？",
    "stages": {
        "@t": [
            {
                "@": "kimas_desktop.trace.RewriteStage",
                "ms": 1.0,
                "method": "as-asked",
                "query": "查询重写步骤是什么？",
                "depends": "self-contained",
                "reason": "it names its own subject",
            },
            {
                "@": "kimas_desktop.trace.HopStage",
                "ms": 2.0,
                "round": 0,
                "why": "the best passage covers the question (0.91)",
            },
            {"@": "kimas_desktop.trace.AgenticStage", "ms": 0.0, "skipped": "the evidence answers"},
            {"@": "kimas_desktop.trace.OnlineStage", "ms": 0.0, "source": "wiki", "skipped": "weird reason"},
            {"@": "kimas_desktop.trace.TotalStage", "ms": 9.0},
        ]
    },
}


def test_an_old_stored_trace_opens_and_a_new_one_keeps_its_codes() -> None:
    old = record_codec.loads(json.dumps(OLD_TRACE))
    assert isinstance(old, Trace) and old.find(HopStage) is not None
    text = trace_markdown(old)
    assert "**搜索查询：** 查询重写步骤是什么？" in text
    assert "- the best passage covers the question (0.91)" in text  # no code: its English
    assert "wiki：未询问（weird reason）" in text

    new = record_codec.loads(record_codec.dumps(_conversation()[1]))
    rewrite = new.find(RewriteStage)
    assert rewrite is not None and rewrite.note_said is not None
    assert rewrite.note_said.code == "judged_kept"
    assert isinstance(rewrite.note_said.values["judged"], Reason)
    assert not _shown_english(new), trace_markdown(new)
    note = reason_said(rewrite.note, rewrite.note_said, Say("zh"))
    assert note == "对话模型认为它本身就能理解；保留：它指向前文（“它”）"


def _refused_port() -> int:
    """A port on 127.0.0.1 nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _online_trace(base: str, tmp_path: Path) -> Trace:
    """The trace of a Chinese question with the real web source at ``base`` always asked."""
    spec = SourceConfig.model_validate(
        {"kind": "searxng", "enabled": True, "use": "always", "base_url": base}
    )
    pipe, searcher = make(
        ScriptedChatModel(by_schema({}, "张长旺。")),
        online=[(build_source("web", spec, tmp_path / "cache"), spec)],
    )
    searcher.add("papers", list(PAPER), "/k/rag.zh.txt")
    try:
        events = list(pipe.ask(QUESTIONS[0]))
    finally:
        pipe.close()
    return [e.trace for e in events if isinstance(e, TraceReady)][-1]


def test_an_online_sources_failure_is_said_in_chinese(site: Site, tmp_path: Path) -> None:
    """The real web source (``web/``) against a refused port, and against a server that answers JSON
    that is not SearXNG's: each failure is said from its code, with the host and the error's name, not
    as the client's English (which the record keeps)."""
    for base, english, chinese in (
        (
            f"http://127.0.0.1:{_refused_port()}",
            "127.0.0.1 could not be reached: ConnectError",
            "**失败**：无法连接到 127.0.0.1：ConnectError。",
        ),
        (
            f"{site.base}/api",
            "127.0.0.1 did not answer in SearXNG's JSON format",
            "的回答不是 SearXNG 的 JSON 格式。回答只用了你的文档。",
        ),
    ):
        trace = _online_trace(base, tmp_path)
        record = trace.find(OnlineStage)
        assert record is not None and record.error == english
        text = trace_markdown(trace)
        assert chinese in text
        assert not _shown_english(trace), text
