"""DesktopSession on deterministic fakes: uploads, collections, background indexing, chat, settings."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import pytest

from app.sources import source_token
from app.uploads import check_collection_name, copy_uploads, safe_file_name
from kimas_desktop.answer.summarizer import NO_KNOWLEDGE
from kimas_desktop.config import load_config
from kimas_desktop.errors import ConfigError, ModelError
from tests.rigs import ANSWER, SlowChat, make_rig, write_docs

# -- upload names ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sent", "expected"),
    [
        ("report.pdf", "report.pdf"),
        ("../../x", "x"),
        ("../../../etc/passwd", "passwd"),
        ("/etc/passwd", "passwd"),
        ("C:\\Users\\me\\notes.md", "notes.md"),
        ("..", "file"),
        ("", "file"),
        ("  .hidden.md  ", "hidden.md"),
        ("CON", "_CON"),
        ("con.txt", "_con.txt"),
        ("LPT1.tar.gz", "_LPT1.tar.gz"),
        ("a<b>c:d|e?f*.md", "a_b_c_d_e_f_.md"),
        ("tab\there\x00.md", "tabhere.md"),
        ("invoice\u202egnp.exe", "invoicegnp.exe"),  # right-to-left override would disguise .exe
        ("zero\u200bwidth.md", "zerowidth.md"),
        ("Cafe\u0301 ☕ résumé.md", "Café ☕ résumé.md"),  # NFC, emoji kept
        ("wide\u3000space.md", "wide space.md"),
    ],
)
def test_safe_file_name(sent: str, expected: str) -> None:
    assert safe_file_name(sent) == expected


def test_safe_file_name_cuts_long_names_and_keeps_the_extension() -> None:
    name = safe_file_name("é" * 300 + ".pdf")
    assert name.endswith(".pdf") and len(name.encode("utf-8")) <= 180
    assert name[:-4] == "é" * len(name[:-4])  # cut on a character boundary


@pytest.mark.parametrize("bad", ["", "../x", "a b", "a/b", ".hidden", "x" * 65, "naïve"])
def test_collection_names_are_checked(bad: str) -> None:
    with pytest.raises(ConfigError, match="cannot name a collection"):
        check_collection_name(bad)


def test_copy_uploads_never_writes_outside_and_keeps_both_on_collision(tmp_path: Path) -> None:
    src = tmp_path / "incoming"
    src.mkdir()
    a, b = src / "one", src / "two"
    a.write_text("first")
    b.write_text("second")
    target = tmp_path / "data" / "uploads" / "docs"
    copied = copy_uploads(
        target, [(a, "../../x"), (b, "/abs/x"), (a, "..\\..\\x"), (b, "C:\\x"), (a, "NUL.md")]
    )
    assert [c.path.name for c in copied] == ["x", "x (2)", "x", "x (2)", "_NUL.md"]
    assert [c.status for c in copied] == ["added", "renamed", "unchanged", "unchanged", "added"]
    everything = {p for p in tmp_path.rglob("*") if p.is_file()}
    assert everything == {a, b, target / "x", target / "x (2)", target / "_NUL.md"}
    assert (target / "x").read_text() == "first" and (target / "x (2)").read_text() == "second"


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
    bad = s.create_collection("../oops")
    assert not bad.ok and "cannot name a collection" in bad.message
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


# -- chat --------------------------------------------------------------------------------------------


def _indexed(tmp_path: Path, **kw: object):  # type: ignore[no-untyped-def]
    rig = make_rig(tmp_path, **kw)  # type: ignore[arg-type]
    assert rig.session.add_uploads(
        "docs", [(write_docs(tmp_path / "t") / "heliotrope.pdf", "heliotrope.pdf")]
    ).ok
    rig.wait_idle()
    return rig


def test_no_knowledge_yet_says_how_to_add_some(tmp_path: Path) -> None:
    s = make_rig(tmp_path).session
    assert not s.knowledge.has_knowledge()
    turn = list(s.chat.ask(s.chat.new_conversation(), "Anything?"))[-1]
    assert turn.answer == NO_KNOWLEDGE and not turn.answered_from_sources


def test_ask_streams_cites_and_feeds_the_history(tmp_path: Path) -> None:
    rig = _indexed(tmp_path)
    s = rig.session
    conv = s.chat.new_conversation()
    answers = [t.answer for t in s.chat.ask(conv, "What is the launch code of Project Heliotrope?")]
    assert answers[0] == "" and answers[-1] == ANSWER
    partial = [a for a in answers if a and a != ANSWER]
    assert len(set(partial)) >= 3 and all(ANSWER.startswith(a) for a in partial)  # streamed word by word
    turn = conv.turns[-1]
    assert turn.citations[0].chunk.source.endswith("heliotrope.pdf") and turn.trace is not None
    token = source_token(turn.citations[0].chunk.source)
    assert s.sources.file(token) == Path(turn.citations[0].chunk.source).resolve()
    assert s.sources.file(source_token("/etc/passwd")) is None
    list(s.chat.ask(conv, "Which project has that launch code?"))
    last_prompt = next(m for m, schema in reversed(rig.chat.calls) if schema is None)[-1].content
    assert "Question: Which project has that launch code?" in last_prompt
    # The earlier question reaches the answer prompt as a plain list; earlier answers do not (a small model
    # copies them, or goes on writing "user:/assistant:" lines).
    assert "Earlier questions in this chat" in last_prompt
    assert "- What is the launch code of Project Heliotrope?" in last_prompt
    assert ANSWER not in last_prompt


def test_a_declined_answer_stays_out_of_the_history_and_regenerate_lets_the_model_try(tmp_path: Path) -> None:
    rig = _indexed(tmp_path)
    s = rig.session
    conv = s.chat.new_conversation()
    asked = len([c for c in rig.chat.calls if c[1] is None])
    turn = list(s.chat.ask(conv, "Which team painted the office kitchen in spring?"))[-1]
    assert turn.answer.startswith("Your documents don't say") and not turn.answered_from_sources
    assert turn.quotes and turn.answerability is not None and not turn.answerability.answerable
    assert len([c for c in rig.chat.calls if c[1] is None]) == asked  # the model was not asked
    assert [m.role for m in conv.history()] == ["user"]  # the decline does not feed later rewrites
    again = list(s.chat.regenerate(conv))[-1]
    assert again.answer == ANSWER  # this time the model answered
    assert len([c for c in rig.chat.calls if c[1] is None]) == asked + 1


def test_stop_keeps_the_partial_answer_and_releases_the_model(tmp_path: Path) -> None:
    chat = SlowChat(" ".join(f"word{i}" for i in range(200)), delay_s=0.02)
    rig = _indexed(tmp_path, chat=chat)
    s = rig.session
    conv = s.chat.new_conversation()
    stream = s.chat.ask(conv, "What is the launch code?")
    turn = next(stream)
    for turn in stream:
        if len(turn.answer.split()) >= 3:
            s.chat.stop(conv)
    assert turn.state == "stopped" and 3 <= len(turn.answer.split()) < 200
    assert chat.closed.wait(5), "the model's stream was not closed"
    assert conv.history()[-1].content == turn.answer.strip()


def test_regenerate_and_new_chat(tmp_path: Path) -> None:
    rig = _indexed(tmp_path)
    s = rig.session
    conv = s.chat.new_conversation()
    list(s.chat.ask(conv, "What is the launch code?"))
    list(s.chat.regenerate(conv))
    assert [t.question for t in conv.turns] == ["What is the launch code?"]
    assert conv.turns[0].state == "done"
    assert list(s.chat.regenerate(s.chat.new_conversation())) == []  # nothing to regenerate


def test_errors_are_sentences_and_tracebacks_go_to_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(config: object) -> object:
        raise RuntimeError("disk on fire")

    rig = _indexed(tmp_path, chat_builder=broken)
    s = rig.session
    with caplog.at_level(logging.INFO):
        turn = list(s.chat.ask(s.chat.new_conversation(), "Hello?"))[-1]
    assert turn.state == "failed"
    assert "disk on fire" in turn.error and str(s.log_file) in turn.error and "Traceback" not in turn.error
    assert any(r.exc_info and "answering" in r.getMessage() for r in caplog.records)

    def model_error(config: object) -> object:
        raise ModelError("The chat model could not be loaded: the file is not a GGUF model.")

    rig2 = _indexed(tmp_path / "two", chat_builder=model_error)
    turn = list(rig2.session.chat.ask(rig2.session.chat.new_conversation(), "Hello?"))[-1]
    assert turn.error == "The chat model could not be loaded: the file is not a GGUF model."


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
    form = s.preset_settings("turbo")
    assert not form.context_enabled and not form.agentic_enabled
    out = s.save_settings(form)
    assert out.ok and load_config(s.config_path).preset == "turbo"
    missing = s.save_settings(
        form.__class__(**{**form.__dict__, "chat_model_path": str(tmp_path / "no.gguf")})
    )
    assert not missing.ok and "There is no file at" in missing.message
    assert load_config(s.config_path).chat.path == ""
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"not really a model")
    rig.warm_gate.clear()
    rig.warm_error.append(ModelError("llama.cpp cannot read model.gguf as a GGUF model."))
    switched = s.save_settings(form.__class__(**{**form.__dict__, "chat_model_path": str(gguf)}))
    assert switched.ok and "Loading the model" in switched.message
    assert s.model_state().phase == "loading"
    rig.warm_gate.set()
    _wait_phase(s, "failed")
    # The failed model is not saved, and the one in use keeps answering (issue 14, settings drift).
    message = s.model_state().message
    assert message.startswith("Could not switch models:") and "cannot read model.gguf as a GGUF" in message
    assert message.endswith("the new model was not saved.")
    assert load_config(s.config_path).chat.path == ""


def test_the_quotes_source_opens_while_the_answer_is_still_streaming(tmp_path: Path) -> None:
    chat = SlowChat(" ".join(f"word{i}" for i in range(40)), delay_s=0.02)
    s = _indexed(tmp_path, chat=chat).session
    conv = s.chat.new_conversation()
    for turn in s.chat.ask(conv, "What is the launch code of Project Heliotrope?"):
        if turn.quotes and not turn.citations:
            source = turn.quotes[0].chunk.source
            assert s.sources.file(source_token(source)) == Path(source).resolve()
            s.chat.stop(conv)
            break
    else:
        pytest.fail("no quote arrived before the citations")


def test_indexing_can_be_paused_resumed_and_cancelled_from_the_page(tmp_path: Path) -> None:
    from ui import handlers, render

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
    assert "Paused while indexing" in render.progress_html(state)
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

    from ui import handlers, render

    rig = _indexed(tmp_path)
    s = rig.session
    listed = rig.searcher.collections
    rig.searcher.collections = lambda: [replace(c, needs_reembedding=True) for c in listed()]  # type: ignore[method-assign]
    [status] = s.knowledge.collections()
    assert status.needs_reembedding and "Needs re-embedding" in render.collections_markdown([status])
    action = handlers.reembed(s, "docs")
    assert "Re-embedding 'docs'" in action.message
    rig.wait_idle()
    assert rig.indexer.reembedded == ["docs"]
