"""What the chat writes around an answer, in the question's language (issue 42, 60): not a label, since the
page cannot translate text the app writes as it answers. A Chinese question gets the Chinese column, a
Japanese or Hindi one those columns (``ui.words_ja``, ``ui.words_hi``), any other the English one; the labels' words (``ui.words``) may be said too, so a line can name a button as the
page shows it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from kimas_desktop.answer.model_alone import LABEL as MODEL_ALONE_LABEL
from kimas_desktop.answer.phrases import language_of
from ui.chat.trace_words import MARKS, TRACE
from ui.i18n import browser_language, spoken
from ui.words import COLUMNS, WORDS

__all__ = ["SAID", "failure_said", "said", "said_in", "status_said"]

# key → (English, Simplified Chinese)
SAID: dict[str, tuple[str, str]] = {
    "from your documents": ("From your documents", "来自你的文档"),
    "closest passages": ("Closest passages in your documents", "你的文档中最接近的段落"),
    "sources": ("Sources", "来源"),
    "how made": ("How this answer was made", "这个回答是如何得出的"),
    "try anyway": (
        "_Press **Regenerate** to let the model try anyway._",
        "_按 **重新生成** 让模型仍然尝试回答。_",
    ),
    # once in a chat, under its first answer that is the quote because the model writes none (issue 69)
    "quote only": (
        "_Answers show the passage of your documents that answers, with its source. To have a model write "
        "the answers, choose a bigger model in **Settings**; **Regenerate** lets the built-in model try._",
        "_回答显示你的文档中回答问题的段落及其来源。要让模型写出回答，请在 **设置** 中选择更大的模型；"
        "按 **重新生成** 可让内置模型尝试。_",
    ),
    # the status line while the model answers (``ui/chat/trace_view.status_line``), filled with str.format
    "pace writing": ("{words} words so far, {rate} words/s.", "已写 {words} 个词，每秒 {rate} 个词。"),
    "pace reading": (
        "The model reads its sources first: {tokens} prompt tokens.",
        "模型先阅读来源：{tokens} 个提示词元。",
    ),
    "pace reading at": (
        "The model reads its sources first: {tokens} prompt tokens at about {rate} tokens/s ({source}).",
        "模型先阅读来源：{tokens} 个提示词元，约每秒 {rate} 个（{source}）。",
    ),
    # where the prompt speed comes from (``budget.PromptSpeed``, ``prompt_plan``)
    "measured at load": ("measured at load", "加载时测得"),
    "recent answers": ("recent answers", "根据最近的回答"),
    "unknown": ("unknown", "未知"),
    "read by the check": ("read by the check", "检查时已读过来源"),  # ``prompt_plan``: in the cache
    # an answer's state (``ui/chat/render.py``, ``model_alone_view.py``)
    "thinking": ("Thinking…", "思考中…"),
    # the status line's steps that app/ and the pipeline give by a code (``status_said``)
    "status loading": ("Loading the model…", "正在加载模型…"),
    "status searched": ("Searched {names}.", "已搜索：{names}。"),
    "status searched none": ("Searched no collection.", "没有搜索任何知识库。"),
    "status asking": ("Asking {names}…", "正在询问 {names}…"),
    "stopped": ("_Stopped._", "_已停止。_"),
    "stopped because": ("_Stopped ({why})._", "_已停止（{why}）。_"),
    "you asked a new question": ("you asked a new question", "你问了新的问题"),  # app/chat/session.py
    "could not answer": ("⚠ **Could not answer:** {why}", "⚠ **无法回答：** {why}"),
    "no citations": ("_Citations are unavailable for this answer._", "_这个回答没有可用的引用。_"),
    "found before stop": ("Sources found before it stopped", "停止前找到的来源"),
    "quote unused": (
        "⚠ The model's answer does not use the quoted passage above; the quote is what your documents say.",
        "⚠ 模型的回答没有用到上面引用的段落；引用的才是你的文档所说的。",
    ),
    "unsupported sentences": (
        "⚠ {n} sentence{s} of this answer could not be found in the sources.",
        "⚠ 这个回答有 {n} 句话在来源中找不到。",
    ),
    # where a passage is (``Chunk.locator``'s parts)
    "at page": ("p. {n}", "第 {n} 页"),
    "at page ocr": ("p. {n} (OCR)", "第 {n} 页（OCR）"),
    "at lines": ("lines {start}-{end}", "第 {start}-{end} 行"),
    "web": ("web ({name})", "网页（{name}）"),
    "open page": ("Open the page", "打开网页"),
    "retrieved": (" · retrieved {when}", " · 获取于 {when}"),
    "original file": ("The original file", "原始文件"),
    "open file": ("Open {name}", "打开 {name}"),
    "open at passage": ("Open {name} at the passage", "在该段落处打开 {name}"),
    # the viewer's page (``ui/server/viewer_page.py``), in the reader's language
    "viewer page of": ("page {page} of {pages}", "第 {page} 页，共 {pages} 页"),
    "viewer title page": ("{name} — page {page}", "{name} — 第 {page} 页"),
    "viewer page alt": ("page {page} of {name}", "{name} 的第 {page} 页"),
    "viewer page text": ("Text of page {page}", "第 {page} 页的文字"),
    "viewer not on page": ("the cited words were not found on this page", "在这一页上没有找到引用的文字"),
    "viewer previous": ("‹ previous page", "‹ 上一页"),
    "viewer next": ("next page ›", "下一页 ›"),
    "viewer original": ("the original file", "原始文件"),
    "viewer lines of": ("lines {start}–{end} of {total}", "第 {start}–{end} 行，共 {total} 行"),
    "viewer lines": ("{total} lines", "共 {total} 行"),
    "viewer showing": (" (showing {first}–{last})", "（显示第 {first}–{last} 行）"),
    "viewer text read": ("the text KIMAs read", "KIMAs 读取的文字"),
    "viewer not in text": ("the cited words were not found in the text", "在文字中没有找到引用的文字"),
    "viewer undrawn page": (
        "This page could not be drawn: {why}. The original file opens with the link above.",
        "这一页无法绘制：{why}。可以用上面的链接打开原始文件。",
    ),
    "viewer unreadable file": ("This file could not be read: {why}", "无法读取这个文件：{why}"),
    # why a sentence is flagged (the tooltip; ``SupportReason`` codes)
    "not in the sources": ("not in the sources", "来源中没有"),
    "weakly backed": ("weakly backed", "来源支持不足"),
    "restates the question": ("restates the question", "只是重复了问题"),
    "misses the answer": ("misses the answer", "没有给出答案"),
    "missing facts": ("not in the sources: {facts}", "来源中没有：{facts}"),
    "sources say": ("{reason}: the sources say {facts}", "{reason}：来源说的是 {facts}"),
    "not found": ("not found in the sources", "在来源中找不到"),
    "flag": ("unsupported", "无依据"),
    # a table answer (``table_html``)
    "computed": ("Computed: {what}", "计算得出：{what}"),
    "row": ("row", "行"),
    "more rows": ("and {n} more rows", "另有 {n} 行"),
    # the answers Regenerate replaced (``earlier_html``)
    "answer n": ("Answer {n}", "回答 {n}"),
    "answer stopped": (" (stopped)", "（已停止）"),
    "no answer": ("(no answer)", "（没有回答）"),
    "earlier answers": ("{n} earlier answer{s} to this question", "这个问题之前的 {n} 个回答"),
    # the model alone (``model_alone_view.py``)
    "model alone label": (MODEL_ALONE_LABEL, "不是来自你的文档：模型用它自己的知识回答，可能有错。"),
    "offer": (
        "You can also ask the model alone: it answers from its own knowledge, not from your documents. "
        "Click **{button}** below, or choose **{mode}: {alone}**.",
        "你也可以只问模型：它用自己的知识回答，而不是根据你的文档。点击下面的 **{button}**，"
        "或选择 **{mode}：{alone}**。",
    ),
}
SAID |= TRACE  # the trace's words (issue 69)


def said_in(key: str, language: str, **values: object) -> str:
    """The chat's own words ``key`` in ``language`` ("zh", "ja", "hi"; else English), ``values``
    filled in with ``str.format``; a key it does not know: ``key`` itself. A label's words (``_WORDS``) may
    be said too: the chat's offer names the button and the choice as the page shows them."""
    english, chinese = SAID.get(key) or WORDS.get(key) or (key, key)
    text = chinese if language == "zh" else COLUMNS.get(language, {}).get(key, english)
    return text.format(**values) if values else text


