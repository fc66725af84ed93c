"""The app's own sentences follow the question's language (issue 42): a Chinese question is declined in
Chinese, an English one word for word as before."""

from __future__ import annotations

from kimas_desktop.answer.outcome import decline_text, quote_text
from kimas_desktop.answer.phrases import language_of, phrase
from kimas_desktop.types import Chunk, Quote

CHUNK = Chunk(
    "c1",
    "papers",
    "/p/kag.zh.txt",
    "KAG 框架由 KAG-Builder、KAG-Solver 和 KAG-Model 三部分组成。",
    line_start=3,
)
QUOTE = Quote(1, CHUNK, 0, len(CHUNK.text), CHUNK.text, 1.0)


def test_a_chinese_question_is_declined_in_chinese() -> None:
    text = decline_text("KAG 的作者是谁?", [QUOTE])
    assert text.startswith("你的文档没有说明 “KAG 的作者是谁”；") or text.startswith(
        "你的文档没有说明 “KAG 的作者是谁”;"
    )
    assert "最接近的段落是 [1] kag.zh.txt" in text
    assert quote_text([QUOTE], question="KAG 框架由哪三部分组成?").startswith("你的文档中写道：")
    assert phrase("nothing found", "图源是什么?") == "你的文档中没有与这个问题相近的内容。"


def test_an_english_question_reads_as_before() -> None:
    assert decline_text("Who wrote KAG?", [QUOTE]) == (
        "Your documents don't say “Who wrote KAG”; the closest passages are [1] kag.zh.txt."
    )
    assert decline_text("Who wrote KAG?", []) == "Your documents don't say anything about “Who wrote KAG”."
    assert quote_text([QUOTE]).startswith("Your documents say: “KAG")


def test_japanese_and_hindi_questions_keep_english_for_now() -> None:
    assert language_of("図書館はいつ開いていますか？") == "en"  # kana: Japanese, no translation yet
    assert language_of("भारत की राजधानी क्या है?") == "en"
    assert language_of("什么是混合搜索?") == "zh"
