"""Question words in English, Chinese and Hindi (issue 42): which questions want a number or a date, which
a name, and which words give a number without digits; real tokenization (jieba, Devanagari marks kept)."""

from __future__ import annotations

import pytest

from kimas_desktop.text.question_words import NUMBER_WORDS, answer_kind, is_number_word
from kimas_desktop.text.words import words


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How many people live in Kenya?", "number"),
        ("When was the company founded?", "number"),
        ("Who founded it?", "name"),
        ("Why is the sky blue?", ""),
        ("KAG是哪一年发布的？", "number"),
        ("这个数据集有多少对问答？", "number"),
        ("这个模型有几个模块？", "number"),
        ("这篇论文是什么时候发表的？", "number"),
        ("该方法何时提出？", "number"),
        ("谁提出了这个方法？", "name"),
        ("项目地址在哪里？", "name"),
        ("哪个公司开发了KAG？", "name"),
        ("KAG 项目地址是什么", ""),
        ("几乎所有的方法都用了什么？", ""),  # 几乎: "almost", not 几
        ("भारत की जनसंख्या कितनी है?", "number"),
        ("ताजमहल कब बना था?", "number"),
        ("भारत को किस वर्ष आज़ादी मिली?", "number"),
        ("चीन की राजधानी कौन सी है?", "name"),
        ("गांधी कहाँ पैदा हुए थे?", "name"),
        ("वह किस शहर में रहता था?", "name"),
        ("यह किस प्रकार काम करता है?", ""),  # किस प्रकार: "how"
        ("किसान क्या उगाते हैं?", ""),  # किसान: "farmer", not किस
    ],
)
def test_what_a_question_asks_for(question: str, kind: str) -> None:
    assert answer_kind(question) == kind


def test_number_words_in_a_chinese_and_a_hindi_sentence() -> None:
    zh = "KAG框架包含三个模块，共有十二种方法，这是一个十分有效的设计。"
    assert [w for w in words(zh) if is_number_word(w)] == ["三个", "十二种"]  # not 一个 ("a"), 十分 ("very")
    hi = "भारत में तीन हज़ार गाँव एक नदी के पास हैं।"
    assert [w for w in words(hi) if is_number_word(w)] == ["तीन", "हज़ार"]  # not एक ("a")
    assert "twelve" in NUMBER_WORDS and "Daily".lower() in NUMBER_WORDS and "people" not in NUMBER_WORDS


def test_a_when_after_another_question_word_is_a_clause_not_the_question() -> None:
    assert answer_kind("Why do intellectuals not respond when asked about their theories?") == ""
    assert answer_kind("Who answers the phone when the office is closed?") == "name"
    assert answer_kind("When did graphic design start?") == "number"
    assert answer_kind("In what year was the colony founded when the war ended?") == "number"
    assert answer_kind("审计什么时候开始？") == "number"
    assert answer_kind("ऑडिट कब शुरू हुआ?") == "number"


def test_may_and_march_written_lower_case_are_verbs() -> None:
    assert not is_number_word("may") and not is_number_word("march")
    assert is_number_word("May") and is_number_word("March") and is_number_word("june")
