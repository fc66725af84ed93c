"""The chat's language note (issue 42): a question that is not English, asked while the embedding model reads
English only, gets one note under its answer with the one-click switch, once per conversation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.rigs import Rig, indexed_rig
from ui.chat import handlers as chat_handlers

NOTES = (  # in the question's language
    "embedding model reads English only",
    "嵌入模型只读得懂英文",
    "एम्बेडिंग मॉडल केवल अंग्रेज़ी पढ़ता है",
)


def _ask(rig: Rig, conv_id: str | None, question: str) -> tuple[list[dict[str, Any]], str]:
    """The chat as drawn once the answer is complete."""
    drawn = [u for u in chat_handlers.submit(rig.session, conv_id, question) if u is not None]
    messages, conv, _ = drawn[-1]
    return messages, conv


def _answer(messages: list[dict[str, Any]], n: int) -> int:
    """The index of the answer to the ``n``-th question (0-based): the message right after it."""
    return [i for i, m in enumerate(messages) if m["role"] == "user"][n] + 1


def _notes(messages: list[dict[str, Any]]) -> list[int]:
    return [i for i, m in enumerate(messages) if any(note in str(m["content"]) for note in NOTES)]


def test_a_chinese_question_gets_the_note_once_per_conversation(tmp_path: Path) -> None:
    rig = indexed_rig(tmp_path)
    desk = rig.session
    try:
        messages, conv = _ask(rig, None, "What is the launch code of Project Heliotrope?")
        assert _notes(messages) == [] and not chat_handlers.multilingual_offered(desk, conv)
        assert desk.multilingual.question_note("Hi?") == ""  # too short to tell ("af" to the detector)
        assert desk.multilingual.question_note("And the plants?") == ""
        assert "(de)" in desk.multilingual.question_note("Wie heißt die Hauptstadt von Kenia eigentlich?")
        messages, conv = _ask(rig, conv, "Heliotrope 项目的发射代码是什么?")
        assert _notes(messages) == [_answer(messages, 1)]  # under the answer to the Chinese question
        assert (
            "（zh）" in messages[_answer(messages, 1)]["content"]
            and "“使用多语言嵌入模型”"
            in messages[_answer(messages, 1)]["content"]  # the button, as named in Chinese
        )
        assert chat_handlers.multilingual_offered(desk, conv)
        messages, conv = _ask(rig, conv, "हेलिओट्रोप परियोजना का लॉन्च कोड क्या है?")
        assert _notes(messages) == [_answer(messages, 1)]  # not again in the same conversation
        reopened, _, _ = chat_handlers.open_chat(desk, None, conv)
        assert _notes(reopened) == [_answer(reopened, 1)]  # drawn again: still once
        fresh, _ = _ask(rig, chat_handlers.new_chat(desk, conv)[1], "हेलिओट्रोप परियोजना का लॉन्च कोड क्या है?")
        note = str(fresh[_notes(fresh)[0]]["content"])
        assert len(_notes(fresh)) == 1 and "(hi)" in note and "एम्बेडिंग मॉडल" in note
        assert "'Use the multilingual embedding model'" in note  # the button as the UI labels it
    finally:
        desk.close()


def test_no_note_when_the_embedding_model_reads_every_language(tmp_path: Path) -> None:
    rig = indexed_rig(
        tmp_path,
        config={"embedding": {"name": "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"}},
    )
    try:
        messages, conv = _ask(rig, None, "Heliotrope 项目的发射代码是什么?")
        assert _notes(messages) == [] and not chat_handlers.multilingual_offered(rig.session, conv)
    finally:
        rig.session.close()
