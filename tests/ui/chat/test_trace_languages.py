"""The trace ("How this answer was made") in the question's language (issue 69): its headings, table columns,
places, rounds, budget, verdicts and timings, and the sentences the pipeline writes into its records (the
context manager's reasons, why hops stopped, why the agentic round was skipped, the online sources' whys),
said from their codes (``Reason``), in Chinese, Japanese and Hindi. An English question's trace keeps its
English words."""

from __future__ import annotations

import re

import pytest

from kimas_desktop.answer.decider import NO_CHAT_MODEL
from kimas_desktop.answer.signals.verify import NOT_AS_WRITTEN
from kimas_desktop.context.manager import _JUDGED
from kimas_desktop.retrieval.online import NOT_ASKED, WHY
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
    Reason,
    ReembedStage,
    RewriteStage,
    RouteStage,
    SupportStage,
    TotalStage,
    Trace,
    TraceBuilder,
)
from kimas_desktop.types import Chunk, Hit, Message, Route
from local_models.fake import ScriptedChatModel
from tests.kimas_desktop.pipeline_rig import by_schema, make
from tests.ui.english import english_runs
from ui.chat.trace_view import trace_markdown

PAPER = Chunk("c1", "papers", "/p/paper.zh.txt", "作者：张长旺。查询重写步骤。", line_start=45, line_end=49)
MODEL = "SmolLM2-135M-Instruct.Q4_1.gguf"
QUESTIONS = {"zh": "查询重写步骤是什么？", "ja": "クエリの書き換えとは何ですか？", "hi": "क्वेरी पुनर्लेखन क्या है?"}


REFERS = Reason("it refers back ('它')", "refers_back", {"ref": "它"})
KEPT = Reason(f"{_JUDGED['no']}; kept: {REFERS}", "judged_kept", {"judged": _JUDGED["no"], "reason": REFERS})
CONTINUES = Reason(
    "it continues that topic (similarity 0.53, meaning kept 0.81)",
    "continues",
    {"best": "0.53", "kept": "0.81"},
)
HOW = Reason("'paper' (the only document)", "only_document", {"title": "paper"})
POINTS = Reason(
    "it points at '方法' of 'paper' (the only document)", "points_at", {"title": "方法", "how": HOW}
)
COVERS = Reason("the best passage covers 38% of the question's words", "covers_part", {"share": "38"})
NOTHING_NEW = Reason("a hop found nothing new", "nothing_new")
STOPPED = Reason(f"{COVERS}; stopped: {NOTHING_NEW}", "stopped", {"why": COVERS, "stop": NOTHING_NEW})


def _every_record(question: str) -> Trace:
    """A trace with every kind of record, holding the pipeline's own sentences where it writes them (their
    English and their codes)."""
    t = TraceBuilder(question=question, query=question)
    t.routes.append(Route("papers", 0.9, 0.8, 0.7, 0.75, 1.2))
    t.agent_queries["papers"] = (question,)
    t.evidence.append(Hit(PAPER, 0.245))
    t.add(
        RewriteStage(
            1.0,
            "heuristic",
            question,
            note=KEPT.english,
            depends="previous",
            reason=CONTINUES.english,
            earlier=("作者是谁？",),
            also_as_asked=True,
            within=("/p/paper.zh.txt",),
            reason_said=CONTINUES,
            note_said=KEPT,
        )
    )
    t.add(ReembedStage(0.0, ("papers",)))
    t.add(RouteStage(3.0, "question", {"papers": 0.9}))
    t.add(BudgetStage(0.0, 2.5, 4.1, 40.0, "recent answers", 0, 420, 2, 3, True))
    t.add(DocumentStage(1.0, "/p/paper.zh.txt", "方法", 2, POINTS.english, POINTS))
    t.add(HopStage(2.0, 1, "查询 重写", ("c7", "c9")))
    t.add(HopStage(2.0, 0, why=STOPPED.english, why_said=STOPPED))
    t.add(ComputeStage(0.0, "earliest", ("甲", "乙"), ("1901", "1902"), (1, 2)))
    t.add(AgenticStage(0.0, skipped=NO_CHAT_MODEL.english, skipped_said=NO_CHAT_MODEL))
    only = NOT_ASKED["ask"]
    t.add(OnlineStage(0.0, "wiki", skipped=only.english, skipped_said=only))
    weak, ask = WHY["weak"], WHY["ask"]
    t.add(OnlineStage(900.0, "wiki", "查询 重写", weak.english, 3, 2, 4, why_said=weak))
    t.add(OnlineStage(900.0, "web", "查询 重写", ask.english, error="超时", why_said=ask))
    t.add(QuoteStage(0.0, 1500.0, (1,), False, 0.15, 0.4, "idf"))
    t.add(
        AnswerCheckStage(
            120.0, False, words="查询重写", reason=NOT_AS_WRITTEN.english, reason_said=NOT_AS_WRITTEN
        )
    )
    t.add(DecisionStage(0.0, False, "doubted", 0.45, "none"))
    t.add(FirstTokenStage(900.0))
    t.add(AnswerStage(1.0, 12, model=MODEL))
    t.add(SupportStage(1.0, 2, 1))
    t.add(TotalStage(1000.0))
    return t.snapshot()


