"""The text layer on real text in three scripts (issue 42): a Chinese sentence of a design paper
(``../shared/papers/ragenta.zh.txt``, jieba's real dictionary), a Japanese one of the Debian Reference
(``debian-reference-ja``, §9.5.10; character bigrams) and a Hindi passage of the dev kit
(``hindi_qa_bigbench_even``, d2; combining marks kept inside words). Each goes through ``words``,
``content_words``, ``numbers`` and the sentence splitter; the language of each is detected."""

from __future__ import annotations

import threading

from kimas_desktop.text.language import LanguageDetector
from kimas_desktop.text.segmenter import ChineseSegmenter
from kimas_desktop.text.sentences import split_sentences
from kimas_desktop.text.stopwords import CHINESE, HINDI
from kimas_desktop.text.tokenizer import Tokenizer, bigrams
from kimas_desktop.text.words import content_words, keywords, numbers, salient_terms, stems, words

CHINESE_TEXT = (
    "作者使用DataMorgana平台构建了一个多样化的合成QA基准数据集,包含500对问答,每对问题都关联多个支持性"
    "证据段落。该框架的核心是一种结合稀疏与密集方法的混合检索策略,相比最佳单一检索模型,其 Recall@20 提升了"
    " 12.5%,从而产生更正确且有更好支持的答案。"
)
JAPANESE_TEXT = "メモリー使用状況を確認するのに2つのリソースがあります。次のようにしてデーターを0にリセットして全消去します。"
HINDI_TEXT = (
    "1982 में चीन की जनसंख्या अरबों अंक पर पहुंच गई। चीन की जनसंख्या वृद्धि दर केवल 0.59% है, जो दुनिया "
    "में 159 वें स्थान पर है। चीन ने 1 नवंबर 2010 को अपनी छठी राष्ट्रीय आबादी की जनगणना आयोजित की।"
)


def test_chinese_is_segmented_into_words_with_its_numbers_apart() -> None:
    found = words(CHINESE_TEXT)
    for word in (
        "作者",
        "使用",
        "DataMorgana",
        "平台",
        "合成",
        "数据",
        "问答",
        "混合",
        "检索",
        "策略",
        "Recall",
    ):
        assert word in found
    assert "500" in found and "12.5" in found  # "500对问答": the digits are a word of their own
    assert not any(len(w) > 4 for w in found if not w.isascii())  # no run of characters is one word
    content = content_words(CHINESE_TEXT)
    assert "的" not in content and "了" not in content and "对" not in content  # stopwords
    assert {"问答", "检索", "datamorgana"} <= set(content)
    assert numbers(CHINESE_TEXT) == ["500", "20", "12.5"]
    assert numbers("提升了 12.5%") == ["12.5"] and words("500对问答") == ["500", "对", "问答"]
    assert keywords("合成数据集包含多少对问答?").split() == ["合成", "数据", "集", "包含", "问答"]
    assert salient_terms([CHINESE_TEXT])[:2] == ["DataMorgana", "检索"]  # a name, then the most frequent word


def test_chinese_sentences_end_at_the_full_stop_with_their_offsets() -> None:
    sentences = split_sentences(CHINESE_TEXT + "真的吗?是的！好；结束")
    assert [s.text[-1] for s in sentences] == ["。", "。", "?", "！", "；", "束"]
    assert sentences[1].text.startswith("该框架的核心")
    assert all(CHINESE_TEXT.__add__("真的吗?是的！好；结束")[s.start : s.end] == s.text for s in sentences)


def test_japanese_gives_character_bigrams_and_its_numbers() -> None:
    found = words(JAPANESE_TEXT)
    assert found[:4] == ["メモ", "モリ", "リー", "ー使"]
    assert "使用" in found and "状況" in found and "確認" in found  # kanji read as Japanese: bigrams
    assert "2" in found and "0" in found
    assert numbers(JAPANESE_TEXT) == ["2", "0"]
    assert bigrams("の") == ["の"] and words("これは") == ["これ", "れは"]
    assert [s.text for s in split_sentences(JAPANESE_TEXT)] == [
        "メモリー使用状況を確認するのに2つのリソースがあります。",
        "次のようにしてデーターを0にリセットして全消去します。",
    ]


def test_hindi_words_keep_their_vowel_signs() -> None:
    found = words(HINDI_TEXT)
    for word in ("चीन", "जनसंख्या", "वृद्धि", "दुनिया", "नवंबर", "राष्ट्रीय", "जनगणना", "आयोजित"):
        assert word in found
    assert "च" not in found and "न" not in found  # "चीन" was cut at its vowel sign before issue 42
    content = content_words(HINDI_TEXT)
    assert "की" not in content and "में" not in content and "है" not in content  # stopwords
    assert "वृद्धि" in content and stems("वृद्धि दर") == {"वृद्ध", "दर"}  # Hindi endings, not English ones
    assert numbers(HINDI_TEXT) == ["1982", "0.59", "159", "1", "2010"]
    sentences = split_sentences(HINDI_TEXT)
    assert len(sentences) == 3 and all(s.text.endswith("।") for s in sentences)
    assert all(HINDI_TEXT[s.start : s.end] == s.text for s in sentences)
    assert split_sentences("पहला वाक्य॥दूसरा")[0].text == "पहला वाक्य॥"


def test_thai_and_korean_give_bigrams_that_keep_marks_with_their_letter() -> None:
    assert words("ภาษาไทย") == ["ภา", "าษ", "ษา", "าไ", "ไท", "ทย"]
    assert "ไม่" in words("ไม่มี")  # the tone mark stays with its consonant
    assert words("한국어 문장") == ["한국", "국어", "문장"]


def test_stopword_lists_hold_the_function_words() -> None:
    assert {"的", "了", "是", "什么"} <= CHINESE and {"की", "है", "में", "क्या"} <= HINDI


def test_the_dictionary_is_read_once_even_when_threads_meet_chinese_at_once() -> None:
    segmenter = ChineseSegmenter()
    assert not segmenter.loaded  # the constructor reads nothing
    tokenizer = Tokenizer(segmenter)
    results: list[list[str]] = []
    built: list[object] = []
    original = segmenter.load

    def counting_load() -> object:
        built.append(original())
        return built[-1]

    segmenter.load = counting_load  # type: ignore[method-assign]
    threads = [
        threading.Thread(target=lambda: results.append(tokenizer.tokens("混合检索策略"))) for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [["混合", "检索", "策略"]] * 4
    assert len({id(b) for b in built}) == 1  # every thread got the one tokenizer


def test_the_language_of_short_questions() -> None:
    detector = LanguageDetector()
    assert detector.detect("合成数据集包含多少对问答?") == "zh"
    assert detector.detect("चीन की जनसंख्या वृद्धि दर कितनी है?") == "hi"
    assert detector.detect("メモリー使用状況を確認するには?") == "ja"
    assert detector.detect("What is the population of Kenya?") == "en"
    assert detector.detect("Wie viele Einwohner hat Berlin heute?") == "de"
    assert detector.detect("Who wrote 三体 in the end?") == "en"  # one Chinese name does not decide
    assert detector.detect("12345 ?!") == "und"
    found = detector.identify("चीन की जनसंख्या")
    assert found.code == "hi" and found.script == "DEVANAGARI" and found.by_script
