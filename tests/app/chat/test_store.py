"""The conversation store on a real SQLite file: round trip of whole answers (trace included), several
processes appending at once, a corrupt file, format migrations, and a restart that reopens the chat."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from app.chat.conversation import Conversation, Turn
from app.chat.history import ChatHistory
from app.chat.record_codec import dumps
from app.chat.salvage import Salvage, salvage
from app.chat.store import FILE_NAME, MIGRATIONS, ConversationStore, StoreVersionError
from kimas_desktop.types import Chunk, Citation
from tests.rigs import ANSWER, make_rig, write_docs

ROOT = Path(__file__).resolve().parents[3]


def _answered(tmp_path: Path) -> Conversation:
    """A conversation answered by the real pipeline (on the deterministic fakes): two turns with quotes,
    citations, support marks and traces."""
    rig = make_rig(tmp_path)
    s = rig.session
    s.start()
    assert s.add_uploads("docs", [(write_docs(tmp_path / "t") / "heliotrope.pdf", "heliotrope.pdf")]).ok
    rig.wait_idle()
    conv = s.chat.new_conversation()
    for q in ("What is the launch code of Project Heliotrope?", "And who knows it?"):
        assert list(s.chat.ask(conv, q))[-1].state == "done"
    s.close()
    return conv


def test_a_whole_answer_round_trips_trace_included(tmp_path: Path) -> None:
    conv = _answered(tmp_path / "rig")
    first = conv.turns[0]
    assert first.answer == ANSWER and first.citations and first.quotes and first.support
    assert first.trace is not None and first.trace.evidence and first.trace.stages
    assert first.answerability is not None
    store = ConversationStore(tmp_path / FILE_NAME)
    store.save(conv)
    back = ConversationStore(tmp_path / FILE_NAME).load(conv.id)  # a new store: as after a restart
    assert back is not None and back.id == conv.id and back.created_at == conv.created_at
    assert back.turns == conv.turns  # every field: citations, quotes, support, answerability, trace
    assert back.turns[0].trace is not None
    assert back.turns[0].trace.timings_ms == first.trace.timings_ms
    assert isinstance(back.turns[0].citations, tuple) and back.turns[0].citations[0].chunk.page == 1
    assert back.history() == conv.history()
    # An answer names the file it came from, so a follow-up to it is searched there too.
    answer = conv.history()[1]
    assert answer.role == "assistant" and answer.sources == (first.quotes[0].chunk.source,)
    assert answer.sources[0].endswith("heliotrope.pdf")


def test_list_search_rename_delete(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / FILE_NAME)
    store.save(Conversation())  # an empty chat is not kept
    assert store.list() == []
    old = Conversation(turns=[Turn("Where are the plants watered?", "In the office, on Mondays.")])
    store.save(old)
    time.sleep(0.01)
    new = Conversation(turns=[Turn("What is the launch code?", "PURPLE-OTTER-42.", state="done")])
    store.save(new)
    listed = store.list()
    assert [c.id for c in listed] == [new.id, old.id]  # newest first
    assert listed[0].title == "What is the launch code?" and listed[0].turns == 1
    assert [c.id for c in store.list("mondays")] == [old.id]  # answers are searched
    assert [c.id for c in store.list("LAUNCH")] == [new.id]  # questions, case-insensitive
    assert store.list("100%") == [] and store.list("_") == []  # LIKE wildcards are literal
    assert store.rename(old.id, "  Plants  ")
    assert [c.title for c in store.list("plants")] == ["Plants"]  # renamed titles are searched
    assert store.load(old.id).title == "Plants"  # type: ignore[union-attr]
    assert store.delete(new.id) and not store.delete(new.id)
    assert store.load(new.id) is None and [c.id for c in store.list()] == [old.id]
    with sqlite3.connect(tmp_path / FILE_NAME) as db:  # its turns went with it
        assert (
            db.execute("SELECT count(*) FROM turns WHERE conversation_id = ?", (new.id,)).fetchone()[0] == 0
        )


def test_a_regenerated_answer_replaces_the_stored_turns(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / FILE_NAME)
    conv = Conversation(turns=[Turn("a", "1"), Turn("b", "2"), Turn("c", "3")])
    store.save(conv)
    conv.turns[1:] = [Turn("b", "2 again")]
    store.save(conv)
    back = store.load(conv.id)
    assert back is not None and [(t.question, t.answer) for t in back.turns] == [("a", "1"), ("b", "2 again")]


APPENDER = """
import sys
from pathlib import Path
from app.chat.salvage import Salvage, salvage
from app.chat.store import ConversationStore
from app.chat.conversation import Conversation, Turn
store = ConversationStore(Path(sys.argv[1]))
conv = Conversation(id=sys.argv[2])
for i in range(int(sys.argv[3])):
    conv.turns.append(Turn(f"question {i} of {conv.id}", f"answer {i}", state="done"))
    store.save(conv)
    store.remember_open(conv.id)
