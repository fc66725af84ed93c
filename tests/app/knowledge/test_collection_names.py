"""Collection names are any text, with a stable id (issue 46): a name in Chinese, in Hindi or with spaces
is kept as typed; a rename changes the name only (nothing re-indexed: the same LanceDB tables answer);
a folder stops being watched without the collection going, its files' chunks leave the index and the
files stay on disk. The real ``LanceStore`` and ``Indexer`` (HashEmbedder) in a ``DesktopApp`` built
through the real ``Runtime``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.desktop import DesktopApp
from app.knowledge.collection_names import check_display_name, new_collection_id
from app.paths import Paths
from app.runtime import Builders, Runtime
from app.settings.config_store import ConfigStore
from indexer import Indexer, LanceStore
from kimas_desktop.config import load_config, parse_config
from kimas_desktop.errors import ConfigError
from local_models.fake import HashEmbedder, ScriptedChatModel, WordOverlapReranker
from tests.indexer.files import small_config
from tests.rigs import FakeFeed, scripted

ROOT = Path(__file__).resolve().parents[3]
CHINESE = "研究资料 2026"
HINDI = "हिंदी नोट्स"  # combining vowel signs and a virama


@pytest.mark.parametrize(
    ("typed", "kept", "cid"),
    [
        ("My docs", "My docs", "my-docs"),
        (f"  {CHINESE}  ", CHINESE, "collection-2026"),
        (HINDI, HINDI, "collection"),
        ("Café  notes", "Café notes", "cafe-notes"),
        ("handbook", "handbook", "handbook"),  # a plain id is its own id, as before
        ("Team_Notes-2", "Team_Notes-2", "Team_Notes-2"),
    ],
)
def test_any_text_names_a_collection_and_gets_a_safe_id(typed: str, kept: str, cid: str) -> None:
    assert check_display_name(typed) == kept
    assert new_collection_id(kept, []) == cid


def test_a_taken_id_gets_a_number() -> None:
    assert new_collection_id("My docs", ["my-docs", "MY-DOCS-2"]) == "my-docs-3"


@pytest.mark.parametrize(
    ("typed", "why"),
    [("   ", "Type a name"), ("a\x00b", "control"), ("inv\u202eoice", "control"), ("x" * 81, "at most 80")],
)
def test_names_that_cannot_be_kept_say_why(typed: str, why: str) -> None:
    with pytest.raises(ConfigError, match=why):
        check_display_name(typed)


def _app(data: Path) -> DesktopApp:
    embedder = HashEmbedder(dim=64)
    builders = Builders(
        chat=lambda c: ScriptedChatModel(scripted("An answer [1].")),
        embedder=lambda c, cache: embedder,
        reranker=lambda c, e, cache: WordOverlapReranker(),
        store=lambda c, d: LanceStore(str(d / "lancedb")),
        indexer=lambda st, e, c: Indexer(st, e, small_config()),
        watcher=FakeFeed,
    )
    data.mkdir(exist_ok=True)
    paths = Paths(data, data / "config.toml")
    cfg = load_config(paths.config_file) if paths.config_file.exists() else parse_config({"preset": "full"})
    return DesktopApp(Runtime(paths, cfg, builders), ConfigStore(paths.config_file, cfg))


def _idle(app: DesktopApp) -> None:
    """Until the scheduler has nothing waiting or running (its own state, polled)."""
    deadline = time.monotonic() + 120
    while not app.indexing.idle():
        assert time.monotonic() < deadline, app.indexing.state()
        time.sleep(0.02)


def _sources(app: DesktopApp, cid: str) -> set[str]:
    """The files whose chunks are in the collection's chunks table."""
    store = app.runtime.store(app.config)
    assert isinstance(store, LanceStore)
    return store.tables(cid).sources()


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "alpha", tmp_path / "beta"
    for folder, word in ((a, "PERIWINKLE"), (b, "TANGERINE")):
        folder.mkdir()
        (folder / "note.md").write_text(f"# {folder.name}\n\nThe {folder.name} code is {word}.\n", "utf-8")
        (folder / "more.txt").write_text(f"More about {folder.name}.\n", "utf-8")
    return a, b


@pytest.fixture
def app(tmp_path: Path) -> Iterator[DesktopApp]:
    desk = _app(tmp_path / "data")
    desk.start()
    yield desk
    desk.close()


def test_a_rename_keeps_the_id_and_the_index(app: DesktopApp, folders: tuple[Path, Path]) -> None:
    a, _ = folders
    assert app.add_folder("docs", str(a)).ok  # a collection as made before names were free text
    _idle(app)
    tables = sorted(p.name for p in (app.data_dir / "lancedb").iterdir())
    before = _sources(app, "docs")
    outcome = app.rename_collection("docs", CHINESE)
    assert outcome.ok and f"is now named '{CHINESE}'" in outcome.message, outcome.message
    assert app.knowledge.names() == ["docs"] and app.knowledge.title("docs") == CHINESE
    [status] = app.knowledge.collections()
    assert (status.name, status.shown, status.files) == ("docs", CHINESE, 2)
    assert _sources(app, "docs") == before  # nothing re-indexed, nothing lost
    assert sorted(p.name for p in (app.data_dir / "lancedb").iterdir()) == tables
    assert app.knowledge.find(CHINESE) == app.knowledge.find("DOCS") == "docs"
    saved = load_config(app.config_path)
    assert saved.collections["docs"].title == CHINESE and saved.collections["docs"].folders == [str(a)]
    assert app.rename_collection(CHINESE, "docs").ok  # back to its id: no separate title kept
    assert load_config(app.config_path).collections["docs"].title == ""