def said(key: str, question: str) -> str:
    """The chat's own words ``key`` in ``question``'s language (a key it does not know: ``key`` itself)."""
    return said_in(key, language_of(question))


# The steps of an answer said by their code (``Status.code``, ``Turn.status_code``; issue 69: not by
# matching the English sentence, which may be reworded): the key that says them.
_STATUSES: dict[str, str] = {
    "searched": "status searched",
    "asking": "status asking",
    "loading": "status loading",
    "thinking": "thinking",
}


def status_said(
    status: str,
    code: str,
    values: Mapping[str, Sequence[str]],
    question: str,
    title: Callable[[str], str] = str,
) -> str:
    """The answer's step in ``question``'s language: by its ``code`` and ``values`` (the ``collections``
    it searched by the names they show: ``title``, id → name, as the Knowledge tab shows them, never the
    internal id; the online ``sources`` by their names). A step without a code the table knows (the
    pipeline's phrases, already said in the question's language) is ``status`` as it is."""
    key = _STATUSES.get(code)
    if key is None:
        return status
    lang = language_of(question)
    names = [title(c) for c in values.get("collections", ())] + list(values.get("sources", ()))
    if code == "searched" and not names:
        key = "status searched none"
    if not names:
        return said_in(key, lang)
    return said_in(key, lang, names=MARKS.get(lang, MARKS["en"])[0].join(names))


def failure_said(english: str, code: str, values: Mapping[str, object], language: str) -> str:
    """Why an answer failed (``Turn.error``, with its code and values) in ``language`` ("zh", "ja", "hi";
    else English): the table's ``app_<code>`` words (``ui.i18n.spoken``), English for a code they lack."""
    return spoken(code, values, english, browser_language(language))  # a language code as a column
