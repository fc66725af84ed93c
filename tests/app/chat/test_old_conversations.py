"""A conversation saved by the release before issue 22 (the flat core: ``kimas_desktop.conversation.Turn``,
``kimas_desktop.quote.Quote``…) still opens after the core moved into stage folders, and shows its answers,
quotes and sources. The stored file was written by that release (commit 2e1d8c8) through the real
pipeline on the deterministic fakes."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.chat.conversation import Turn
from app.chat.record_codec import RENAMED, RecordError, _record_class, loads
from app.chat.store import FILE_NAME, ConversationStore
from kimas_desktop.types import Answerability, Quote, SentenceSupport
from ui.chat.render import answer_markdown, chat_messages

OLD_FILE = Path(__file__).parent / "data" / "conversations-0.1-before-issue-22.sqlite3"
# Written by the release before issue 41 (the flat application layer: ``app.conversation.Turn``), from the
# conversation above, through ``ConversationStore.save`` of that release.
BEFORE_41 = Path(__file__).parent / "data" / "conversations-0.2-before-issue-41.sqlite3"


def test_a_conversation_of_the_previous_release_opens_with_its_answers_quotes_and_sources(
    tmp_path: Path,
) -> None:
    shutil.copy(OLD_FILE, tmp_path / FILE_NAME)
    store = ConversationStore(tmp_path / FILE_NAME)
    [summary] = store.list()
    conv = store.load(summary.id)
    assert conv is not None and len(conv.turns) == 2
    first = conv.turns[0]
    assert isinstance(first, Turn) and first.state == "done"
    assert "PURPLE-OTTER-42" in first.answer
    assert first.quotes and isinstance(first.quotes[0], Quote)
    assert first.quotes[0].chunk.text[first.quotes[0].start : first.quotes[0].end] == first.quotes[0].text
    assert first.citations and first.citations[0].chunk.source.endswith("heliotrope.pdf")
    assert first.support and isinstance(first.support[0], SentenceSupport)
    assert isinstance(first.answerability, Answerability) and first.answerability.evidence is not None
    assert first.trace is not None and first.trace.evidence and first.trace.stages
    shown = answer_markdown(first)
    assert "PURPLE-OTTER-42" in shown and "heliotrope.pdf" in shown
    messages = chat_messages(conv)
    assert [m["content"] for m in messages if m["role"] == "user"] == [t.question for t in conv.turns]
    assert any("PURPLE-OTTER-42" in str(m["content"]) for m in messages if m["role"] == "assistant")


def test_a_conversation_saved_before_the_application_layer_was_grouped_still_opens(tmp_path: Path) -> None:
    shutil.copy(BEFORE_41, tmp_path / FILE_NAME)
    store = ConversationStore(tmp_path / FILE_NAME)
    [summary] = store.list()
    conv = store.load(summary.id)
    assert conv is not None and [t.question for t in conv.turns] == [
        "What is the launch code of Project Heliotrope?",
        "And who knows it?",
    ]
    first = conv.turns[0]
    assert isinstance(first, Turn) and first.state == "done" and "PURPLE-OTTER-42" in first.answer
    assert first.quotes and isinstance(first.quotes[0], Quote)
    assert first.citations and first.citations[0].chunk.source.endswith("heliotrope.pdf")
    assert "PURPLE-OTTER-42" in answer_markdown(first)


def test_every_renamed_record_type_still_exists() -> None:
    for old, new in RENAMED.items():
        assert _record_class(old).__qualname__ == new.rpartition(".")[2]


def test_an_unknown_old_name_is_a_clear_error() -> None:
    try:
        loads('{"@": "kimas_desktop.gone.Thing"}')
    except RecordError as err:
        assert "does not have" in str(err)
    else:
        raise AssertionError("an unknown record type must not load")