def test_names_are_unique_and_a_refused_one_says_why(app: DesktopApp) -> None:
    assert app.create_collection("My docs").ok
    assert app.knowledge.find("my docs") == "my-docs"
    again = app.create_collection("  my   DOCS ")
    assert not again.ok and "already a collection named 'my DOCS'" in again.message
    assert app.create_collection(CHINESE).ok
    taken = app.rename_collection(CHINESE, "MY DOCS")
    assert not taken.ok and "already a collection named" in taken.message
    assert app.knowledge.title("collection-2026") == CHINESE


def test_unwatching_one_folder_takes_its_files_out_of_the_index(
    app: DesktopApp, folders: tuple[Path, Path]
) -> None:
    a, b = folders
    assert app.create_collection(CHINESE).ok
    cid = app.knowledge.resolve(CHINESE)
    assert app.add_folder(cid, str(a)).ok and app.add_folder(cid, str(b)).ok
    _idle(app)
    assert {Path(s).parent for s in _sources(app, cid)} == {a, b}
    outcome = app.unwatch_folder(CHINESE, str(b))
    assert outcome.ok and f"No longer watching {b}" in outcome.message, outcome.message
    _idle(app)
    assert {Path(s).parent for s in _sources(app, cid)} == {a}
    [status] = app.knowledge.collections()
    assert status.folders == (str(a),) and status.files == 2 and status.shown == CHINESE
    assert (b / "note.md").exists() and (b / "more.txt").exists()  # the files stay on disk
    manifest = app.runtime.store(app.config).manifest(cid)  # type: ignore[attr-defined]
    assert {Path(p).parent for p in manifest} == {a}

    assert app.unwatch_folder(cid, str(a)).ok  # the last one: the collection stays, empty
    _idle(app)
    assert _sources(app, cid) == set()
    [status] = app.knowledge.collections()
    assert (status.name, status.folders, status.files, status.chunks) == (cid, (), 0, 0)


def test_unwatch_refuses_a_folder_it_does_not_watch(
    app: DesktopApp, folders: tuple[Path, Path], tmp_path: Path
) -> None:
    a, b = folders
    assert app.add_folder("docs", str(a)).ok
    outcome = app.unwatch_folder("docs", str(b))
    assert not outcome.ok and f"'{b}' is not a folder of 'docs'" in outcome.message
    upload = tmp_path / "upload.md"
    upload.write_text("dropped", "utf-8")
    assert app.add_uploads("docs", [(upload, "upload.md")]).ok
    uploads = app.data_dir / "uploads" / "docs"
    refused = app.unwatch_folder("docs", str(uploads))
    assert not refused.ok and "files dropped onto this collection" in refused.message
    assert app.knowledge.folders("docs") == [a, uploads]


def test_a_collection_named_in_any_text_takes_uploads_under_its_id(app: DesktopApp, tmp_path: Path) -> None:
    upload = tmp_path / "报告.md"
    upload.write_text("# 报告\n\n研究资料的内容。\n", "utf-8")
    outcome = app.add_uploads(CHINESE, [(upload, upload.name)])
    assert outcome.ok and f"copied into '{CHINESE}'" in outcome.message, outcome.message
    assert (app.data_dir / "uploads" / "collection-2026" / "报告.md").exists()
    _idle(app)
    assert app.knowledge.collections()[0].files == 1
    assert app.remove_collection(CHINESE).ok
    assert app.knowledge.names() == [] and not (app.data_dir / "uploads" / "collection-2026").exists()


HIDING = ["inv\u202eoice", "in\u200bvoice", "\u2066docs\u2069", "docs\u200e"]  # bidi, zero-width, isolates


def test_a_name_with_bidi_or_invisible_characters_is_refused_by_the_app_and_kimas_index(
    app: DesktopApp, folders: tuple[Path, Path], tmp_path: Path
) -> None:
    """Issue 70's attack on names that draw as another ("invoice" with U+202E): the app refuses to create
    or rename to one, and so does ``kimas index --collection`` (a real child process), keeping nothing."""
    for name in HIDING:
        made = app.create_collection(name)
        assert not made.ok and "control or invisible" in made.message, name
    assert app.create_collection("invoice").ok
    assert not app.rename_collection("invoice", HIDING[0]).ok
    assert app.knowledge.names() == ["invoice"]
    data = tmp_path / "cli-data"
    for name in HIDING[:2]:
        cmd = [sys.executable, "-m", "cli.main", "index", str(folders[0]), "--collection", name]
        done = subprocess.run(
            [*cmd, "--data-dir", str(data)], cwd=ROOT, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 2 and "control or invisible" in done.stderr, done.stderr
    assert LanceStore(str(data / "lancedb")).collections() == []
