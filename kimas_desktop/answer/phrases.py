"""The product's own sentences in the question's language (issue 42): English, and Simplified Chinese for a
question written in Chinese characters.

What the app says around an answer (a decline, "nothing found", the quote's lead, the steps it is working
on) follows the question, not the browser: a Chinese question is answered in Chinese whatever reads it
(the chat, ``kimas ask``, the API). Codes (an outcome's kind, a policy rule, JSON keys) stay as they are:
they are not sentences. A key missing from a translation falls back to English.
"""

from __future__ import annotations

from typing import Literal

from kimas_desktop.text.language import script_language

__all__ = ["Phrase", "language_of", "phrase", "phrase_in"]

Phrase = Literal[
    "no knowledge",
    "nothing found",
    "decline start",
    "decline anything",
    "closest passages",
    "and",
    "may answer",
    "not sure",
    "quote start",
    "set aside",
    "understanding",
    "checking",
    "searching again",
    "writing",
    "switch button",
    "multilingual note",
]

_ENGLISH: dict[Phrase, str] = {
    "no knowledge": (
        "There is no knowledge to answer from yet. Open the Knowledge tab and add a folder or drop files "
        "onto a collection (or run `kimas index PATH`), then ask again."
    ),
    "nothing found": "Nothing in your documents comes close to this question.",
    "decline start": "Your documents don't say",
    "decline anything": "anything about",
    "closest passages": "the closest passages are",
    "and": " and ",
    "may answer": "The closest passage may answer this:",
    "not sure": "It is not a sure answer.",
    "quote start": "Your documents say:",
    "set aside": "The model's own answer was set aside: none of its sentences is backed by your documents.",
    "understanding": "Understanding the question…",
    "checking": "Checking that your documents answer this…",
    "searching again": "Searching again for what the evidence misses…",
    "writing": "Writing the answer…",
    "switch button": "Use the multilingual embedding model",
    "multilingual note": (
        "This question is not in English ({language}) and the embedding model reads English only, so "
        "documents are found poorly. '{button}' downloads {model} when needed, switches to it and "
        "re-embeds your collections in the background."
    ),
}
_CHINESE: dict[Phrase, str] = {
    "no knowledge": "还没有可以用来回答的知识。请打开“知识库”标签页添加文件夹或拖入文件（或运行 `kimas index PATH`），然后再问。",
    "nothing found": "你的文档中没有与这个问题相近的内容。",
    "decline start": "你的文档没有说明",
    "decline anything": "任何关于",
    "closest passages": "最接近的段落是",
    "and": " 和 ",
    "may answer": "最接近的段落可能回答了这个问题：",
    "not sure": "这不是确定的答案。",
    "quote start": "你的文档中写道：",
    "set aside": "模型自己的回答已被搁置：它的句子都没有得到你的文档的支持。",
    "understanding": "正在理解问题…",
    "checking": "正在检查你的文档能否回答…",
    "searching again": "正在为缺少的证据再次搜索…",
    "writing": "正在撰写回答…",
    "switch button": "使用多语言嵌入模型",
    "multilingual note": (
        "这个问题不是英文（{language}），而当前的嵌入模型只读得懂英文，所以很难找到相关的文档。"
        "“{button}”会在需要时下载 {model}，切换到它，并在后台重新嵌入你的知识库。"
    ),
}
_PHRASES = {"en": _ENGLISH, "zh": _CHINESE}


def language_of(question: str) -> str:
    """ "zh" for a question written mostly in Chinese characters (without kana), else "en"."""
    detected = script_language(question)
    return "zh" if detected is not None and detected.code == "zh" else "en"


def phrase(key: Phrase, question: str = "") -> str:
    """The sentence ``key`` in ``question``'s language."""
    return phrase_in(key, language_of(question))


def phrase_in(key: Phrase, language: str) -> str:
    """The sentence ``key`` in ``language`` ("en", "zh"; English for any other)."""
    return _PHRASES.get(language, _ENGLISH).get(key, _ENGLISH[key])