"""


def test_concurrent_appends_from_several_processes_all_land(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME  # created by the racing processes themselves
    ids = [f"proc{i}" for i in range(4)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", APPENDER, str(path), cid, "25"], cwd=ROOT, stderr=subprocess.PIPE
        )
        for cid in ids
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    store = ConversationStore(path)
    assert sorted(c.id for c in store.list()) == ids
    for cid in ids:
        conv = store.load(cid)
        assert conv is not None
        assert [t.question for t in conv.turns] == [f"question {i} of {cid}" for i in range(25)]
    assert store.last_open() in ids


def test_a_corrupt_file_is_set_aside_and_a_fresh_store_starts(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    garbage = b"this is not SQLite \x00\x01\x02" * 200
    path.write_bytes(garbage)
    history = ChatHistory(tmp_path)
    assert "could not be read" in history.problem and "moved to" in history.problem
    [backup] = tmp_path.glob(FILE_NAME + ".corrupt-*")
    assert backup.read_bytes() == garbage and str(backup) in history.problem  # nothing thrown away
    conv = history.new()
    conv.turns.append(Turn("Still works?", "Yes.", state="done"))
    history.save(conv)
    assert [c.id for c in ConversationStore(path).list()] == [conv.id]


def test_a_file_of_foreign_tables_is_not_taken_for_ours(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        db.execute("CREATE TABLE other (x)")
    store = ConversationStore(tmp_path / FILE_NAME)
    assert "moved to" in store.problem and store.list() == []


def test_a_version_1_file_is_migrated_and_older_turn_records_still_read(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    old_turn = json.loads(dumps(Turn("Old question?", "Old answer.", state="done")))
    del old_turn["support"]  # written before the field existed: it takes its default
    old_turn["sentiment"] = 0.5  # a field this version no longer has: ignored
    with sqlite3.connect(path) as db:
        MIGRATIONS[0](db)
        db.execute("PRAGMA user_version = 1")
        db.execute("INSERT INTO conversations VALUES ('c1', '', 1.0, 2.0)")
        db.execute(
            "INSERT INTO turns VALUES ('c1', 0, 'Old question?', 'Old answer.', ?)", (json.dumps(old_turn),)
        )
        db.execute(
            "INSERT INTO turns VALUES ('c1', 1, 'Broken?', 'Its text survives.', ?)",
            (json.dumps({"@": "kimas_desktop.gone.Turn", "question": "Broken?"}),),
        )
    store = ConversationStore(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) == 3
        indexes = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "conversations_updated" in indexes
    conv = store.load("c1")
    assert conv is not None and conv.display_title == "Old question?"
    assert conv.mode == "documents"  # chats from before the model-alone mode answer from the documents
    assert conv.turns[0].answer == "Old answer." and conv.turns[0].support == ()
    assert (conv.turns[1].question, conv.turns[1].answer) == ("Broken?", "Its text survives.")
    assert "could not be read back" in conv.turns[1].citations_note


def test_a_file_from_a_newer_version_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE future (x)")
        db.execute("PRAGMA user_version = 99")
    before = path.read_bytes()
    with pytest.raises(StoreVersionError, match="newer version of KIMAs"):
        ConversationStore(path)
    history = ChatHistory(tmp_path)  # the app still runs, unsaved, and says why
    assert "newer version" in history.problem and "not saved" in history.problem
    conv = history.new()
    conv.turns.append(Turn("q", "a"))
    history.save(conv)
    assert path.read_bytes() == before


def test_an_answer_cut_off_by_a_crash_reads_as_stopped(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / FILE_NAME)
    chunk = Chunk("c", "docs", "/x/a.md", "Some text.", line_start=1, line_end=3)
    conv = Conversation(
        turns=[Turn("q", "half an ans", status="Writing…", citations=(Citation(1, chunk, "Some"),))]
    )
    store.save(conv)
    back = store.load(conv.id)
    assert back is not None and back.turns[0].state == "stopped" and back.turns[0].status == ""
    assert back.turns[0].citations[0].chunk.lines == (1, 3)


def test_the_open_conversation_comes_back_after_a_restart(tmp_path: Path) -> None:
    rig = make_rig(tmp_path / "one")
    s = rig.session
    s.start()
    assert s.add_uploads("docs", [(write_docs(tmp_path / "t") / "heliotrope.pdf", "heliotrope.pdf")]).ok
    rig.wait_idle()
    older = s.history.current()
    s.history.show("tab", older.id)  # as the page does
    list(s.chat.ask(older, "What is the launch code of Project Heliotrope?"))
    newer = s.history.new()  # "New chat": the old one stays
    s.history.show("tab", newer.id)
    assert s.history.current().id != older.id  # the new chat is open (a new one, until it is asked in)
    list(s.chat.ask(newer, "Who waters the plants?"))
    list(s.chat.ask(older, "And the code again?"))  # an answer saved in a chat not shown does not open it
    s.close()
    again = make_rig(tmp_path / "one")  # a new app on the same data dir
    restored = again.session.history.current()
    assert restored.id == newer.id and restored.turns[0].question == "Who waters the plants?"
    assert [c.id for c in again.session.history.summaries()] == [older.id, newer.id]
    assert again.session.history.open(older.id).turns[0].answer == ANSWER
    assert ChatHistory(rig.data_dir).current().id == older.id  # opening it made it the open one


def _damage_the_page_holding(path: Path, marker: bytes, garbage: bytes = b"\xff\xfe", keep: int = 0) -> None:
    """Overwrite the page that holds ``marker`` (the middle of one long answer: an overflow page of that one
    turn), past its first ``keep`` bytes, with ``garbage`` (by default bytes that are neither a page pointer
    nor UTF-8), as a bad disk sector would, keeping the file a valid SQLite header. Chosen by content, not by
    number: which page holds what varies from run to run."""
    with closing(sqlite3.connect(path)) as db:
        db.execute("VACUUM")  # drops the stale copies that earlier saves left on free pages
    data = bytearray(path.read_bytes())
    page = 4096
    assert data[:16] == b"SQLite format 3\x00" and data.count(marker) == 2  # answer column and JSON
    start = data.index(marker) // page * page
    assert start > 0
    data[start + keep : start + page] = (garbage * page)[: page - keep]
    path.write_bytes(bytes(data))


def test_garbage_that_reads_as_text_does_not_pass_for_the_chat(tmp_path: Path) -> None:
    """A bad sector inside an answer whose bytes happen to decode (0xDE 0xAD is a valid UTF-8 letter) and
    whose page pointer survived: SQLite reads the row without complaint, yet salvage does not copy the chat
    as if whole, because its answer no longer matches the turn's own record."""
    path = tmp_path / FILE_NAME
    store = ConversationStore(path)
    convs = [Conversation(turns=[Turn(f"Question {i}?", _long_answer(i, 0), state="done")]) for i in range(3)]
    for conv in convs:
        store.save(conv)
    _damage_the_page_holding(path, b"middle of answer 1.0", garbage=b"\xde\xad", keep=4)
    fresh = ConversationStore(tmp_path / "fresh.sqlite3")
    fresh.list()  # creates and migrates it
    with closing(sqlite3.connect(tmp_path / "fresh.sqlite3")) as into:
        assert salvage(path, into) == Salvage(recovered=2, lost=1, complete=True)
        into.commit()
    assert {c.id for c in ConversationStore(tmp_path / "fresh.sqlite3").list()} == {convs[0].id, convs[2].id}


