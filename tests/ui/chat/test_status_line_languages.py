"""The app's own sentences around a Chinese question are Chinese (issue 42): the status line's pace (the
model reading its sources, then writing), the chat's note about the multilingual embedder, and the
switch button's label as the browser's language picks it (``ui/i18n.py``)."""

from __future__ import annotations

from app.models.languages import SWITCH_BUTTON
from kimas_desktop.answer.phrases import phrase, phrase_in
from kimas_desktop.answer.writing.budget import Pace
from ui.chat.trace_view import status_line
from ui.i18n import new_i18n

QUESTION = "KAG 的项目地址是什么？"


def test_the_pace_follows_the_question_or_the_step_already_said_in_it() -> None:
    writing = phrase("writing", QUESTION)  # "正在撰写回答…"
    reading = status_line(writing, Pace("reading", 1240, 212.4, "recent answers"))
    assert reading == f"{writing} 模型先阅读来源：1,240 个提示词元，约每秒 212 个（根据最近的回答）。"
    assert status_line(writing, Pace("reading", 900)) == f"{writing} 模型先阅读来源：900 个提示词元。"
    words = status_line("", Pace("writing", words=42, words_per_s=5.25), QUESTION)
    assert words == " 已写 42 个词，每秒 5.2 个词。"  # under the answer: the question gives the language
    english = status_line("", Pace("writing", words=42, words_per_s=5.25), "What is KAG's address?")
    assert english == " 42 words so far, 5.2 words/s."


def test_the_switch_button_reads_chinese_in_a_chinese_browser() -> None:
    assert phrase_in("switch button", "en") == SWITCH_BUTTON  # the CLI and doctor name it the same
    served = new_i18n("auto").translations  # what Gradio serves each page, by the browser's language
    assert served["en"]["use_multilingual"] == SWITCH_BUTTON
    assert served["zh-CN"]["use_multilingual"] == "使用多语言嵌入模型"
    note = phrase("multilingual note", QUESTION).format(
        language="zh", button=phrase("switch button", QUESTION), model="m"
    )
    assert "“使用多语言嵌入模型”" in note and "m" in note


def test_the_chat_shows_a_chinese_question_s_pace_in_chinese() -> None:
    """The running answer under a Chinese question (``ui.chat.render``) says its pace in Chinese."""
    from app.chat.conversation import Turn
    from ui.chat.render import answer_markdown

    writing = Turn(QUESTION, answer="KAG", state="running", pace=Pace("writing", words=42, words_per_s=5.25))
    assert "已写 42 个词" in answer_markdown(writing)
    reading = Turn(QUESTION, state="running", status=phrase("writing", QUESTION), pace=Pace("reading", 900))
    assert "模型先阅读来源" in answer_markdown(reading)


def test_the_status_line_says_the_bundled_multilingual_embedder_is_built_in() -> None:
    """Issue 60: the chat model was "(built in)", the multilingual-e5-small installed with the app was not."""
    from app.outcomes import ModelState
    from app.settings.form import describe_models
    from kimas_desktop.config import parse_config
    from ui.markup import model_markdown

    config = parse_config({"embedding": {"name": "multilingual-e5-small"}})
    described = describe_models(config)
    assert described.endswith("embedding model multilingual-e5-small (built in)"), described
    ready = ModelState("ready", f"Ready: {described}.")
    assert "嵌入模型 multilingual-e5-small（内置）" in model_markdown(ready, config, "zh")
    other = describe_models(parse_config({"embedding": {"name": "BAAI/bge-small-en-v1.5"}}))
    assert other.endswith("embedding model BAAI/bge-small-en-v1.5"), other
