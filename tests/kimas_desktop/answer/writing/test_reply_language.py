"""Replies in the user's language (issue 42): the answer prompt names the language a question's script
tells, so a small model is told "Reply in Chinese." rather than left to infer it."""

from __future__ import annotations

from kimas_desktop.answer.writing.summarizer import answer_messages, reply_language
from kimas_desktop.types import Chunk, Hit

HIT = Hit(
    Chunk(
        "c1",
        "papers",
        "/p/agentic-rag-pattern.zh.txt",
        "检索增强生成(RAG)设计模式通常用于开发大语言模型应用。",
    ),
    1.0,
)


def test_a_chinese_question_asks_for_a_chinese_reply() -> None:
    body = answer_messages("什么是检索增强生成?", [HIT], [])[1].content
    assert "Question: 什么是检索增强生成?\nReply in Chinese.\nAnswer:" in body


def test_hindi_and_japanese_questions_name_their_language() -> None:
    assert reply_language("भारत की राजधानी क्या है?") == "\nReply in Hindi."
    assert reply_language("図書館はいつ開いていますか？") == "\nReply in Japanese."


def test_an_english_question_is_prompted_as_before() -> None:
    body = answer_messages("What is retrieval-augmented generation?", [HIT], [])[1].content
    assert body.endswith("\n\nQuestion: What is retrieval-augmented generation?\nAnswer:")
    assert reply_language("Wie spät ist es?") == ""  # Latin script: the system prompt's rule alone
