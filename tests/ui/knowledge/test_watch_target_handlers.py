"""Issue 46: "Watch folder" clicked right after "Create" read a still-empty "Collection" choice, and the
folder went into a "documents" collection the user never made. The folder goes into the collection the
"New collection" field names, and with no collection chosen at all the watch is refused."""

from __future__ import annotations

from pathlib import Path

from tests.rigs import make_rig
from ui.knowledge import handlers


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "notes.md").write_text("# Notes\n\nThe kettle boils at noon.\n", "utf-8")
    return folder


def test_watch_right_after_create_goes_into_the_new_collection(tmp_path: Path) -> None:
    s = make_rig(tmp_path).session
    folder = _folder(tmp_path)
    assert handlers.create_collection(s, "研究资料").ok
    # The click sent the values the page showed: no collection chosen yet, the name still in its field.
    action = handlers.add_folder(s, None, str(folder), "研究资料")
    cid = s.knowledge.find("研究资料")
    assert action.ok, action.message
    assert cid is not None and action.selected == cid
    assert handlers.watched_folders(s, cid) == [str(folder.resolve())]
    assert handlers.collection_names(s) == [cid]  # no "documents" beside it


def test_watch_with_no_collection_chosen_is_refused(tmp_path: Path) -> None:
    s = make_rig(tmp_path).session
    action = handlers.add_folder(s, None, str(_folder(tmp_path)))
    assert not action.ok
    assert action.message.startswith("⚠ Choose a collection or create one first")
    assert handlers.collection_names(s) == []


def test_watch_before_its_create_makes_the_named_collection(tmp_path: Path) -> None:
    """The Watch request can reach the app before the Create clicked with it: the typed name is used."""
    s = make_rig(tmp_path).session
    folder = _folder(tmp_path)
    action = handlers.add_folder(s, None, str(folder), "My docs")
    cid = s.knowledge.find("My docs")
    assert action.ok and cid is not None and action.selected == cid
    assert handlers.watched_folders(s, cid) == [str(folder.resolve())]
    assert handlers.collection_names(s) == [cid]


def test_watch_with_a_refused_name_adds_nothing(tmp_path: Path) -> None:
    """A name Create refused stays in its field; Watch must not put the folder elsewhere."""
    s = make_rig(tmp_path).session
    assert handlers.create_collection(s, "kept").ok
    action = handlers.add_folder(s, "kept", str(_folder(tmp_path)), "x" * 81)
    assert not action.ok and "at most 80" in action.message
    assert handlers.watched_folders(s, "kept") == []
    assert handlers.collection_names(s) == ["kept"]


def test_a_late_refresh_of_the_watched_folders_keeps_the_folder_picked_meanwhile(tmp_path: Path) -> None:
    """A fresh-clone run beside two busy processes: after a rename, the folders' refresh (sent with the first
    folder picked) came back after the user picked the second, set the first again, and Stop watching took
    the first. A refresh whose sent folder is still listed leaves the pick to the page; otherwise (another
    collection, the folder just unwatched) the first folder is picked."""
    from ui.knowledge.layout import folders_update

    s = make_rig(tmp_path).session
    kept, dropped = _folder(tmp_path), tmp_path / "dropped"
    dropped.mkdir()
    assert handlers.add_folder(s, None, str(kept), "research").ok
    cid = s.knowledge.find("research")
    assert handlers.add_folder(s, cid, str(dropped)).ok
    first, second = handlers.watched_folders(s, cid)
    update = folders_update(s, cid, first)  # the refresh, sent before the pick of the second
    assert update["choices"] == [first, second] and "value" not in update
    assert folders_update(s, cid, str(tmp_path / "gone"))["value"] == first  # no longer listed
    assert folders_update(s, cid, None)["value"] == first
    assert folders_update(s, None, first)["value"] is None  # no collection: nothing to pick
