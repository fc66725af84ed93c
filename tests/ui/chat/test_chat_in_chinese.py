"""The Chat tab's own words for a Chinese reader (issue 60): an answer's lines in the question's language (a
source's lines and page, a stop and why, the sources found before it, a decline's places, the model-alone
label and offer), no English preamble before a Chinese answer, and the sidebar's notes, the no-knowledge
hint and the model status in the page's language. The same values asked in English keep their English."""

from __future__ import annotations

from dataclasses import replace

from app.chat.conversation import Turn
from app.outcomes import ModelState
from app.settings.form import describe_models
from kimas_desktop.config import parse_config
from kimas_desktop.text.sentences import split_sentences
from kimas_desktop.trace import Trace
from kimas_desktop.types import Chunk, Citation, Hit, Quote, SentenceSupport
from tests.ui.english import english_runs
from ui.chat import render
from ui.chat.answer_text import preamble_length, without_preamble
from ui.chat.handlers import chat_hint
from ui.markup import model_markdown

ZH = "这篇文章的作者是谁?"
EN = "Who wrote this article?"
PAPER = Chunk("c1", "papers", "/p/paper.zh.txt", "作者:张长旺,旺知识", line_start=19, line_end=27)
SCAN = Chunk("c2", "papers", "/p/scan.pdf", "作者:张长旺", page=3, ocr=True)


def _stopped(question: str, because: str = "") -> Turn:
    trace = Trace(question=question, evidence=(Hit(PAPER, 0.8), Hit(SCAN, 0.5)))
    return Turn(question, answer="作者是", state="stopped", stopped_because=because, trace=trace)


def test_a_stopped_chinese_answer_says_so_in_chinese_with_its_sources_places() -> None:
    for because in ("", "you asked a new question"):
        shown = render.answer_markdown(_stopped(ZH, because))
        assert not english_runs(shown.replace("paper.zh.txt", "").replace("scan.pdf", "")), shown
        assert ("_已停止（你问了新的问题）。_" if because else "_已停止。_") in shown
        assert "**停止前找到的来源**" in shown
        assert "<b>paper.zh.txt</b> · 第 19-27 行" in shown and "<b>scan.pdf</b> · 第 3 页（OCR）" in shown
    english = render.answer_markdown(_stopped(EN, "you asked a new question"))
    assert "_Stopped (you asked a new question)._" in english and "Sources found before it stopped" in english
    assert "<b>paper.zh.txt</b> · lines 19-27" in english and "<b>scan.pdf</b> · p. 3 (OCR)" in english


def test_a_chinese_answer_shows_no_english_preamble_and_keeps_its_marks() -> None:
    answer = "The answer is: 张长旺。他写了这篇文章。"
    first, second = split_sentences(answer, "markdown")
    support = (
        SentenceSupport(first.text, first.start, first.end, True, 0.9, 0.9, 1),
        SentenceSupport(second.text, second.start, second.end, False, 0.1, 0.1, 1),
    )
    cited = (Citation(1, PAPER, "张长旺", 3, 6),)
    turn = Turn(ZH, answer=answer, state="done", support=support, citations=cited)
    shown = render.answer_markdown(turn, "1")
    assert "The answer is" not in shown
    assert shown.startswith("张长旺。<sup class='kimas-marker'><a href='#kimas-src-1-1'>[1]</a></sup>")
    assert "<span class='kimas-unsupported' title='在来源中找不到'>他写了这篇文章。</span>" in shown
    assert "⚠ 这个回答有 1 句话在来源中找不到。" in shown
    # Asked in English, every word the model wrote stays; so does an English answer to a Chinese question.
    assert render.answer_markdown(Turn(EN, answer=answer, state="done")).startswith("The answer is: 张长旺")
    assert preamble_length("The answer is: the author is Zhang.", "zh") == 0
    assert preamble_length("RAG：检索增强生成", "zh") == 0  # a term and its gloss, not a preamble
    assert preamble_length("Answer: 42", "zh") == len("Answer: ")
    assert without_preamble("The answer is: 张", (), "zh")[0] == "张"


def test_a_chinese_decline_names_its_places_in_chinese() -> None:
    quote = Quote(1, PAPER, 0, 5, "作者:张长", 0.4)
    text = "你的文档没有说明 “发表在哪一年”；最接近的段落是 [1] paper.zh.txt, lines 19-27。"
    turn = Turn(ZH, answer=text, state="done", quotes=(quote,), answered_from_sources=False)
    shown = render.answer_markdown(turn)
    assert "[1] paper.zh.txt, 第 19-27 行。" in shown and " lines " not in shown
    english = Turn(EN, answer=text, state="done", quotes=(quote,), answered_from_sources=False)
    assert "[1] paper.zh.txt, lines 19-27" in render.answer_markdown(english)