def _english(text: str) -> list[str]:
    return english_runs(text.replace("paper.zh.txt", "").replace(MODEL.replace("_", "\\_"), ""))


@pytest.mark.parametrize("language", ["zh", "ja", "hi"])
def test_every_record_of_the_trace_is_said_in_the_questions_language(language: str) -> None:
    text = trace_markdown(_every_record(QUESTIONS[language]))
    assert not _english(text), _english(text)
    assert "score" not in text and "lines 45-49" not in text and "new passage(s)" not in text


def test_the_chinese_trace_says_its_places_rounds_and_reasons_in_chinese() -> None:
    text = trace_markdown(_every_record(QUESTIONS["zh"]))
    assert "**搜索查询：** 查询重写步骤是什么？ _（方式：按规则改写）_" in text
    assert "| 知识库 | 分数 | 主题 | 描述 | 段落 | 词语 | 已搜索 |" in text
    assert "**每个检索智能体的查询**" in text and "**交给模型的证据**" in text
    assert "· 第 45-49 行 · papers · 分数 0.245 —" in text
    assert "- 第 1 轮：“查询 重写”：2 个新段落" in text
    assert "- 最佳段落涵盖了问题中 38% 的词；停止：一次多跳检索没有找到新内容" in text
    assert "它延续了那个话题（相似度 0.53，含义保留 0.81）" in text
    alone = TraceBuilder(question=QUESTIONS["zh"])
    alone.add(RewriteStage(1.0, "llm", "q", note=KEPT.english, reason="x", note_said=KEPT))
    assert "按原问题搜索（对话模型认为它本身就能理解；保留：它指向前文（“它”））：x" in trace_markdown(
        alone.snapshot()
    )
    assert "| 回答的第一个词 | 900 |" in text


def test_an_english_question_keeps_the_english_trace() -> None:
    text = trace_markdown(_every_record("How is the query rewritten?"))
    assert "**Search query:** How is the query rewritten? _(by heuristic)_" in text
    assert "· lines 45-49 · papers · score 0.245 —" in text
    assert "- round 1: “查询 重写”: 2 new passage(s)" in text
    assert "**Agentic round:** skipped (the decision needed no chat model)" in text
    assert "it continues that topic (similarity 0.53, meaning kept 0.81)" in text
    assert "| first word of the answer | 900 |" in text


