"""A label key must not name a group of Gradio's own translation table: the page then looks the key up as
that group and shows "[object Object]" (the Knowledge tab's file picker, keyed "file", issue 42)."""

from __future__ import annotations

from tests.ui.english import english_runs
from ui.chat.said import SAID
from ui.words import WORDS

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
