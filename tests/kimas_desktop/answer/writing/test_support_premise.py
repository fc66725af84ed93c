"""The question's premise against its relation (issue 45, from the dev kit's tune split): a question word no
source has is taken for a fact when it stands on the question's subject ("the alpha module"), not when it
is the verb the question asks about, which a source says in other words ("endorse" for "advocate")."""

from __future__ import annotations

from kimas_desktop.answer.writing.support import SupportChecker
from kimas_desktop.types import Chunk, Hit, SentenceSupport
from local_models.fake import HashEmbedder


def check(question: str, answer: str, source: str) -> SentenceSupport:
    hits = [Hit(Chunk("s", "docs", "/docs/s.md", source), 0.9)]
    [sentence] = SupportChecker(HashEmbedder()).check(answer, hits, question).sentences
    return sentence


def test_the_questions_verb_said_otherwise_by_the_source_is_no_invented_fact() -> None:
    source = "Conservatives generally advocate supply-side economics."
    s = check(
        "What type of economics do Conservatives endorse?",
        "Conservatives endorse supply-side economics.",
        source,
    )
    assert s.supported and s.missing == ()
    tower = (
        "The Bank of America Tower was the first skyscraper designed to attain a Platinum LEED Certification."
    )
    t = check(
        "What certification did the tower obtain?", "The tower obtained a Platinum LEED Certification.", tower
    )
    assert t.supported and t.missing == ()


def test_a_word_on_the_questions_subject_is_still_a_premise() -> None:
    s = check(
        "What is the alpha module named?",
        "The alpha module is named TANGERINE.",
        "The beta module is named TANGERINE.",
    )
    assert not s.supported and s.missing == ("alpha",)


def test_chinese_and_hindi() -> None:
    zh = check("保守派支持哪种经济学？", "保守派支持供给侧经济学。", "保守派通常主张供给侧经济学。")
    assert zh.missing == ()
    zh_premise = check("阿尔法模块叫什么名字？", "阿尔法模块名叫橘子。", "贝塔模块名叫橘子。")
    assert zh_premise.missing == ("阿尔法",)
    hi = check(
        "रूढ़िवादी किस अर्थशास्त्र का समर्थन करते हैं?",
        "रूढ़िवादी आपूर्ति-पक्ष अर्थशास्त्र का समर्थन करते हैं।",
        "रूढ़िवादी आम तौर पर आपूर्ति-पक्ष अर्थशास्त्र की वकालत करते हैं।",
    )
    assert hi.missing == ()
    hi_premise = check("अल्फ़ा मॉड्यूल का नाम क्या है?", "अल्फ़ा मॉड्यूल का नाम टेंजेरीन है।", "बीटा मॉड्यूल का नाम टेंजेरीन है।")
    assert hi_premise.missing == ("अल्फ़ा",)
