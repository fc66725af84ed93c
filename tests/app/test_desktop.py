"""DesktopApp on deterministic fakes: uploads, collections, background indexing, models and settings.

Its chat is in test_session.py, upload names and copies in test_uploads.py."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from kimas_desktop.config import load_config
from kimas_desktop.errors import ModelError
from tests.rigs import ANSWER, indexed_rig, make_rig, write_docs

# -- collections and indexing ------------------------------------------------------------------------


def test_upload_creates_indexes_and_saves_the_collection(tmp_path: Path) -> None:
    rig = make_rig(tmp_path)
    s = rig.session
    s.start()
    tmp = write_docs(tmp_path / "browser-temp")
    out = s.add_uploads(
        "docs", [(tmp / "notes.md", "../../notes.md"), (tmp / "heliotrope.pdf", "heliotrope.pdf")]
    )
    assert out.ok, out.message
    rig.wait_idle()
    managed = rig.data_dir / "uploads" / "docs"
    assert sorted(p.name for p in managed.iterdir()) == ["heliotrope.pdf", "notes.md"]
    [status] = s.knowledge.collections()
    assert (status.name, status.chunks, status.indexed) == ("docs", 2, True)
    assert status.folders == (str(managed),)
    saved = load_config(s.config_path)
    assert saved.collections["docs"].folders == [str(managed)]
    assert "2 files indexed" in s.indexing.activity()[0].text
    assert not rig.watcher.closed and rig.watcher.folders == {"docs": [managed]}


def test_progress_is_readable_while_indexing_and_chat_still_answers(tmp_path: Path) -> None:
    rig = make_rig(tmp_path)
    s = rig.session
    s.start()
    assert s.add_uploads("docs", [(write_docs(tmp_path / "t") / "heliotrope.pdf", "heliotrope.pdf")]).ok
    rig.wait_idle()
    rig.indexer.gate = threading.Event()  # the next run waits on every file
    folder = write_docs(tmp_path / "more")
    assert s.add_folder("docs", str(folder)).ok
    deadline = time.monotonic() + 5
    while not s.indexing.state().active:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    state = s.indexing.state()
    assert state.collection == "docs" and state.files_total == 3 and state.current_file
    assert state.eta_s is not None
    conv = s.chat.new_conversation()
    turns = list(s.chat.ask(conv, "What is the launch code of Project Heliotrope?"))
    assert turns[-1].state == "done" and turns[-1].answer == ANSWER  # answered during indexing
    rig.indexer.gate.set()
    rig.wait_idle()
    assert not s.indexing.state().active and s.knowledge.collections()[0].chunks == 3


def test_a_change_on_disk_reaches_the_status_through_the_watcher(tmp_path: Path) -> None:
    rig = make_rig(tmp_path, config={"indexer": {"debounce_s": 0.05}})
    s = rig.session
    folder = write_docs(tmp_path / "watched")
    assert s.add_folder("docs", str(folder)).ok
    rig.wait_idle()
    seen = s.version
    (folder / "new.md").write_text("A new note.")
    rig.watcher.edit("docs")  # the watcher only says which collection changed; the scheduler syncs it
    deadline = time.monotonic() + 5
    while s.knowledge.collections()[0].chunks != 3:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    rig.wait_idle()
    assert s.version > seen
    assert s.indexing.activity()[0].text.startswith("Files changed on disk: 3 files indexed")


def test_create_and_remove_collection(tmp_path: Path) -> None:
    rig = make_rig(tmp_path)
    s = rig.session
    assert s.create_collection("handbook").ok
    assert not s.create_collection("handbook").ok
    bad = s.create_collection("  ")  # any text names a collection (issue 46), but not none
    assert not bad.ok and "Type a name for the collection" in bad.message
    assert s.add_uploads("handbook", [(write_docs(tmp_path / "t") / "notes.md", "notes.md")]).ok
    rig.wait_idle()
    assert s.remove_collection("handbook").ok
    assert rig.indexer.removed == ["handbook"]
    assert s.knowledge.collections() == [] and not (rig.data_dir / "uploads" / "handbook").exists()
    assert "handbook" not in load_config(s.config_path).collections
    assert not s.remove_collection("handbook").ok


def test_add_folder_rejects_what_is_not_a_folder(tmp_path: Path) -> None:
    s = make_rig(tmp_path).session
    assert "no folder" in s.add_folder("docs", str(tmp_path / "missing")).message
    assert "not a full path" in s.add_folder("docs", "relative/dir").message
    assert "own data directory" in s.add_folder("docs", str(tmp_path)).message


def test_collection_settings_are_validated_and_saved(tmp_path: Path) -> None:
    s = make_rig(tmp_path).session
    ok = s.save_collection_settings(
        "pets", description="Cats and dogs", examples=["How long do cats sleep?", " "],
        mixin_weight=0.5, scale=1.5, language="en", strategy="keyword",
    )  # fmt: skip
    assert ok.ok, ok.message
    saved = load_config(s.config_path).collections["pets"]
    assert (saved.description, saved.examples, saved.scale, saved.strategy) == (
        "Cats and dogs", ["How long do cats sleep?"], 1.5, "keyword",
    )  # fmt: skip
    bad = s.save_collection_settings(
        "pets", description="", examples=[], mixin_weight=2.0, scale=1.0, language="", strategy=""
    )
    assert not bad.ok and "mixin_weight" in bad.message
    assert not s.save_collection_settings(
        "pets", description="", examples=[], mixin_weight=0.3, scale=1.0, language="", strategy="nonsense"
    ).ok


# -- models and settings -----------------------------------------------------------------------------


def _wait_phase(s, phase: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + 5
    while s.model_state().phase != phase:
        assert time.monotonic() < deadline, s.model_state()
        time.sleep(0.01)


def test_models_load_in_the_background(tmp_path: Path) -> None:
    rig = make_rig(tmp_path, warm_gate_open=False)
    s = rig.session
    s.start()
    assert s.model_state().phase == "loading" and "Loading model" in s.model_state().message
    first = next(s.chat.ask(s.chat.new_conversation(), "Hi?"))
    assert first.status == "Loading the model…"
    rig.warm_gate.set()
    _wait_phase(s, "ready")


def test_settings_are_saved_and_a_bad_model_is_explained(tmp_path: Path) -> None:
    rig = make_rig(tmp_path)
    s = rig.session
    s.start()
    _wait_phase(s, "ready")
    form = s.settings.preset_form("turbo")
    assert not form.context_enabled and not form.agentic_enabled
    out = s.settings.save(form)
    assert out.ok and load_config(s.config_path).preset == "turbo"
    missing = s.settings.save(
        form.__class__(**{**form.__dict__, "chat_model_path": str(tmp_path / "no.gguf")})
    )
    assert not missing.ok and "There is no file at" in missing.message
    assert load_config(s.config_path).chat.path == ""
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"not really a model")
    rig.warm_gate.clear()
    rig.warm_error.append(ModelError("llama.cpp cannot read model.gguf as a GGUF model."))
    switched = s.settings.save(form.__class__(**{**form.__dict__, "chat_model_path": str(gguf)}))
    assert switched.ok and "Loading the model" in switched.message
    assert s.model_state().phase == "loading"
    rig.warm_gate.set()
    _wait_phase(s, "failed")
    # The failed model is not saved, and the one in use keeps answering (issue 14, settings drift).
    message = s.model_state().message
    assert message.startswith("Could not switch models:") and "cannot read model.gguf as a GGUF" in message
    assert message.endswith("the new model was not saved.")
    assert load_config(s.config_path).chat.path == ""


def test_indexing_can_be_paused_resumed_and_cancelled_from_the_page(tmp_path: Path) -> None:
    from ui.knowledge import handlers
    from ui.knowledge.collections_view import progress_html

    rig = make_rig(tmp_path)
    s = rig.session
    folder = write_docs(tmp_path / "docs")
    rig.indexer.gate = threading.Event()  # each file waits: the sync stays under way
    assert s.add_folder("docs", str(folder)).ok
    deadline = time.monotonic() + 5
    while not s.indexing.state().active:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert "paused" in handlers.pause_indexing(s)
    rig.indexer.gate.set()
    time.sleep(0.3)
    state = s.indexing.state()
    assert state.active and state.paused and "docs" not in rig.searcher.chunks  # held at its next step
    assert "Paused while indexing" in progress_html(state)
    handlers.resume_indexing(s)
    rig.wait_idle()
    assert len(rig.searcher.chunks["docs"]) == 2

    (folder / "third.md").write_text("A third note.")
    rig.indexer.gate = threading.Event()
    assert s.reindex("docs").ok
    while not s.indexing.state().active:
        time.sleep(0.01)
    assert "cancelled" in handlers.cancel_indexing(s)
    rig.indexer.gate.set()
    rig.wait_idle()
    assert len(rig.searcher.chunks["docs"]) == 2  # the cancelled sync did not finish
    assert s.indexing.activity()[0].text.startswith("Indexing cancelled")


def test_a_collection_that_needs_re_embedding_says_so_and_re_embeds_in_the_background(tmp_path: Path) -> None:
    from dataclasses import replace

    from ui.knowledge import handlers
    from ui.knowledge.collections_view import collections_markdown

    rig = indexed_rig(tmp_path)
    s = rig.session
    listed = rig.searcher.collections
    rig.searcher.collections = lambda: [replace(c, needs_reembedding=True) for c in listed()]  # type: ignore[method-assign]
    [status] = s.knowledge.collections()
    assert status.needs_reembedding and "Needs re-embedding" in collections_markdown([status])
    action = handlers.reembed(s, "docs")
    assert "Re-embedding 'docs'" in action.message
    rig.wait_idle()
    assert rig.indexer.reembedded == ["docs"]


def test_a_new_library_not_all_in_english_is_indexed_with_the_multilingual_model(tmp_path: Path) -> None:
    """Chosen when its first folder is added, loaded before it is indexed (issue 56); the next folder of the
    library changes nothing. Real Chinese and Hindi text (the rigs' embedder is the fake)."""
    from tests.app.models.multilingual_docs import write_english, write_mixed

    rig = make_rig(tmp_path)
    s = rig.session
    out = s.add_folder("papers", str(write_mixed(tmp_path / "papers")))
    assert out.ok and "multilingual embedding model (multilingual-e5-small)" in out.message, out.message
    assert load_config(s.config_path).embedding.name == "multilingual-e5-small"
    rig.wait_idle()
    assert "not all in English" not in s.add_folder("english", str(write_english(tmp_path / "en"))).message

    english = make_rig(tmp_path / "second")
    assert "multilingual" not in english.session.add_folder("en", str(write_english(tmp_path / "e2"))).message
    assert load_config(english.session.config_path).embedding.name == ""
