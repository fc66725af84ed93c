"""The chat history stores bounded records (issue 70: each oversized question was kept whole, with a trace
about five times its size: 199 MB after about 60 questions). A question over the ``[limits]`` asked in the
Chat tab fails at once, without the model, and its turn keeps only its first 200 characters; a trace is
kept with its own texts capped, so a turn at the question limit stays a few KB on disk. Real SQLite file."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from app.chat.conversation import Conversation, Turn
from app.chat.store import FILE_NAME, ConversationStore
from kimas_desktop.trace import HopStage, RewriteStage, Trace
from kimas_desktop.types import Chunk, Hit
from tests.rigs import indexed_rig

TRACE_TEXT_CHARS = 400  # what a stored trace keeps of each of its own texts (docs/security.md)


def stored_sizes(db: Path) -> list[tuple[int, int]]:
    """(question, record) lengths of every stored turn."""
    with closing(sqlite3.connect(db)) as c:
        return [(q, d) for q, d in c.execute("SELECT length(question), length(data) FROM turns")]


def test_a_question_over_the_limit_fails_at_once_and_only_its_start_is_kept(tmp_path: Path) -> None:
    rig = indexed_rig(tmp_path)
    asked = len(rig.chat.calls)
    conv = rig.session.chat.new_conversation()
    question = "How long are the backups kept and who checks them? " * 200  # 10,200 characters
    turns = list(rig.session.chat.ask(conv, question))
    turn = turns[-1]
    assert turn.state == "failed" and len(turns) == 1
    assert turn.error == (
        "The question has 10,199 characters; the limit is 4,000 ([limits] question_chars in config.toml)."
    )
    assert len(turn.question) == 200 and question.startswith(turn.question.removesuffix("…"))
    assert len(rig.chat.calls) == asked  # the model was not asked anything
    [(kept_question, record)] = stored_sizes(rig.data_dir / FILE_NAME)
    assert kept_question == 200 and record < 2_000
    assert (
        list(rig.session.chat.ask(conv, "What is the launch code?"))[-1].state == "done"
    )  # the chat goes on


def test_a_stored_trace_is_capped_and_its_evidence_kept_whole(tmp_path: Path) -> None:
    question = "备份保留多少天？" * 500  # 4,000 characters: at the question limit
    folder = "/home/me/" + "deep/" * 100  # a path longer than the cap: kept whole, its link must work
    chunk = Chunk(
        "c1", "docs", folder + "audit.md", "Backups are kept for 90 days.", line_start=3, line_end=3
    )
    trace = Trace(
        question=question,
        query=question,
        agent_queries={"docs": (question, question)},
        evidence=(Hit(chunk, 0.9),),
        stages=(RewriteStage(1.0, "none", question), HopStage(2.0, 1, query=question)),
    )
    turn = Turn(question, "Backups are kept for 90 days [1].", state="done", trace=trace)
    conv = Conversation(turns=[turn])
    store = ConversationStore(tmp_path / FILE_NAME)
    store.save(conv)
    [(kept_question, record)] = stored_sizes(tmp_path / FILE_NAME)
    assert kept_question == 4_000  # the question itself is kept whole
    assert record < 4_000 + 6 * TRACE_TEXT_CHARS + 2_500  # not six copies of the question
    back = store.load(conv.id)
    assert back is not None and back.turns[0].question == question
    kept = back.turns[0].trace
    assert kept is not None and kept.evidence[0].chunk == chunk  # its file path and text whole
    assert kept.question == question[: TRACE_TEXT_CHARS - 1] + "…" and kept.query == kept.question
    assert kept.agent_queries == {"docs": (kept.question, kept.question)}
    rewrite = kept.find(RewriteStage)
    assert rewrite is not None and rewrite.query == kept.question
    hindi = "बैकअप कितने दिन रखे जाते हैं"  # a short trace is kept as it is, in any script
    short = Turn(hindi, "९० दिन", state="done", trace=Trace(question=hindi, query=hindi))
    store.save(Conversation(turns=[short]))
    again = store.load(store.list()[0].id)
    assert again is not None and again.turns[0] == short
