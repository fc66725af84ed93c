"""A label key must not name a group of Gradio's own translation table: the page then looks the key up as
that group and shows "[object Object]" (the Knowledge tab's file picker, keyed "file", issue 42). Each
column holds the words of its language: Chinese for every key, Japanese and Hindi for the Chat tab's."""

from __future__ import annotations

import re
import string

import pytest

from tests.ui.english import english_runs
from ui.chat.said import SAID
from ui.i18n import browser_language, column, word
from ui.words import CHAT_KEYS, COLUMNS, WORDS

# The groups of Gradio 6.31's English table (the names its frontend's ``en`` chunk exports).
GRADIO_GROUPS = frozenset(
    "_name annotated_image audio blocks chat_interface chatbot checkbox code color_picker common dataframe "
    "default dropdown errors file highlighted_text image image_editor label login number plot radio slider "
    "status upload_text video".split()
)


def test_no_label_key_is_a_group_of_gradios_own_table() -> None:
    assert not GRADIO_GROUPS & set(WORDS)
    assert "file_picked" in WORDS  # the picker's key since the "[object Object]" label


def test_the_chinese_column_holds_no_english() -> None:
    """Issue 60: each of the table's Chinese words is Chinese (names such as KIMAs, HTTP API, SearXNG may
    stay), so the pages that show them cannot bring English back."""
    for key, (_, chinese) in {**WORDS, **SAID}.items():
        assert chinese.strip() and not english_runs(chinese), (key, chinese)


# The script each further column is written in: kana or kanji, Devanagari (names such as KIMAs, OCR, URL may stay in Latin letters).
SCRIPTS = {"ja": re.compile("[\u3040-\u30ff\u4e00-\u9fff]"), "hi": re.compile("[\u0900-\u097f]")}


def _fields(text: str) -> set[str]:
    """The "{…}" blanks of ``text``, but "{s}" (the English plural's "s")."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name and name != "s"}


@pytest.mark.parametrize("language", ["ja", "hi"])
def test_every_chat_key_has_japanese_and_hindi_words_and_no_other(language: str) -> None:
    """Issue 60: the Chat tab's labels and the chat's lines, each in the column's own script with the same
    "{…}" blanks as the English, so the sentence the server fills in keeps every value."""
    words = COLUMNS[language]
    assert set(words) == CHAT_KEYS | set(SAID)
    for key, text in words.items():
        english = (SAID.get(key) or WORDS[key])[0]
        assert SCRIPTS[language].search(text) and not english_runs(text), (key, text)
        assert _fields(text) == _fields(english), (key, text)


def test_the_other_tabs_fall_back_to_english_in_japanese_and_hindi() -> None:
    assert word("new_chat", "ja") == "新しいチャット" and word("new_chat", "hi") == "नई चैट"
    assert column("cancel_indexing", "ja") == column("cancel_indexing", "hi") == "Cancel indexing"
    assert word("model_ready", "zh", models="m") == "就绪：m。"  # Chinese as it was


@pytest.mark.parametrize(("header", "language"), [("ja-JP,ja;q=0.9", "ja"), ("ja", "ja"), ("hi-IN", "hi")])
def test_a_japanese_or_hindi_browser_gets_its_column(header: str, language: str) -> None:
    assert browser_language(header) == language