def _long_answer(i: int, j: int) -> str:
    return "y" * 6000 + f"middle of answer {i}.{j}" + "y" * 6000


def test_garbage_inside_the_file_is_said_at_start_and_the_readable_chats_are_kept(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    store = ConversationStore(path)
    convs = [
        Conversation(
            id=f"{i:032x}",
            turns=[
                Turn(f"Question {i}.{j}? " + "x" * 3000, _long_answer(i, j), state="done") for j in range(3)
            ],
        )
        for i in range(6)
    ]
    for conv in convs:
        store.save(conv)
    _damage_the_page_holding(path, b"middle of answer 3.1")
    damaged = path.read_bytes()
    history = ChatHistory(tmp_path)  # the app starts
    note = history.problem
    assert "could not be read in full" in note and "moved to" in note  # said at start, in the sidebar note
    [backup] = tmp_path.glob(FILE_NAME + ".corrupt-*")
    assert backup.read_bytes() == damaged and str(backup) in note  # the damaged file is kept as it was
    kept = {c.id for c in history.summaries()}
    assert kept == {c.id for c in convs} - {
        convs[3].id
    }  # only the chat whose answer sat on that page is lost
    assert "1 could not be read in full and is only in the damaged file" in note
    for conv in convs:
        if conv.id in kept:  # each chat that is kept opens whole
            assert [t.question for t in history.open(conv.id).turns] == [t.question for t in conv.turns]
    assert "could not be saved" not in history.problem
    new = history.new()
    new.turns.append(Turn("Still works?", "Yes.", state="done"))
    history.save(new)
    assert new.id in {c.id for c in ConversationStore(path).list()} and history.problem == note
