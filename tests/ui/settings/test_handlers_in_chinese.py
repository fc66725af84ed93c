"""The Settings tab's buttons in a Chinese page (issue 60): what Save, Restore defaults, Use, Cancel download,
the language choice and a model no longer listed say is Chinese (paths and model names kept); English is
what the app wrote, word for word. The embedding field names both built-in embedding models."""

from __future__ import annotations

import re
from pathlib import Path

from app.settings.local_models import LocalModelChoices
from tests.rigs import make_rig
from tests.ui.english import english_runs
from ui.i18n import column, word
from ui.markup import esc
from ui.settings import handlers as sh
from ui.settings import language_view
from ui.settings import local_handlers as lh

_HAN = re.compile(r"[\u4e00-\u9fff]")


def test_every_settings_message_speaks_chinese_in_a_chinese_page(tmp_path: Path) -> None:
    s = make_rig(tmp_path).session
    form = sh.load_settings(s)
    said = [
        sh.use_model(s, None, "zh"),
        sh.download(s, None, "zh")[0],
        sh.cancel_download(s, "nothing-running", "zh"),
        sh.save_settings(s, form, "zh")[0],
        sh.restore_defaults(s, "zh")[0],
        lh.use(LocalModelChoices(s.settings, find=list), "gone", "zh"),
        language_view.choose(s, "zh-CN", "zh"),
    ]
    for message in said:
        assert _HAN.search(message), message
        assert english_runs(message, allowed=[str(s.config_path), "full"]) == [], message
    assert said[0] == "⚠ 请先选择一个模型。"


def test_the_english_settings_messages_are_unchanged(tmp_path: Path) -> None:
    s = make_rig(tmp_path).session
    assert sh.use_model(s, None) == "⚠ Choose a model first."
    assert sh.cancel_download(s, "x") == "No download of that model is running."
    assert sh.save_settings(s, sh.load_settings(s))[0] == esc(f"Settings saved to {s.config_path}.")
    assert lh.use(LocalModelChoices(s.settings, find=list), "gone") == (
        "⚠ That model is no longer listed: press Look again."
    )
    assert language_view.choose(s, "en") == "Language saved; the page reloads in it."


def test_the_embedding_field_names_both_built_in_models() -> None:
    for language in ("en", "zh"):
        label = column("set_embedding", language)
        assert "all-MiniLM-L6-v2" in label and "multilingual-e5-small" in label
    assert english_runs(word("set_embedding", "zh")) == []
