"""Files dropped with no collection chosen (issue 46): they go into a collection named "documents", and the
status line says so: that none was chosen, the collection's name, and how to give it another name. On
deterministic fakes, through the handler the drop zones call."""

from __future__ import annotations

from pathlib import Path

from tests.rigs import make_rig
from ui.knowledge import handlers


def test_a_drop_with_no_collection_chosen_says_where_the_files_went(tmp_path: Path) -> None:
    desk = make_rig(tmp_path).session
    note = tmp_path / "ferry.md"
    note.write_text("The harbour ferry leaves at nine.", "utf-8")
    action = handlers.upload(desk, None, [str(note)])
    assert action.ok, action.message
    assert "1 new file(s) copied into 'documents'" in action.message
    assert "No collection was chosen" in action.message
    assert "Rename, or stop watching a folder" in action.message  # where to give it another name
    assert action.selected == desk.knowledge.find("documents")  # the page shows the collection they went to


def test_a_drop_onto_a_chosen_collection_says_nothing_more(tmp_path: Path) -> None:
    desk = make_rig(tmp_path).session
    handlers.create_collection(desk, "handbook")
    note = tmp_path / "ferry.md"
    note.write_text("The harbour ferry leaves at nine.", "utf-8")
    action = handlers.upload(desk, desk.knowledge.find("handbook"), [str(note)])
    assert "copied into 'handbook'" in action.message and "No collection was chosen" not in action.message