def test_the_model_alone_and_its_offer_speak_the_questions_language() -> None:
    alone = render.answer_markdown(Turn(ZH, answer="我不知道。", state="stopped", mode="model"))
    assert "不是来自你的文档" in alone and "_已停止。_" in alone and not english_runs(alone)
    offered = render.answer_markdown(Turn(ZH, answer="还没有知识。", state="done", no_knowledge=True))
    assert "**改为只问模型**" in offered and "**回答依据：只用模型**" in offered
    assert not english_runs(offered)
    english = render.answer_markdown(Turn(EN, answer="No knowledge.", state="done", no_knowledge=True))
    assert (
        "Click **Ask the model alone instead** below, or choose **Answer from: the model alone**." in english
    )


def test_the_sidebar_notes_and_the_model_status_follow_the_page() -> None:
    assert render.history_note("", searching=False, found=False, language="zh") == "_你的对话会列在这里。_"
    assert render.history_note("", searching=True, found=False, language="zh") == "_没有匹配的对话。_"
    assert render.history_note("", searching=True, found=False) == "_No conversation matches._"
    config = parse_config({})
    ready = ModelState("ready", f"Ready: {describe_models(config)}.")
    assert model_markdown(ready, config, "zh") == (
        "✓ 就绪：对话模型 SmolLM2-135M-Instruct（内置），嵌入模型 all-MiniLM-L6-v2（内置）。"
    )
    assert model_markdown(ready, config, "en") == model_markdown(ready) == f"✓ {ready.message}"
    loading = ModelState("loading", f"Loading model… ({describe_models(config)})")
    assert model_markdown(loading, config, "zh").startswith("◌ 正在加载模型…（对话模型 SmolLM2")
    failed = ModelState("failed", "The model could not be loaded: no file.")  # app/'s reason: as written
    assert model_markdown(failed, config, "zh") == "⚠ The model could not be loaded: no file."


class _NoKnowledge:
    class knowledge:
        @staticmethod
        def has_knowledge() -> bool:
            return False


def test_the_no_knowledge_hint_follows_the_page() -> None:
    hint = chat_hint(_NoKnowledge(), "zh")  # type: ignore[arg-type]
    assert hint.startswith("**还没有知识。**") and not english_runs(hint)
    assert chat_hint(_NoKnowledge()).startswith("**No knowledge yet.**")  # type: ignore[arg-type]


def test_the_prompts_fence_written_back_by_the_model_is_not_shown() -> None:
    """Issue 60: the 135M model wrote "</documents>" into an answer to "搜索引擎返回什么?"; the tag is the
    prompt's, never the answer's, in any language. Each sentence's support moves with the text."""
    answer = "搜索引擎返回相关知识。</documents>\n它由智能体调用。"
    first, second = split_sentences("搜索引擎返回相关知识。"), answer.index("它由")
    support = [
        SentenceSupport(first[0].text, 0, first[0].end, True, 0.9, 0.9, 1),
        SentenceSupport("</documents>", first[0].end, second - 1, False, 0.0, 0.0),
        SentenceSupport("它由智能体调用。", second, len(answer), True, 0.9, 0.9, 1),
    ]
    shown, moved = without_preamble(answer, support, "zh")
    assert shown == "搜索引擎返回相关知识。\n它由智能体调用。"
    assert [s.text for s in moved] == ["搜索引擎返回相关知识。", "它由智能体调用。"]
    assert all(shown[s.start : s.end] == s.text for s in moved)
    english, _ = without_preamble("<documents>The engine returns pages.</documents> Done.", (), "en")
    assert english == "The engine returns pages. Done."
    assert without_preamble("a <b> tag", (), "en")[0] == "a <b> tag"


def test_an_answer_set_aside_shows_no_check_of_the_words_it_set_aside() -> None:
    """Issue 60: when no sentence of the model's answer was backed, the documents' own words take its
    place; the check was of the model's words, so no sentence of the shown text is flagged and no "⚠ 2
    sentences …" stands beside "the model's own answer was set aside"."""
    from kimas_desktop.answer.phrases import phrase
    from kimas_desktop.trace import SupportStage

    shown_text = f"“检索增强生成” [1]\n\n{phrase('set aside', ZH)}"
    support = (
        SentenceSupport("模型写的第一句。", 0, 8, False, 0.1, 0.1),
        SentenceSupport("模型写的第二句。", 8, 16, False, 0.1, 0.1),
    )
    trace = Trace(question=ZH, stages=(SupportStage(1.0, 2, 2, None, set_aside=True),))
    turn = Turn(ZH, answer=shown_text, state="done", support=support, trace=trace)
    shown = render.answer_markdown(turn, "1")
    assert "模型自己的回答已被搁置" in shown
    assert "找不到" not in shown and "kimas-unsupported" not in shown
    checked = replace(turn, trace=Trace(question=ZH, stages=(SupportStage(1.0, 2, 2),)))
    assert "⚠ 这个回答有 2 句话在来源中找不到。" in render.answer_markdown(checked, "1")
