"""The Gradio app builds from a session (layout and event wiring), without serving it."""

from __future__ import annotations

from pathlib import Path

import gradio as gr

from tests.rigs import make_rig
from ui.app import build_app, launch_kwargs
from ui.i18n import I18N


def test_the_app_builds_with_its_four_tabs(tmp_path: Path) -> None:
    demo = build_app(make_rig(tmp_path).session)
    assert isinstance(demo, gr.Blocks)
    tabs = [b.label for b in demo.blocks.values() if isinstance(b, gr.Tab)]
    english = I18N.translations_dict["en"]
    assert [english[tab.key] for tab in tabs] == ["Chat", "Knowledge", "Evaluation", "Settings"]
    ids = {b.elem_id for b in demo.blocks.values()}
    assert {"chatbot", "question", "stop", "regenerate", "new-chat", "upload-folder", "collections"} <= ids
    kwargs = launch_kwargs()
    assert kwargs["footer_links"] == [] and kwargs["mcp_server"] is False and kwargs["ssr_mode"] is False
