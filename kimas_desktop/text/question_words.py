"""What a question asks for, from its question words, in English, Chinese and Hindi (issue 42).

``answer_kind``: ``"number"`` for a question that wants a number or a date ("How many…?", "When…?",
"多少", "几个", "哪一年", "什么时候", "何时", "कितने", "कब", "किस वर्ष"), ``"name"`` for one that wants a
name ("Who…?", "Where…?", "谁", "哪里", "哪个", "कौन", "कहाँ", "किसने", "किस शहर"), ``""`` otherwise.
A number question's words win over a name question's ("Which country had how many…?").

``is_number_word``: a word that gives a number, a date or a frequency without digits: English ("twelve",
"March", "daily"), Chinese numerals as jieba cuts them ("三个", "十二种", "第一", "五百"), Hindi number words
and months ("तीन", "हज़ार", "मार्च"). Digits in any script are ``words.numbers``' job. Words that are mostly
an article or an adverb are left out: "一个"/"एक" ("a"), "十分" ("very"), "一点" ("a little").

English is matched on the text as before (word boundaries); Chinese and Hindi on the tokens of the one
tokenizer (``words.words``: jieba's words, Devanagari words with their marks), so "几乎" ("almost") is no
"几" and "किसान" ("farmer") no "किस". A question in another language gets ``""``: no preference, as every
non-English question had before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise
from typing import Literal

from kimas_desktop.text.stopwords import CHINESE, HINDI
from kimas_desktop.text.words import words

__all__ = ["NUMBER_WORDS", "AnswerKind", "NumberWords", "answer_kind", "is_number_word"]

AnswerKind = Literal["number", "name", ""]

_EN_NUMBER = re.compile(
    r"\b(how (many|much|long|old|far|big|large|tall|often)|what (year|date|percentage|percent|number|age)"
    r"|when|which year|in what year|population|percentage|price|cost|temperature|height|length|weight"
    r"|distance|salary|speed)\b",
    re.IGNORECASE,
)
_EN_WH = re.compile(r"\b(what|which|who|whom|whose|where|why|how)\b", re.IGNORECASE)
_EN_WHEN = re.compile(r"\bwhen\b", re.IGNORECASE)
_EN_NAME = re.compile(r"\b(who|whom|whose|where|which (city|country|company|team|person|state))\b", re.I)

# Chinese, as jieba cuts a question: single tokens, then runs of two ("什么" + "时候").
_ZH_NUMBER = frozenset(
    """多少 几 几个 几年 几次 几种 几位 几天 几月 几号 几岁 几倍 几项 几类 几部分 哪一年 哪年 哪一天 哪天 何年
    何时 多久 多长 多长时间 多大 多高 多远 多重 多快 多少次 多少年 百分之几""".split()
)
_ZH_NUMBER_RUNS = frozenset({("什么", "时候"), ("什么", "时间"), ("什么", "年份"), ("什么", "日期")})
_ZH_NOT_NUMBER = frozenset({"几乎", "几何"})  # "almost", "geometry"
_ZH_NAME = frozenset("谁 哪里 哪儿 何处 何地 哪个 哪位 哪家 哪国 哪所 哪座 哪些人".split())
_ZH_NAME_RUNS = frozenset({("什么", "地方"), ("什么", "人"), ("哪", "个")})

# Hindi: "कितने"/"कब" ask a number; "किस"/"कौन" before a word of time ("किस वर्ष") too.
_HI_NUMBER = frozenset("कितना कितनी कितने कब".split())
_HI_WHICH = frozenset("किस कौन कौनसा कौनसी कौनसे".split())
_HI_TIME = frozenset("वर्ष साल सन् सन तारीख तिथि दिन सदी शताब्दी समय महीने महीना".split())
_HI_NAME = frozenset("कौन कौनसा कौनसी कौनसे किसने किसका किसकी किसके किसको किसे कहाँ कहां किधर".split())
_HI_NOT_NAME = frozenset("प्रकार तरह लिए लिये कारण हद".split())  # "किस प्रकार": how, "किस लिए": why

_EN_NUMBER_WORDS = frozenset(
    """one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty sixty
    seventy eighty ninety hundred thousand million billion first second third fourth fifth sixth seventh
    eighth ninth tenth eleventh twelfth half dozen january february march april may june july august
    september october november december century centuries decade decades once twice thrice hourly daily
    nightly weekly fortnightly monthly quarterly yearly annually""".split()
)
_EN_VERBS = frozenset({"may", "march"})
_ZH_NUMERAL = re.compile(
    r"第?[零〇一二两三四五六七八九十百千万亿半]+[个年月日号天次种位名倍岁项层章节类款条篇周]?"
)
_ZH_NOT_NUMERAL = frozenset({"十分", "一点", "万一", "千万", "一一"}) | CHINESE
_HI_NUMBER_WORDS = frozenset(
    """दो तीन चार पाँच पांच छह छः सात आठ नौ दस ग्यारह बारह बीस तीस चालीस पचास सौ हज़ार हजार लाख करोड़ करोड
    दूसरा दूसरी दूसरे तीसरा तीसरी तीसरे चौथा चौथी आधा आधी दर्जन जनवरी फ़रवरी फरवरी मार्च अप्रैल मई जून
    जुलाई अगस्त सितंबर सितम्बर अक्टूबर अक्तूबर नवंबर नवम्बर दिसंबर दिसम्बर सदी शताब्दी दशक""".split()
)


def answer_kind(question: str) -> AnswerKind:
    """``number``, ``name`` or ``""``: what the question's words ask for (see the module docstring). A
    "when" after another question word is a clause, not the question ("Why do they not respond when
    asked?", "What can it cost when it fails?"): the rest decides."""
    first, when = _EN_WH.search(question), _EN_WHEN.search(question)
    if when and first and first.start() < when.start():
        question = _EN_WHEN.sub(" ", question)
    if _EN_NUMBER.search(question):
        return "number"
    tokens = [] if question.isascii() else words(question)
    if _asks_number(tokens):
        return "number"
    if _EN_NAME.search(question) or _asks_name(tokens):
        return "name"
    return ""


def is_number_word(word: str) -> bool:
    """``word`` (one token) gives a number, a date or a frequency without digits."""
    if word in _EN_VERBS:  # "may", "march" written lower-case are the verbs, not the months
        return False
    low = word.lower()
    if low in _EN_NUMBER_WORDS or low in _HI_NUMBER_WORDS:
        return True
    return low not in _ZH_NOT_NUMERAL and _ZH_NUMERAL.fullmatch(low) is not None


def _pairs(tokens: Sequence[str]) -> set[tuple[str, str]]:
    return set(pairwise(tokens))


def _asks_number(tokens: Sequence[str]) -> bool:
    if any(t in _ZH_NUMBER or t in _HI_NUMBER for t in tokens) or _pairs(tokens) & _ZH_NUMBER_RUNS:
        return True
    if any(t.startswith(("几", "多少")) and t not in _ZH_NOT_NUMBER for t in tokens):
        return True
    return any(t in _HI_WHICH and _HI_TIME & set(tokens[i + 1 : i + 3]) for i, t in enumerate(tokens))


def _asks_name(tokens: Sequence[str]) -> bool:
    if any(t in _ZH_NAME or t in _HI_NAME for t in tokens) or _pairs(tokens) & _ZH_NAME_RUNS:
        return True
    return any(t == "किस" and _content(tokens[i + 1 : i + 2]) for i, t in enumerate(tokens))


def _content(after: Sequence[str]) -> bool:
    """The word after "किस" names a thing ("किस शहर": which city), not a manner ("किस प्रकार": how)."""
    return bool(after) and after[0] not in _HI_NOT_NAME and after[0] not in HINDI


class NumberWords:
    """``is_number_word`` as a container, for ``word in NUMBER_WORDS`` (what callers wrote when it was
    a set of English words)."""

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and is_number_word(word)


NUMBER_WORDS = NumberWords()
