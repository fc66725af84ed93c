"""FolderWatcher (real watchdog observers) feeding the one IndexScheduler, over a real Indexer and LanceDB:
a save storm becomes one sync; moves and deletes follow; an edit does not wait for a long sync of another
collection; changing the watched folders returns at once, even during a long sync, and no edit waiting for
its sync is dropped."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from app.knowledge.indexing import ProgressCallback
from app.knowledge.scheduler import IndexScheduler
from indexer import FolderWatcher, Indexer, LanceStore
from kimas_desktop.control import IndexControl
from kimas_desktop.errors import CollectionNotFoundError
from kimas_desktop.types import IndexReport
from tests.indexer.files import write


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def names(store: LanceStore, collection: str = "c") -> set[str]:
    try:
        return {Path(c.source).name for c in store.chunks(collection)}
    except CollectionNotFoundError:  # not indexed yet
        return set()


class Recorder:
    """The real Indexer, counting syncs; ``gate`` (when set) holds the syncs of ``held`` at their start."""

    def __init__(self, indexer: Indexer) -> None:
        self.indexer = indexer
        self.reports: list[IndexReport] = []
        self.gate: threading.Event | None = None
        self.held: set[str] = set()
        self.entered = threading.Event()

    def index(
        self,
        collection: str,
        folders: Sequence[Path],
        on_progress: ProgressCallback | None = None,
        control: IndexControl | None = None,
    ) -> IndexReport:
        if self.gate is not None and collection in self.held:
            self.entered.set()
            self.gate.wait(20)
        report = self.indexer.index(collection, folders, on_progress, control)
        self.reports.append(report)
        return report

    def reembed(
        self,
        collection: str,
        folders: Sequence[Path] | None = None,
        on_progress: ProgressCallback | None = None,
        control: IndexControl | None = None,
    ) -> IndexReport:
        return self.indexer.reembed(collection, folders, on_progress, control)

    def remove(self, collection: str) -> None:
        self.indexer.remove(collection)


@pytest.fixture
def rig(tmp_path: Path, indexer: Indexer) -> Iterator[tuple[Recorder, dict[str, list[Path]], IndexScheduler]]:
    recorder = Recorder(indexer)
    folders: dict[str, list[Path]] = {}
    scheduler = IndexScheduler(lambda: recorder, folders.get, debounce_s=0.4)
    yield recorder, folders, scheduler
    scheduler.close()


def test_the_watcher_debounces_and_follows_every_kind_of_change(
    tmp_path: Path,
    store: LanceStore,
    indexer: Indexer,
    rig: tuple[Recorder, dict[str, list[Path]], IndexScheduler],
) -> None:
    recorder, folders, scheduler = rig
    folder = tmp_path / "w"
    write(folder / "a.md", "alpha")
    indexer.index("c", [folder])
    folders["c"] = [folder]
    watcher = FolderWatcher(scheduler.touch)
    watcher.watch(folders)
    try:
        for i in range(25):  # an editor's save storm
            (folder / "a.md").write_text(f"alpha version {i}")
            time.sleep(0.01)
        assert wait_for(lambda: len(recorder.reports) == 1)
        time.sleep(1.0)  # nothing else comes: our own reads of the files trigger nothing
        assert len(recorder.reports) == 1 and recorder.reports[0].indexed == 1
        assert [c.text for c in store.chunks("c")] == ["alpha version 24"]

        write(folder / "sub" / "b.md", "beta")
        write(folder / "sub" / "deep" / "c.txt", "gamma")
        assert wait_for(lambda: names(store) == {"a.md", "b.md", "c.txt"})
        (folder / "sub").rename(folder / "moved")  # a directory move
        assert wait_for(lambda: {Path(c.source).parent.name for c in store.chunks("c")} >= {"moved", "deep"})
        shutil.rmtree(folder / "moved" / "deep")
        (folder / "a.md").unlink()
        assert wait_for(lambda: names(store) == {"b.md"})
        assert wait_for(scheduler.idle)
    finally:
        watcher.close()


def test_changing_the_watched_folders_during_a_long_sync_returns_at_once_and_drops_no_edit(
    tmp_path: Path,
    store: LanceStore,
    indexer: Indexer,
    rig: tuple[Recorder, dict[str, list[Path]], IndexScheduler],
) -> None:
    recorder, folders, scheduler = rig
    docs, more, other = tmp_path / "docs", tmp_path / "more", tmp_path / "other"
    write(docs / "a.md", "alpha")
    write(more / "m.md", "more")
    write(other / "o.md", "other")
    folders.update({"c": [docs], "d": [other]})
    watcher = FolderWatcher(scheduler.touch)
    watcher.watch(folders)
    try:
        recorder.gate, recorder.held = threading.Event(), {"d"}  # a long upload: d's sync is held
        scheduler.submit("d", "upload")
        assert recorder.entered.wait(5)
        write(docs / "b.md", "beta")  # an edit, indexed beside d's sync: it does not wait for it
        assert wait_for(lambda: names(store) == {"a.md", "b.md"})
        assert scheduler.state().collection == "d" and scheduler.state().active
        write(docs / "c.md", "gamma")  # an edit still pending (debounced) when the watcher restarts
        assert wait_for(lambda: "c" in scheduler.state().waiting)

        folders["c"] = [docs, more]  # the user adds a folder: the watcher changes what it watches
        changed = threading.Event()
        threading.Thread(target=lambda: (watcher.watch(folders), changed.set()), daemon=True).start()
        assert changed.wait(120), "changing the watched folders waited for the sync"
        assert not recorder.gate.is_set()  # d's sync is still held: watch() returned without it
        restarted = FolderWatcher(scheduler.touch)  # even a watcher closed and built anew loses nothing
        watcher.close()
        watcher = restarted
        watcher.watch(folders)
        write(more / "n.md", "newer")  # seen by the new watcher

        recorder.gate.set()
        assert wait_for(lambda: names(store) == {"a.md", "b.md", "c.md", "m.md", "n.md"}), names(store)
        assert wait_for(scheduler.idle)
        assert names(store, "d") == {"o.md"}
    finally:
        watcher.close()


def slow_down(recorder: Recorder, *, report: bool) -> list[int]:
    """Make the recorder's indexer take 20 ms a file; the files done so far are appended to the list
    returned (and passed on to the scheduler's progress callback when ``report``)."""
    progress: list[int] = []
    original = recorder.indexer.index

    def slow(
        collection: str,
        fs: Sequence[Path],
        on_progress: ProgressCallback | None = None,
        control: IndexControl | None = None,
    ) -> IndexReport:
        def tracked(p):  # type: ignore[no-untyped-def]
            progress.append(p.files_done)
            time.sleep(0.02)
            if report and on_progress is not None:
                on_progress(p)

        return original(collection, fs, tracked, control)

    recorder.indexer.index = slow  # type: ignore[method-assign]
    return progress


def test_pause_resume_and_cancel_a_sync_under_way(
    tmp_path: Path,
    store: LanceStore,
    indexer: Indexer,
    rig: tuple[Recorder, dict[str, list[Path]], IndexScheduler],
) -> None:
    recorder, folders, scheduler = rig
    docs = tmp_path / "docs"
    for i in range(400):
        write(docs / f"f{i:03}.md", f"note number {i} " + "word " * 200)
    folders["c"] = [docs]
    original = recorder.indexer.index
    progress = slow_down(recorder, report=True)
    scheduler.submit("c", "upload")
    assert wait_for(lambda: progress and progress[-1] > 0)
    scheduler.pause()
    assert wait_for(lambda: scheduler.state().paused)
    time.sleep(0.5)
    held = len(progress)
    time.sleep(1.0)
    assert len(progress) == held, "indexing went on while paused"
    assert scheduler.state().active
    scheduler.resume()
    assert wait_for(lambda: len(progress) > held)
    scheduler.cancel()
    assert wait_for(scheduler.idle)
    assert not recorder.reports, "a cancelled sync does not finish"
    assert "cancelled" in scheduler.activity()[0].text
    kept = names(store)
    assert 0 < len(kept) < 400  # the files finished before the cancel stay

    recorder.indexer.index = original  # type: ignore[method-assign]
    scheduler.submit("c", "re-index")
    assert wait_for(lambda: len(recorder.reports) == 1, timeout=60)
    assert len(names(store)) == 400
    assert recorder.reports[0].unchanged >= len(kept)  # work already embedded is not repeated


def test_two_collections_index_side_by_side_and_a_third_waits(
    tmp_path: Path,
    store: LanceStore,
    rig: tuple[Recorder, dict[str, list[Path]], IndexScheduler],
) -> None:
    recorder, folders, scheduler = rig
    for name in ("c", "d", "e"):
        write(tmp_path / name / f"{name}.md", f"notes of {name}")
        folders[name] = [tmp_path / name]
    recorder.gate, recorder.held = threading.Event(), {"c", "d", "e"}
    before = set(threading.enumerate())
    for name in ("c", "d", "e"):
        scheduler.submit(name, "upload")
    assert wait_for(lambda: len([s for s in scheduler.states() if s.active]) == 2)
    time.sleep(0.3)
    states = scheduler.states()
    assert {s.collection for s in states} == {"c", "d"} and states[0].waiting == ("e",)  # two workers at most
    assert sum(t.name.startswith("kimas-indexing") for t in set(threading.enumerate()) - before) == 2
    recorder.gate.set()
    assert wait_for(scheduler.idle)
    assert {names(store, n).pop() for n in ("c", "d", "e")} == {"c.md", "d.md", "e.md"}


def test_a_sync_waits_while_an_answer_is_written(
    tmp_path: Path,
    store: LanceStore,
    rig: tuple[Recorder, dict[str, list[Path]], IndexScheduler],
) -> None:
    """Issue 28: the answer the user waits for gets the CPU; indexing resumes after it (and a pause the user
    set stays set)."""
    recorder, folders, scheduler = rig
    docs = tmp_path / "docs"
    for i in range(300):
        write(docs / f"f{i:03}.md", f"note number {i} " + "word " * 200)
    folders["c"] = [docs]
    progress = slow_down(recorder, report=False)
    scheduler.submit("c", "upload")
    assert wait_for(lambda: progress and progress[-1] > 0)
    with scheduler.answering():
        time.sleep(0.5)
        held = len(progress)
        write(tmp_path / "d" / "d.md", "notes of d")
        folders["d"] = [tmp_path / "d"]
        scheduler.submit("d", "upload")
        time.sleep(1.0)
        assert len(progress) == held, "indexing went on while an answer was written"
        assert not names(store, "d"), "a sync started while an answer was written"
        assert scheduler.state().active and not scheduler.paused
    assert wait_for(lambda: len(progress) > held)
    scheduler.pause()
    with scheduler.answering():
        pass
    assert scheduler.paused
    time.sleep(0.5)
    paused_at = len(progress)
    time.sleep(1.0)
    assert len(progress) == paused_at, "an answer's end undid the user's pause"
    scheduler.resume()
    assert wait_for(lambda: names(store, "d") == {"d.md"}, timeout=60)


def test_reading_the_watched_folders_reports_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 59: a sync's scan lists every folder; had the kernel reported those opens and closes, a scan
    of 5,000 folders overflowed its queue, and watchdog's recovery (which lists them all again) overflowed
    it again, for ever, at full CPU. Only changes are reported."""
    import os

    from indexer.sync import watch

    seen: list[str] = []
    monkeypatch.setattr(watch._Handler, "on_any_event", lambda self, event: seen.append(event.event_type))
    for i in range(20):
        write(tmp_path / "docs" / f"d{i}" / "note.md", "# Note\n\nText.\n")
    watcher = FolderWatcher(lambda collection: None)
    watcher.watch({"c": [tmp_path / "docs"]})
    try:
        time.sleep(0.3)
        for root, _, names in os.walk(tmp_path / "docs"):
            for name in names:
                (Path(root) / name).read_bytes()
        time.sleep(0.5)
        assert seen == []
        (tmp_path / "docs" / "d3" / "note.md").write_text("# Note\n\nChanged.\n")
        assert wait_for(lambda: "modified" in seen, timeout=30)  # a change is still reported
    finally:
        watcher.close()
