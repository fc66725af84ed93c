"""Links in a watched folder (issue 40): followed only while they stay inside it.

A symlink to a file outside (a stand-in for ``/etc/passwd``) or to a folder outside (``~/.ssh``) must not
bring that text into the collection: it is skipped, with the reason in the collection's file list. Links
that stay inside still work, and a link to a parent folder does not loop. Real symlinks on disk, the real
indexer and LanceDB."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from indexer import Indexer, LanceStore

SECRET = "The root password is hunter2 and it lives outside the folder."


def _link(link: Path, target: Path) -> None:
    try:
        link.symlink_to(target, target_is_directory=target.is_dir())
    except OSError as err:  # Windows without the right to make symlinks
        pytest.skip(f"cannot make a symlink here: {err}")


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    (outside / "ssh").mkdir(parents=True)
    (outside / "passwd").write_text(SECRET + "\n", "utf-8")
    (outside / "ssh" / "id_notes.md").write_text("# Keys\n\n" + SECRET + "\n", "utf-8")
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "guide.md").write_text("# Guide\n\nThe otters of the river sleep in the afternoon.\n", "utf-8")
    (docs / "sub" / "real.md").write_text("# Real\n\nHerons fish at dawn along the bank.\n", "utf-8")
    return docs, outside


def test_a_link_to_a_file_outside_is_skipped_with_its_reason(
    folders: tuple[Path, Path], indexer: Indexer, store: LanceStore
) -> None:
    docs, outside = folders
    _link(docs / "passwd.txt", outside / "passwd")
    report = indexer.index("docs", [docs])
    assert not any("hunter2" in c.text for c in store.chunks("docs"))
    [problem] = [p for p in report.problems if p.path.endswith("passwd.txt")]
    assert problem.kind == "skipped" and "outside the watched folder" in problem.reason
    assert str((outside / "passwd").resolve()) in problem.reason
    assert {Path(p.path).name for p in store.collection("docs").problems} == {"passwd.txt"}  # the file list


def test_a_link_to_a_folder_outside_is_skipped_and_links_inside_still_work(
    folders: tuple[Path, Path], indexer: Indexer, store: LanceStore
) -> None:
    docs, outside = folders
    _link(docs / "keys", outside / "ssh")
    _link(docs / "same-guide.md", docs / "guide.md")  # a file link within the folder: indexed
    _link(docs / "again", docs / "sub")  # a folder link within: its files are indexed at their real place
    _link(docs / "sub" / "up", docs)  # a link to a parent: no loop
    report = indexer.index("docs", [docs])
    chunks = store.chunks("docs")
    assert not any("hunter2" in c.text for c in chunks)
    assert {Path(c.source).relative_to(docs).as_posix() for c in chunks} == {
        "guide.md",
        "same-guide.md",
        "sub/real.md",
    }
    [problem] = report.problems
    assert problem.path == os.path.join(docs, "keys") and "a link to a folder outside" in problem.reason
    assert (report.indexed, report.skipped) == (3, 1)


def test_a_link_that_is_retargeted_outside_leaves_the_collection(
    folders: tuple[Path, Path], indexer: Indexer, store: LanceStore
) -> None:
    docs, outside = folders
    _link(docs / "notes.md", docs / "sub" / "real.md")
    indexer.index("docs", [docs])
    assert any(c.source.endswith("notes.md") for c in store.chunks("docs"))
    (docs / "notes.md").unlink()
    _link(docs / "notes.md", outside / "passwd")
    report = indexer.index("docs", [docs])
    chunks = store.chunks("docs")
    assert not any(c.source.endswith("notes.md") for c in chunks)
    assert not any("hunter2" in c.text for c in chunks)
    assert [Path(p.path).name for p in report.problems] == ["notes.md"]
