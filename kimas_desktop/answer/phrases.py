"""The product's own sentences in the question's language (issue 42): English; Simplified Chinese for a
question written in Chinese characters, Japanese for one with kana, Hindi for one in Devanagari.

What the app says around an answer (a decline, "nothing found", the quote's lead, the steps it is working
on) follows the question, not the browser: a Chinese question is answered in Chinese whatever reads it
(the chat, ``kimas ask``, the API). Codes (an outcome's kind, a policy rule, JSON keys) stay as they are:
they are not sentences. A key missing from a translation falls back to English (the button the
multilingual note names keeps the label the UI shows, which is English or Chinese). A sentence with a
question or places in it is one whole template ({asked}, {places}), so each language keeps its own word
order.
"""

from __future__ import annotations

from typing import Literal

from kimas_desktop.text.language import script_language

__all__ = ["Phrase", "language_of", "phrase", "phrase_in"]

Phrase = Literal[
    "no knowledge",
    "nothing found",
    "decline",
    "decline bare",
    "and",
    "may answer",
    "not sure",
    "quote start",
    "set aside",
    "disagree",
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
    "decline": "Your documents don't say “{asked}”; the closest passages are {places}.",
    "decline bare": "Your documents don't say anything about “{asked}”.",
    "and": " and ",
    "may answer": "The closest passage may answer this:",
    "not sure": "It is not a sure answer.",
    "quote start": "Your documents say:",
    "set aside": "The model's own answer was set aside: none of its sentences is backed by your documents.",
    "disagree": "Your documents disagree:",
    "understanding": "Understanding the question…",
    "checking": "Checking that your documents answer this…",
    "searching again": "Searching again for what the evidence misses…",
    "writing": "Writing the answer…",
    "switch button": "Use the multilingual embedding model",
    "multilingual note": (
        "This question is not in English ({language}) and the embedding model reads English only, so "
        "documents are found poorly. '{button}' switches to {model} (installed with the app, no download) "
        "and re-embeds your collections in the background."
    ),
}
_CHINESE: dict[Phrase, str] = {
    "no knowledge": "还没有可以用来回答的知识。请打开“知识库”标签页添加文件夹或拖入文件（或运行 `kimas index PATH`），然后再问。",
    "nothing found": "你的文档中没有与这个问题相近的内容。",
    "decline": "你的文档没有说明 “{asked}”；最接近的段落是 {places}。",
    "decline bare": "你的文档没有说明任何关于 “{asked}” 的内容。",
    "and": " 和 ",
    "may answer": "最接近的段落可能回答了这个问题：",
    "not sure": "这不是确定的答案。",
    "quote start": "你的文档中写道：",
    "set aside": "模型自己的回答已被搁置：它的句子都没有得到你的文档的支持。",
    "disagree": "你的文档说法不一：",
    "understanding": "正在理解问题…",
    "checking": "正在检查你的文档能否回答…",
    "searching again": "正在为缺少的证据再次搜索…",
    "writing": "正在撰写回答…",
    "switch button": "使用多语言嵌入模型",
    "multilingual note": (
        "这个问题不是英文（{language}），而当前的嵌入模型只读得懂英文，所以很难找到相关的文档。"
        "“{button}”会切换到 {model}（随应用一起安装，无需下载），并在后台重新嵌入你的知识库。"
    ),
}
_JAPANESE: dict[Phrase, str] = {
    "no knowledge": (
        "まだ回答に使える知識がありません。「ナレッジ」タブを開いてフォルダーを追加するか、コレクションにファイルを"
        "ドロップして（または `kimas index PATH` を実行して）から、もう一度質問してください。"
    ),
    "nothing found": "この質問に近い内容はあなたの文書にありません。",
    "decline": "あなたの文書には「{asked}」についての記載がありません。最も近い箇所は {places} です。",
    "decline bare": "あなたの文書には「{asked}」に関することは何も書かれていません。",
    "and": "、",
    "may answer": "最も近い箇所がこの質問に答えているかもしれません：",
    "not sure": "確かな回答ではありません。",
    "quote start": "あなたの文書には次のように書かれています：",
    "set aside": "モデル自身の回答は使いませんでした：どの文もあなたの文書に裏付けられていません。",
    "disagree": "あなたの文書の記載は食い違っています：",
    "understanding": "質問を理解しています…",
    "checking": "文書がこの質問に答えているか確認しています…",
    "searching again": "足りない根拠をもう一度検索しています…",
    "writing": "回答を書いています…",
    "multilingual note": (
        "この質問は英語ではなく（{language}）、埋め込みモデルは英語しか読めないため、文書がうまく見つかりません。"
        "「{button}」は {model}（アプリと一緒にインストール済み、ダウンロード不要）に切り替え、"
        "コレクションをバックグラウンドで埋め込み直します。"
    ),
}
_HINDI: dict[Phrase, str] = {
    "no knowledge": (
        "अभी उत्तर देने के लिए कोई ज्ञान नहीं है। “ज्ञान” टैब खोलें और कोई फ़ोल्डर जोड़ें या किसी संग्रह पर "
        "फ़ाइलें छोड़ें (या `kimas index PATH` चलाएँ), फिर दोबारा पूछें।"
    ),
    "nothing found": "आपके दस्तावेज़ों में इस प्रश्न के आस-पास का कुछ भी नहीं है।",
    "decline": "आपके दस्तावेज़ यह नहीं बताते: “{asked}”; सबसे नज़दीकी अंश {places} हैं।",
    "decline bare": "आपके दस्तावेज़ों में “{asked}” के बारे में कुछ भी नहीं है।",
    "and": " और ",
    "may answer": "सबसे नज़दीकी अंश शायद इसका उत्तर देता है:",
    "not sure": "यह पक्का उत्तर नहीं है।",
    "quote start": "आपके दस्तावेज़ों में लिखा है:",
    "set aside": "मॉडल का अपना उत्तर अलग रखा गया: उसका कोई भी वाक्य आपके दस्तावेज़ों से समर्थित नहीं है।",
    "disagree": "आपके दस्तावेज़ों में अलग-अलग बातें लिखी हैं:",
    "understanding": "प्रश्न समझा जा रहा है…",
    "checking": "जाँच हो रही है कि आपके दस्तावेज़ इसका उत्तर देते हैं या नहीं…",
    "searching again": "जो प्रमाण छूट गया है, उसे फिर से खोजा जा रहा है…",
    "writing": "उत्तर लिखा जा रहा है…",
    "multilingual note": (
        "यह प्रश्न अंग्रेज़ी में नहीं है ({language}) और एम्बेडिंग मॉडल केवल अंग्रेज़ी पढ़ता है, इसलिए दस्तावेज़ "
        "ठीक से नहीं मिलते। '{button}' {model} पर बदलता है (ऐप के साथ स्थापित, कोई डाउनलोड नहीं) और आपके "
        "संग्रहों को पृष्ठभूमि में फिर से एम्बेड करता है।"
    ),
}
_PHRASES = {"en": _ENGLISH, "zh": _CHINESE, "ja": _JAPANESE, "hi": _HINDI}


def language_of(question: str) -> str:
    """The language of the product's words for ``question``, told by its script: "zh" (Chinese characters,
    no kana), "ja" (kana), "hi" (Devanagari), else "en"."""
    detected = script_language(question)
    return detected.code if detected is not None and detected.code in _PHRASES else "en"


def phrase(key: Phrase, question: str = "") -> str:
    """The sentence ``key`` in ``question``'s language."""
    return phrase_in(key, language_of(question))


def phrase_in(key: Phrase, language: str) -> str:
    """The sentence ``key`` in ``language`` ("en", "zh", "ja", "hi"; English for any other)."""
    return _PHRASES.get(language, _ENGLISH).get(key, _ENGLISH[key])
