"""The product's own words in the user's language (issue 42), through Gradio's i18n.

The labels of the tabs, the Chat tab and the Knowledge tab are keys of ``ui.words``' table, served here; the
browser's language picks the translation on the page (Gradio's frontend), English for any language without
one. Simplified Chinese is the first translation; Japanese and Hindi translate the Chat tab (``ui.words``'
``COLUMNS``), and the other tabs fall back to English in them (``column``). Settings can override the browser (``[ui] language``;
``apply_language``): the override swaps the tables Gradio serves with each page, so it covers every label,
on the next page load; the words of Gradio's own widgets (an upload box's "Drop File Here", "Clear") still
follow the browser's language, which the server cannot set. Text the app writes while it runs is not a
label: the chat's lines around an answer follow the question's language (``ui.chat.said``); the server's
other words (the chat's status line, hint and conversation notes; the Knowledge tab's collections,
indexing progress and activity, file list and card, the online sources' outcomes) follow the page's
(``page_language``, ``word``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, get_args

import gradio as gr

from app.outcomes import Said
from kimas_desktop.errors import KimasError
from ui.words import COLUMNS, WORDS

__all__ = [
    "I18N",
    "LANGUAGES",
    "Language",
    "apply_language",
    "browser_language",
    "column",
    "counted",
    "language_for",
    "new_i18n",
    "page_language",
    "reason",
    "spoken",
    "t",
    "told",
    "word",
]

Language = Literal[
    "en", "zh", "ja", "hi"
]  # the table's columns: English, Simplified Chinese, Japanese, Hindi

_ALL: tuple[Language, ...] = get_args(Language)

# The Settings choice: config value → what the radio shows (each language in its own; "auto" is said in the
# page's language, ``ui_language_auto``).
LANGUAGES: dict[str, str] = {"auto": "Automatic", "en": "English", "zh-CN": "简体中文"}


def column(key: str, language: Language) -> str:
    """The words ``key`` (of ``WORDS``) in ``language``, unfilled. Japanese and Hindi hold the Chat tab's
    words only (issue 60: where the product already says its own sentences in them); for the other tabs'
    keys they fall back to English here, on the page and in what the server writes."""
    english, chinese = WORDS[key]
    if language == "zh":
        return chinese
    return COLUMNS[language].get(key, english) if language in COLUMNS else english


# Words of Gradio's own widgets that its tables lack in a language (Gradio 6.31: the chatbot's copy button says
# "Copy message" on a zh-CN, ja or hi page), as groups of its table: merged into its own on the page.
GRADIO_WIDGETS: dict[Language, dict[str, dict[str, str]]] = {
    "zh": {"chatbot": {"copy_message": "复制消息", "copied_message": "已复制消息", "complete": "完成"}},
    "ja": {
        "chatbot": {
            "copy_message": "メッセージをコピー",
            "copied_message": "コピーしました",
            "complete": "完了",
        }
    },
    "hi": {
        "chatbot": {"copy_message": "संदेश कॉपी करें", "copied_message": "संदेश कॉपी हो गया", "complete": "पूरा"}
    },
}


def _table(language: Language) -> dict[str, object]:
    """The words Gradio serves for ``language``: ours (``WORDS``) and the widgets' it lacks."""
    return {**{key: column(key, language) for key in WORDS}, **GRADIO_WIDGETS.get(language, {})}


def _tables(language: str) -> dict[str, dict[str, object]]:
    """Locale → words, for the ``[ui] language`` setting. A browser language without a table reads "en":
    with an override, "en" holds the chosen language's words too. Gradio's frontend looks a browser's
    "ja-JP" up as "ja", "hi-IN" as "hi"."""
    english, chinese, japanese, hindi = (_table(lang) for lang in _ALL)
    chosen = {"en": english, "zh-CN": chinese}.get(language)
    if chosen is not None:
        return {locale: dict(chosen) for locale in ("en", "zh-CN", "zh", "ja", "hi")}
    return {"en": english, "zh-CN": chinese, "zh": dict(chinese), "ja": japanese, "hi": hindi}


def new_i18n(language: str = "auto") -> gr.I18n:
    return gr.I18n(**_tables(language))  # type: ignore[arg-type]  # Gradio's frontend takes groups too


def apply_language(i18n: gr.I18n, language: str) -> None:
    """Make ``i18n`` say ``language`` ("auto": the browser's), in place: Gradio copies the tables it was
    launched with into every page it serves, so the next page load shows the change."""
    tables = _tables(language)
    for locale, words in tables.items():
        table: dict[str, object] = i18n.translations.setdefault(locale, {})  # type: ignore[assignment]
        table.clear()
        table.update(words)


I18N = new_i18n()


def t(key: str) -> gr.i18n.I18nData:
    """The label ``key`` (of ``WORDS``), translated on the page."""
    if key not in WORDS:
        raise KeyError(f"no label {key!r} in ui/i18n.py")
    return I18N(key)


def word(key: str, language: Language, **values: object) -> str:
    """The words ``key`` (of ``WORDS``) in ``language`` with ``values`` filled in, for the HTML and Markdown
    the server writes."""
    text = column(key, language)
    return text.format(**values) if values else text


def spoken(code: str, values: Mapping[str, object], english: str, language: Language) -> str:
    """What ``app/`` said as ``code`` with ``values`` (its ``english`` sentence beside), in ``language``:
    the table's "app_<code>" words; English, a code the table does not know and a language whose column
    lacks it, as ``english`` itself.
    A value that is itself a ``Said`` (the reason inside a sentence) is said in ``language`` too."""
    key = f"app_{code}"
    lacking = language in COLUMNS and key not in COLUMNS[language]  # Japanese, Hindi: the chat's words only
    if language == "en" or not code or key not in WORDS or lacking:
        return english
    filled = {k: told(v, v.english, language) if isinstance(v, Said) else v for k, v in values.items()}
    return word(key, language, **filled)


def told(said: Said | None, english: str, language: Language) -> str:
    """``spoken`` for an ``app.outcomes.Said`` (None: ``english`` as it is)."""
    return english if said is None else spoken(said.code, said.values, english, language)


def reason(err: BaseException, language: Language) -> str:
    """Why ``err`` happened, in ``language``: its code when it is a ``KimasError`` with one, else its own
    words."""
    if isinstance(err, KimasError) and err.code:
        return spoken(err.code, err.values, str(err), language)
    return str(err)


def counted(key: str, n: int, language: Language) -> str:
    """``word(key)`` for ``n`` things: "{n}" and the English plural's "{s}" filled in."""
    return word(key, language, n=n, s="" if n == 1 else "s")


def browser_language(accept_language: str | None) -> Language:
    """The language of the browser's first language ("zh", "zh-CN", … → "zh"; "ja-JP" → "ja"; "hi-IN" →
    "hi"), else English: the choice Gradio's frontend makes for the labels (its ``navigator.language`` is
    the Accept-Language header's first)."""
    first = (accept_language or "").split(",")[0].split(";")[0].strip().lower()
    base = first.split("-")[0]
    return next((lang for lang in _ALL if lang == base), "en")


def language_for(setting: str, accept_language: str | None) -> Language:
    """The language of a page: ``setting`` (``[ui] language``), or with "auto" the browser's (its
    Accept-Language header)."""
    if setting != "auto":
        return "zh" if setting == "zh-CN" else "en"
    return browser_language(accept_language)


def page_language(setting: str, request: gr.Request | None) -> Language:
    """The language of the page ``request`` comes from: ``setting`` (``[ui] language``), or with "auto" the
    browser's."""
    return language_for(setting, request.headers.get("accept-language") if request is not None else None)
