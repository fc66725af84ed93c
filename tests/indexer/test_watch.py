"""FolderWatcher with real watchdog observers: a save storm becomes one sync; moves and deletes follow."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

from indexer import FolderWatcher, Indexer, LanceStore
from kimas_desktop.types import IndexReport
from tests.indexer.files import write


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def names(store: LanceStore) -> set[str]:
    return {str(Path(c.source).relative_to(c.source.split("/w/")[0] + "/w")) for c in store.chunks("c")}


def test_the_watcher_debounces_and_follows_every_kind_of_change(
    tmp_path: Path, store: LanceStore, indexer: Indexer
) -> None:
    folder = tmp_path / "w"
    write(folder / "a.md", "alpha")
    indexer.index("c", [folder])
    reports: list[IndexReport] = []
    watcher = FolderWatcher(
        indexer, {"c": [folder]}, debounce_s=0.4, on_report=reports.append, catch_up=False
    )
    watcher.start()
    try:
        for i in range(25):  # an editor's save storm
            (folder / "a.md").write_text(f"alpha version {i}")
            time.sleep(0.01)
        assert wait_for(lambda: len(reports) == 1)
        time.sleep(1.0)  # nothing else comes: our own reads of the files trigger nothing
        assert len(reports) == 1 and reports[0].indexed == 1
        assert [c.text for c in store.chunks("c")] == ["alpha version 24"]

        write(folder / "sub" / "b.md", "beta")
        write(folder / "sub" / "deep" / "c.txt", "gamma")
        assert wait_for(lambda: names(store) == {"a.md", "sub/b.md", "sub/deep/c.txt"})
        (folder / "sub").rename(folder / "moved")  # a directory move
        assert wait_for(lambda: names(store) == {"a.md", "moved/b.md", "moved/deep/c.txt"})
        shutil.rmtree(folder / "moved" / "deep")
        (folder / "a.md").unlink()
        assert wait_for(lambda: names(store) == {"moved/b.md"})
        assert wait_for(watcher.idle)
    finally:
        watcher.stop()


def test_catch_up_syncs_what_changed_while_closed(
    tmp_path: Path, store: LanceStore, indexer: Indexer
) -> None:
    folder = tmp_path / "w"
    write(folder / "a.md", "alpha")
    indexer.index("c", [folder])
    write(folder / "b.md", "beta")  # while the app was closed
    reports: list[IndexReport] = []
    watcher = FolderWatcher(indexer, {"c": [folder]}, debounce_s=5.0, on_report=reports.append)
    watcher.start()
    try:
        assert wait_for(lambda: len(reports) == 1, timeout=3.0)
        assert reports[0].indexed == 1 and reports[0].unchanged == 1
    finally:
        watcher.stop()
