"""The stages built on the text layer, on a real Chinese and a real Hindi passage (issue 42): the quote
scorer quotes the sentence that holds the answer, the answerability decision takes it for an answer and
declines an unrelated question, and the support check backs an answer sentence drawn from it and not an
unrelated one. None of their code knows about scripts: it all comes through ``kimas_desktop.text.words``.

Chinese: ``../shared/papers/ragenta.zh.txt``; Hindi: ``hindi_qa_bigbench_even`` passage d2 (dev kit).
The embedder is the shipped SHA-256 word-vector fake, whose own ``\\w+`` words see neither script well:
what these tests measure is the text layer's part."""

from __future__ import annotations

import pytest

from kimas_desktop.answer.signals.answerability import AnswerabilityModel, evidence_features
from kimas_desktop.answer.signals.quote import QuoteScorer, QuoteWeights
from kimas_desktop.answer.writing.support import SupportChecker
from kimas_desktop.text.terms import TermWeights
from kimas_desktop.types import Chunk, Hit
from local_models.fake import HashEmbedder

CHINESE = (
    "框架的第一阶段是一个混合检索系统,结合密集检索和稀疏检索,确保文档覆盖范围广泛且上下文相关。"
    "作者使用DataMorgana平台构建了一个多样化的合成QA基准数据集,包含500对问答,每对问题都关联多个支持性证据段落。"
    "在过滤掉不相关的文档之后,Agent-3 使用剩余的相关文档合成一个完整的答案。"
)
CHINESE_OTHER = "评估时参考 SIGIR LiveRAG 挑战赛中使用的自动评估器来评估答案的正确性和忠实度。"
HINDI = (
    "1982 में चीन की जनसंख्या अरबों अंक पर पहुंच गई। 2017 तक, चीन की जनसंख्या 1.411 बिलियन तक पहुंच गई थी, "
    "जो दुनिया के किसी भी देश का सबसे बड़ा देश था। चीन की जनसंख्या वृद्धि दर केवल 0.59% है, जो दुनिया में "
    "159 वें स्थान पर है। चीन ने 1 नवंबर 2010 को अपनी छठी राष्ट्रीय आबादी की जनगणना आयोजित की।"
)
HINDI_OTHER = "एक्सावेटा प्रोटिस्ट का एक समूह है जिसे मोनोफाईलेटिक माना जाता है।"

# language → (passage, unrelated passage, question, the sentence that answers it, an answer sentence
# drawn from it, an unrelated question, an unrelated answer sentence)
CASES = {
    "zh": (
        CHINESE,
        CHINESE_OTHER,
        "DataMorgana 平台构建的合成数据集包含多少对问答?",
        "作者使用DataMorgana平台构建了一个多样化的合成QA基准数据集,包含500对问答,每对问题都关联多个支持性证据段落。",
        "DataMorgana 构建的合成基准数据集包含 500 对问答。",
        "谷歌浏览器的默认搜索引擎是什么?",
        "谷歌浏览器默认使用必应作为搜索引擎。",
    ),
    "hi": (
        HINDI,
        HINDI_OTHER,
        "चीन में छठी राष्ट्रीय जनगणना कब आयोजित की गई?",
        "चीन ने 1 नवंबर 2010 को अपनी छठी राष्ट्रीय आबादी की जनगणना आयोजित की।",
        "चीन की छठी राष्ट्रीय जनगणना 1 नवंबर 2010 को आयोजित की गई।",
        "दुनिया का सबसे बड़ा रेगिस्तान कौन सा है?",  # before issue 42 "सबस", "बड" matched "सबसे बड़ा देश"
        "भारतीय क्रिकेट टीम के कप्तान रोहित शर्मा हैं।",
    ),
}


def _hits(passage: str, other: str) -> list[Hit]:
    return [
        Hit(Chunk("c1", "docs", "/docs/paper.txt", passage, line_start=1, line_end=3), 0.8),
        Hit(Chunk("c2", "docs", "/docs/other.txt", other, line_start=1, line_end=1), 0.8),
    ]


@pytest.mark.parametrize("lang", CASES)
def test_the_quote_is_the_sentence_that_holds_the_answer(lang: str) -> None:
    passage, other, question, answering, *_ = CASES[lang]
    scored = QuoteScorer(HashEmbedder(), QuoteWeights()).score(question, _hits(passage, other))
    assert scored[0].sentence.text == answering
    assert scored[0].overlap >= 0.6


@pytest.mark.parametrize("lang", CASES)
def test_answerability_takes_the_answer_and_declines_an_unrelated_question(lang: str) -> None:
    passage, other, question, _, _, unrelated_question, _ = CASES[lang]
    hits = _hits(passage, other)
    scorer, model = QuoteScorer(HashEmbedder(), QuoteWeights()), AnswerabilityModel()
    idf = TermWeights.from_texts([h.chunk.text for h in hits])
    for q, answerable in ((question, True), (unrelated_question, False)):
        evidence = evidence_features(scorer.score(q, hits, idf), hits, scorer.question_words(q), idf)
        assert model.decide(evidence).answerable is answerable, (q, evidence)


@pytest.mark.parametrize("lang", CASES)
def test_the_support_check_backs_the_answer_and_not_an_unrelated_sentence(lang: str) -> None:
    passage, other, question, answering, answer, _, unrelated = CASES[lang]
    report = SupportChecker(HashEmbedder()).check(f"{answer}\n\n{unrelated}", _hits(passage, other), question)
    backed, not_backed = report.sentences
    assert backed.supported and passage[backed.evidence_start : backed.evidence_end] == answering
    assert not not_backed.supported
