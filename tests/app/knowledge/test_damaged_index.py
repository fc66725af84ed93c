"""The app repairs a lost chunks table itself (issue 40, item 8): the chat says the index was damaged and
is being rebuilt (not LanceDB's error), the Knowledge tab's status says so, the rebuild runs in the
background, and Re-index rebuilds it too. The real ``LanceStore`` and ``Indexer`` (HashEmbedder) in a
``DesktopApp`` built through the real ``Runtime``; the chat model is scripted.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from app.chat.conversation import Turn
from app.desktop import DesktopApp
from app.paths import Paths
from app.runtime import Builders, Runtime
from app.settings.config_store import ConfigStore
from indexer import Indexer, LanceStore
from kimas_desktop.config import parse_config
from local_models.fake import HashEmbedder, ScriptedChatModel, WordOverlapReranker
from tests.indexer.files import small_config
from tests.rigs import FakeFeed, scripted

QUESTION = "What is the launch code of Project Heliotrope?"
ANSWER = "The launch code is PURPLE-OTTER-42 [1]."


def _app(tmp_path: Path) -> DesktopApp:
    embedder = HashEmbedder(dim=64)
    chat = ScriptedChatModel(scripted(ANSWER))
    builders = Builders(
        chat=lambda c: chat,
        embedder=lambda c, cache: embedder,
        reranker=lambda c, e, cache: WordOverlapReranker(),
        store=lambda c, d: LanceStore(str(d / "lancedb")),
        indexer=lambda st, e, c: Indexer(st, e, small_config()),
        watcher=FakeFeed,
    )
    data = tmp_path / "data"
    data.mkdir()
    cfg = parse_config({"preset": "full"})
    paths = Paths(data, data / "config.toml")
    return DesktopApp(Runtime(paths, cfg, builders), ConfigStore(paths.config_file, cfg))


def _idle(app: DesktopApp) -> None:
    deadline = time.monotonic() + 30
    while not app.indexing.idle():
        assert time.monotonic() < deadline, app.indexing.state()
        time.sleep(0.02)


def _ask(app: DesktopApp) -> Turn:
    conv = app.chat.new_conversation()
    return list(app.chat.ask(conv, QUESTION))[-1]


def _indexed(tmp_path: Path) -> tuple[DesktopApp, Path]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "launch.md").write_text("# Launch\n\nThe launch code of Project Heliotrope is PURPLE-OTTER-42.\n")
    (docs / "plants.md").write_text("# Plants\n\nThe office plants are watered on Mondays by Dana.\n")
    app = _app(tmp_path)
    app.start()
    assert app.add_folder("docs", str(docs)).ok
    _idle(app)
    turn = _ask(app)
    assert turn.state == "done" and "PURPLE-OTTER-42" in turn.answer, turn.error
    (chunks,) = (app.data_dir / "lancedb").glob("c_docs_*_chunks.lance")
    return app, chunks


def test_the_chat_says_a_lost_table_is_being_rebuilt_and_the_app_rebuilds_it(tmp_path: Path) -> None:
    app, chunks = _indexed(tmp_path)
    try:
        shutil.rmtree(chunks)
        turn = _ask(app)
        assert turn.state == "failed"
        assert turn.error.startswith(
            "The index of collection 'docs' was damaged (its chunks table is missing)"
        )
        assert "being rebuilt" in turn.error and "ask again in a moment" in turn.error
        assert "Lance" not in turn.error and "Something went wrong" not in turn.error
        _idle(app)
        texts = [a.text for a in app.indexing.activity()]
        assert texts[0].startswith("Damaged index rebuilt: 2 files indexed"), texts
        [status] = app.knowledge.collections()
        assert (status.damaged, status.chunks, status.problems) == ("", 2, ())
        turn = _ask(app)
        assert turn.state == "done" and "PURPLE-OTTER-42" in turn.answer, turn.error
    finally:
        app.close()


def test_the_knowledge_tab_shows_the_damage_and_re_index_rebuilds_it(tmp_path: Path) -> None:
    app, chunks = _indexed(tmp_path)
    try:
        app.indexing.pause()  # holds the rebuild the status asks for, to read the status meanwhile
        shutil.rmtree(chunks)
        # The store's open table sees it once its read consistency interval (1 s) has passed.
        deadline = time.monotonic() + 10
        while not (status := app.knowledge.collections()[0]).damaged:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert "chunks table is missing" in status.damaged and status.problems == ()
        assert app.indexing.activity()[0].text.startswith("Its index is damaged")
        app.knowledge.collections()  # seen again: one rebuild asked for, not two
        assert [a.text for a in app.indexing.activity()].count(app.indexing.activity()[0].text) == 1
        app.indexing.cancel()  # the user cancels it, then presses Re-index
        app.indexing.resume()
        assert app.reindex("docs").ok
        _idle(app)
        [status] = app.knowledge.collections()
        assert (status.damaged, status.chunks) == ("", 2)
        assert app.indexing.activity()[0].text.startswith("2 files indexed"), app.indexing.activity()
        turn = _ask(app)
        assert turn.state == "done" and "PURPLE-OTTER-42" in turn.answer, turn.error
    finally:
        app.close()
