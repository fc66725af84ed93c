"""Test questions written by a chat model (issue 26): only questions whose answer is copied from the passage
are kept, controls swap a number or a name for one the documents never mention; with the real embedded
model, whatever it writes obeys the same rules."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from app.evaluation.model_questions import generate_with_model
from app.evaluation.questions import FOREIGN, finds
from kimas_desktop.config import ChatModelConfig
from kimas_desktop.errors import KimasError
from kimas_desktop.types import Chunk, Message
from local_models.fake import ScriptedChatModel

PASSAGES = [
    "The Rhine Shipping Company was founded in 1851 in Cologne by a group of merchants. It carried coal "
    "and grain between Basel and Rotterdam.",
    "The Elbe Works were founded in 1892 in Hamburg as a repair yard for river barges. Today the yard "
    "builds ferries for the harbour.",
    "Warsaw's first metro line opened in 1995 after decades of planning. Its chief engineer was Jerzy "
    "Lewandowski, who had worked on the Prague metro.",
    "The Danube flows through ten countries before it reaches the Black Sea. Vienna and Budapest stand "
    "on its banks.",
]
CHUNKS = {"rivers": [Chunk(f"c{i}", "rivers", f"/docs/doc{i}.md", text) for i, text in enumerate(PASSAGES)]}


def _copying_model(messages: Sequence[Message], schema: Mapping[str, Any] | None) -> str:
    """Asks about the first sentence's year (or its last two words), answering from the passage."""
    passage = messages[-1].content.removeprefix("Passage:\n")
    first = passage.split(". ")[0]
    year = re.search(r"\b1\d{3}\b", first)
    subject = " ".join(first.split()[:3])
    if year:
        return json.dumps({"question": f"In which year was {subject} founded or opened?", "answer": year[0]})
    return json.dumps({"question": f"Where does {subject} go?", "answer": " ".join(first.split()[-2:])})


def test_kept_questions_are_answered_by_their_passage() -> None:
    chat = ScriptedChatModel(_copying_model)
    made = generate_with_model(chat, CHUNKS, 5)
    known = [q for q in made.questions if q.answerable]
    assert len(known) == 4 and made.method == "questions written by fake/scripted-chat"
    by_source = {c.source: c for c in CHUNKS["rivers"]}
    for q in known:
        assert q.origin == "model" and q.answer.lower() not in q.question.lower()
        assert q.answer in q.evidence and finds(q.evidence, q.source, by_source[q.source])
    assert all(call[1] is not None for call in chat.calls)  # every call under the JSON schema
    controls = [q for q in made.questions if not q.answerable]
    assert len(controls) == 1 and controls[0].origin == "model control"
    swapped = controls[0].question
    assert swapped not in {q.question for q in known}
    changed = [w for w in re.findall(r"\b\d{4}\b", swapped) if w not in " ".join(PASSAGES)]
    assert changed or any(p in swapped for p in FOREIGN)


def test_answers_not_in_the_passage_are_thrown_away() -> None:
    invented = ScriptedChatModel(
        [json.dumps({"question": "Who painted the Mona Lisa?", "answer": "Leonardo"})]
    )
    with pytest.raises(KimasError, match="no usable question"):
        generate_with_model(invented, CHUNKS, 5)
    broken = ScriptedChatModel(["this is not JSON"])
    with pytest.raises(KimasError, match="no usable question"):
        generate_with_model(broken, CHUNKS, 5)
    giveaway = ScriptedChatModel(
        [json.dumps({"question": "Was the Danube company founded in 1851 in Cologne?", "answer": "1851"})]
    )
    with pytest.raises(KimasError, match="no usable question"):  # the answer is in the question
        generate_with_model(giveaway, CHUNKS, 5)


@pytest.mark.slow
def test_the_real_embedded_model_obeys_the_same_rules() -> None:
    from local_models import build_chat_model

    chat = build_chat_model(ChatModelConfig())
    try:
        made = generate_with_model(chat, CHUNKS, 4)
    except KimasError as err:  # the 135M model may copy no answer at all: then it says so
        assert "no usable question" in str(err)
        return
    finally:
        chat.close()
    by_source = {c.source: c for c in CHUNKS["rivers"]}
    for q in made.questions:
        if q.answerable:
            assert q.answer.lower() in q.evidence.lower() and q.answer.lower() not in q.question.lower()
            assert finds(q.evidence, q.source, by_source[q.source])
