"""The app's own sentences follow the question's language (issue 42): a Chinese question is declined in
Chinese, a Japanese one in Japanese, a Hindi one in Hindi, an English one word for word as before."""

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


def test_japanese_and_hindi_questions_are_answered_in_their_language() -> None:
    assert language_of("図書館はいつ開いていますか？") == "ja"
    assert language_of("भारत की राजधानी क्या है?") == "hi"
    assert language_of("什么是混合搜索?") == "zh"
    assert language_of("Wann öffnet die Bibliothek?") == "en"  # Latin script: no translation yet
    hindi = decline_text("KAG किसने लिखा?", [QUOTE])
    assert hindi == "आपके दस्तावेज़ यह नहीं बताते: “KAG किसने लिखा”; सबसे नज़दीकी अंश [1] kag.zh.txt हैं।"
    assert decline_text("KAG किसने लिखा?", []) == "आपके दस्तावेज़ों में “KAG किसने लिखा” के बारे में कुछ भी नहीं है।"
    assert quote_text([QUOTE], question="KAG के तीन भाग कौन से हैं?").startswith("आपके दस्तावेज़ों में लिखा है: “KAG")
    japanese = decline_text("KAG の作者は誰ですか？", [QUOTE])
    assert japanese.startswith("あなたの文書には「KAG の作者は誰ですか」についての記載がありません。")
    assert phrase("writing", "KAG の作者は誰ですか？") == "回答を書いています…"
