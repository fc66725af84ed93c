"""The page's timer: views are sent only when something changed, and a broken store is said as such."""

from __future__ import annotations

from pathlib import Path

from tests.rigs import make_rig, write_docs
from ui.chat import render
from ui.chat.handlers import chat_hint
from ui.i18n import t
from ui.knowledge import handlers
from ui.poll import poll


def test_poll_sends_views_only_when_something_changed(tmp_path: Path) -> None:
    rig = make_rig(tmp_path)
    s = rig.session
    first = poll(s, None)
    assert str(first.collections_md) == str(t("no_collections"))  # said in the page's language
    assert "Idle" in first.progress_html
    same = poll(s, first.version)
    assert same.collections_md is None and same.names is None and same.activity_md is None
    handlers.upload(s, "docs", [str(write_docs(tmp_path / "t") / "notes.md")])
    rig.wait_idle()
    after = poll(s, first.version)
    assert after.names == ["docs"] and isinstance(after.collections_md, str)
    assert "1 file · 1 chunk" in after.collections_md and "(uploaded files)" in after.collections_md
    assert after.activity_md is not None and "1 file indexed" in after.activity_md


def test_a_broken_store_is_reported_as_such_not_as_no_knowledge(tmp_path: Path) -> None:
    rig = make_rig(tmp_path)
    s = rig.session

    def unreadable() -> object:
        raise OSError("lancedb: the database directory is not readable")

    rig.searcher.collections = unreadable  # type: ignore[method-assign]
    hint = chat_hint(s)
    assert hint != render.NO_KNOWLEDGE_HINT and "knowledge store cannot be read" in hint
    assert "not readable" in hint and "kimas.log" in hint
    view = poll(s, None)
    assert isinstance(view.collections_md, str) and "knowledge store cannot be read" in view.collections_md
