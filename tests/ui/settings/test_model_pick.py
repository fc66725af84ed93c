"""The Settings tab's model picker on a fresh start (issue 46): it shows the chat model in use, not an
empty box, and reads it again at each page load (a switch made since shows after a reload)."""

from __future__ import annotations

from pathlib import Path

import gradio as gr

from tests.rigs import make_rig
from ui.app import build_app
from ui.settings import handlers as sh


def _picker(demo: gr.Blocks) -> gr.Dropdown:
    found = [b for b in demo.blocks.values() if isinstance(b, gr.Dropdown) and b.elem_id == "model-pick"]
    assert len(found) == 1
    return found[0]


def test_the_picker_shows_the_chat_model_in_use_on_a_fresh_start(tmp_path: Path) -> None:
    desk = make_rig(tmp_path).session
    pick = _picker(build_app(desk))
    assert sh.model_in_use(desk) == "smollm2-135m-instruct"  # the embedded default chat model
    assert pick.value == "smollm2-135m-instruct"
    assert "smollm2-135m-instruct" in [name for _, name in pick.choices]
    assert pick.load_event_to_attach is not None  # read again when the page loads