def test_the_sentences_the_pipeline_writes_are_said_again_in_chinese() -> None:
    """The real pipeline over the fake models: a first question, a follow-up and a question the papers do
    not answer, in Chinese. Whatever its records say, the trace shows no English but the documents' own
    words and the queries."""
    chat = ScriptedChatModel(by_schema({}, "每 10000 公里。"))
    pipe, searcher = make(chat)
    searcher.add("papers", ["查询重写步骤是把用户的问题改写成查询。", "作者是张长旺。"], "/k/rag.zh.txt")
    history: list[Message] = []
    for question in ("查询重写步骤是什么？", "它的作者是谁？", "机油多久换一次？", "这篇文章发表在哪一年？"):
        result = pipe.retrieve(question, history)
        trace = result.trace
        allowed = [
            trace.query,
            *(q for qs in trace.agent_queries.values() for q in qs),
            *(s.query for s in trace.stages if isinstance(s, HopStage)),
            *(" ".join(h.chunk.text.split()) for h in trace.evidence),
        ]
        text = trace_markdown(trace)
        for shown in sorted(allowed, key=len, reverse=True):
            text = text.replace(shown, " ")
        assert not english_runs(
            text.replace("rag.zh.txt", "").replace("pets.md", "").replace("car.pdf", "")
        ), (
            question,
            text,
        )
        history += [Message("user", question), Message("assistant", f"关于“{question}”的回答。")]


def test_a_model_alone_trace_is_said_in_the_questions_language_too() -> None:
    from ui.chat.model_alone_view import model_alone_trace

    def trace(question: str) -> Trace:
        t = TraceBuilder(question=question)
        t.add(AnswerStage(1.0, 12, model=MODEL))
        t.add(BudgetStage(0.0, 2.5, 0.1, 40.0, "recent answers", 400, 120, 0, 2))
        t.add(FirstTokenStage(900.0))
        t.add(TotalStage(1000.0))
        return t.snapshot()

    chinese = model_alone_trace(trace(QUESTIONS["zh"]))
    assert not _english(chinese), chinese
    assert (
        "**时间预算：** 模型读了 120 个提示词元；为了按时开始，省去了这个对话中 2 条较早的消息。" in chinese
    )
    english = model_alone_trace(trace("Who wrote it?"))
    assert english.startswith("**No retrieval ran:** the model answered alone; your documents were not read.")
    assert (
        "**Time budget:** the model read 120 prompt tokens; 2 earlier message(s) of this chat left out to start "
        "in time. The first word came at 0.9 s." in english
    )
    assert "| first word of the answer | 900 |" in english


def test_the_sentences_of_the_hops_and_the_checks_are_said_from_their_codes() -> None:
    """The real producers' reasons (not copies of them): the hops' reflect check, the answer check's
    verdicts, the context manager's judgements and the online sources' whys all have a Chinese form, said
    from their code; and every code ``kimas_desktop.trace.reasons`` lists has a Chinese, Japanese and
    Hindi form. A code a producer adds fails here, not on a page."""
    from kimas_desktop.answer.signals.verify import verify
    from kimas_desktop.retrieval.hops import covered
    from kimas_desktop.text.terms import TermWeights
    from kimas_desktop.trace import reasons
    from ui.chat.trace_view import Say
    from ui.chat.trace_words import TRACE, reason_said
    from ui.words_hi import HINDI
    from ui.words_ja import JAPANESE

    chunk = Chunk("c1", "papers", "/p/a.txt", "The harbour ferry leaves at nine every morning.")
    weights = TermWeights.from_texts([chunk.text, "The museum opens at ten."])
    reflect = [
        covered("When does the harbour ferry leave?", [Hit(chunk, 1.0)], weights, 0.1).why_said,
        covered("When does the museum close on Sundays?", [Hit(chunk, 1.0)], weights, 0.99).why_said,
        covered("anything", [], weights, 0.5).why_said,
    ]
    hits = [Hit(chunk, 1.0)]
    asked = "When does the ferry leave?"
    verdicts = [verify(words, asked, hits).reason_said for words in ("", "at noon", "the ferry leave")]
    said = [*reflect, *verdicts, *_JUDGED.values(), *WHY.values(), *NOT_ASKED.values()]
    for reason in said:
        assert reason is not None
        chinese = reason_said(reason.english, reason, Say("zh"))
        assert chinese != reason.english and not english_runs(chinese), (reason, chinese)
    listed = reasons.__doc__.split("Codes and their values")[1]
    codes = set(re.findall(r"``([a-z_]+)``", listed))
    assert len(codes) > 35 and {r.code for r in said} <= codes
    for code in codes:
        assert f"re {code}" in TRACE and f"re {code}" in JAPANESE and f"re {code}" in HINDI, code
