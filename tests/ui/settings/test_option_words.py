"""Options whose values are words (issue 69): the presets, the rewrite strategies and "Automatic" are said in
the page's language while their values stay the config's keys; Gradio's chatbot copy button, which Gradio's
own zh-CN, ja and hi tables leave in English, is said too. A new user who chose the app's language sees the
preset config.toml names ("full"), not "custom"."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import gradio as gr
import pytest

from app.settings.rules import defaults, form_of, wanted_config
from kimas_desktop.config import parse_config
from tests.rigs import make_rig
from ui.app import build_app
from ui.i18n import I18N, new_i18n


def _said(label: Any, locale: str) -> str:
    """A choice's label as the page shows it in ``locale`` (Gradio's frontend looks the key up)."""
    key = getattr(label, "key", None)
    return str(label) if key is None else I18N.translations_dict[locale][key]


def _choices(demo: gr.Blocks, values: set[str]) -> list[tuple[Any, Any]]:
    """The choices among ``values`` of the one radio or dropdown that offers them all (a strategy another
    test registered may be offered beside the built-in ones: the registry is the process's)."""
    for block in demo.blocks.values():
        if isinstance(block, gr.Radio | gr.Dropdown) and values <= {v for _, v in block.choices}:
            return [(label, v) for label, v in block.choices if v in values]
    raise AssertionError(f"no choice among {values}")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> gr.Blocks:
    return build_app(make_rig(tmp_path_factory.mktemp("ui")).session)


def test_the_presets_are_said_and_keep_their_keys(demo: gr.Blocks) -> None:
    choices = _choices(demo, {"full", "routed", "turbo", "custom"})
    assert [_said(label, "zh-CN") for label, _ in choices] == ["完整", "路由", "极速", "自定义"]
    assert [_said(label, "en") for label, _ in choices] == ["full", "routed", "turbo", "custom"]


def test_the_rewrite_strategies_are_said_and_keep_their_keys(demo: gr.Blocks) -> None:
    values = {"", "none", "keyword", "prompt", "retrieval", "hyde", "translation"}
    chinese = {value: _said(label, "zh-CN") for label, value in _choices(demo, values)}
    assert chinese[""] == "默认" and chinese["keyword"] == "关键词" and chinese["translation"] == "翻译"
    assert all(not word.isascii() for word in chinese.values()), chinese
    assert {value: _said(label, "en") for label, value in _choices(demo, values)}[""] == "default"


def test_automatic_is_said_in_the_pages_language(demo: gr.Blocks) -> None:
    choices = dict((v, label) for label, v in _choices(demo, {"auto", "en", "zh-CN"}))
    assert _said(choices["auto"], "zh-CN") == "自动" and _said(choices["auto"], "en") == "Automatic"
    assert choices["en"] == "English" and choices["zh-CN"] == "简体中文"  # each language in its own


@pytest.mark.parametrize(
    ("locale", "copy"),
    [("zh-CN", "复制消息"), ("zh", "复制消息"), ("ja", "メッセージをコピー"), ("hi", "संदेश कॉपी करें")],
)
def test_the_chatbots_copy_button_is_said(locale: str, copy: str) -> None:
    served = new_i18n("auto").translations_dict  # what Gradio merges into its own table on the page
    assert served[locale]["chatbot"]["copy_message"] == copy  # type: ignore[index]
    assert "chatbot" not in served["en"]  # Gradio's English stays its own
    assert new_i18n("zh-CN").translations_dict["en"]["chatbot"]["copy_message"] == "复制消息"  # type: ignore[index]


def test_a_new_users_own_settings_leave_the_preset_as_config_toml_says(tmp_path: Path) -> None:
    source = {"kind": "ddgs", "enabled": False}
    config = parse_config(
        {"preset": "full", "ui": {"language": "zh-CN"}, "server": {"api": False}, "sources": {"web": source}}
    )
    assert form_of(config).preset == "full"
    switched = wanted_config(config, replace(form_of(config), preset="turbo"))
    assert switched.preset == "turbo" and switched.retrieval.default_strategy == "keyword"
    for kept in (switched, defaults(config)):  # a preset or Restore defaults keeps the app's own settings
        assert kept.ui.language == "zh-CN" and kept.server.api is False and "web" in kept.sources
