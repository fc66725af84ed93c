"""The quote's answer type in Chinese and Hindi (issue 42): a "哪一年"/"कब" question prefers the sentence
with the year, a "几个" question the sentence with a Chinese numeral, a "谁"/"कौन" question a new name.

Real tokenization (jieba's dictionary, Devanagari words with their marks); the embedder is the shipped
SHA-256 fake and the cosine weight is 0, so the words and the answer type alone decide. Each test also
scores without the answer type, to show that the feature is what picks the sentence.
"""

from __future__ import annotations

from kimas_desktop.answer.signals.quote import QuoteScorer, QuoteWeights, answer_type
from kimas_desktop.types import Chunk, Hit
from local_models.fake import HashEmbedder

TYPED = QuoteWeights(overlap=1.0, cosine=0.0, rerank=0.0, position=0.1, answer_type=0.5)
UNTYPED = QuoteWeights(overlap=1.0, cosine=0.0, rerank=0.0, position=0.1, answer_type=0.0)


def _best(question: str, text: str, weights: QuoteWeights) -> str:
    hit = Hit(Chunk("c1", "docs", "/docs/paper.md", text, line_start=1, line_end=2), 1.0)
    return QuoteScorer(HashEmbedder(), weights).score(question, [hit])[0].sentence.text


def test_a_chinese_which_year_question_is_quoted_the_sentence_with_the_year() -> None:
    question = "该框架是哪一年发布的？"
    text = "该框架发布后受到了广泛关注。该框架在2024年10月正式发布。"
    assert answer_type(question) == "number"
    assert "2024" in _best(question, text, TYPED)
    assert "2024" not in _best(question, text, UNTYPED)


def test_a_chinese_how_many_question_takes_a_chinese_numeral_for_a_number() -> None:
    question = "这个模型有几个模块？"
    text = "这个模型的模块设计非常简洁。这个模型一共包含三个模块。"
    assert answer_type(question) == "number"
    assert "三个" in _best(question, text, TYPED)
    assert "三个" not in _best(question, text, UNTYPED)


def test_a_hindi_when_question_is_quoted_the_sentence_with_the_year() -> None:
    question = "ताजमहल कब बनाया गया था?"
    text = "ताजमहल को बहुत सुंदर ढंग से बनाया गया था। ताजमहल 1653 में बनकर पूरा हुआ था।"
    assert answer_type(question) == "number"
    assert "1653" in _best(question, text, TYPED)
    assert "1653" not in _best(question, text, UNTYPED)


def test_who_in_chinese_and_hindi_asks_for_a_name() -> None:
    assert answer_type("谁提出了知识增强生成的方法？") == "name"
    assert answer_type("भारत का संविधान किसने लिखा?") == "name"
    question = "谁开发了这个框架？"
    text = "这个框架由一个团队开发。这个框架由 Ant Group 开发并开源。"
    assert "Ant Group" in _best(question, text, TYPED)
    assert "Ant Group" not in _best(question, text, UNTYPED)
