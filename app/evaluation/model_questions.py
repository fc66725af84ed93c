"""Natural test questions written by a capable chat model the user chose (issue 26).

For chunks spread over the files, the model is asked, under a JSON schema, for one question a user could
ask that the passage answers and the answer copied from it. A question is kept only when its answer is
really in the passage (whitespace and case aside) and the question does not already contain it; the
passage's sentence that holds the answer is the expected evidence. Unanswerable variants swap a name or a
number of a kept question for one the collections never mention. Reads chunks only.
"""

from __future__ import annotations

import random
import re
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app.evaluation.questions import FOREIGN, UNANSWERABLE_SHARE, EvalQuestion, TestSet, _Idf, _spread
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import Cancelled, KimasError
from kimas_desktop.protocols import ChatModel
from kimas_desktop.structured import ask_json, string_field
from kimas_desktop.text.sentences import chunk_sentences
from kimas_desktop.text.words import is_name, words
from kimas_desktop.types import Chunk, Message

PASSAGE_CHARS = 1200
ATTEMPTS_PER_QUESTION = 3

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "question": {"type": "string", "maxLength": 200},
        "answer": {"type": "string", "maxLength": 120},
    },
    "required": ["question", "answer"],
}

SYSTEM = (
    "You write test questions for a search engine over a user's documents. Read the passage and write one "
    "question a person could ask that this passage answers, without copying the answer into the question, "
    "and give the answer: a short span copied word for word from the passage. "
    'Reply as JSON: {"question": "...", "answer": "..."}'
)


def _flat(text: str) -> str:
    return " ".join(text.split()).lower()


def _ask(chat: ChatModel, passage: str) -> tuple[str, str]:
    messages = [Message("system", SYSTEM), Message("user", f"Passage:\n{passage}")]

    def parse(d: dict[str, Any]) -> tuple[str, str]:
        return string_field(d, "question", max_len=300), string_field(d, "answer", max_len=200)

    return ask_json(chat, messages, SCHEMA, parse, max_tokens=120)


def _usable(chunk: Chunk, question: str, answer: str) -> str | None:
    """The sentence of ``chunk`` holding ``answer``, when the pair is a fair test question."""
    if not answer.strip() or len(words(question)) < 4 or not question.rstrip().endswith("?"):
        return None
    if _flat(answer) in _flat(question):
        return None
    for s in chunk_sentences(chunk):
        if _flat(answer) in _flat(s.text):
            return " ".join(s.text.split())
    return None


def _swap(question: str, idf: _Idf, rng: random.Random) -> str | None:
    """``question`` with one of its names or numbers replaced by one the documents never mention."""
    tokens = words(question)
    numbers = [w for w in tokens if re.fullmatch(r"\d{2,4}", w)]
    if numbers:
        old = numbers[0]
        for step in (7, 13, 19, 31):
            new = str(int(old) + step)
            if not idf.mentions(new):
                return re.sub(rf"\b{old}\b", new, question, count=1)
    named = [w for i, w in enumerate(tokens) if is_name(w, i)]
    places = [p for p in FOREIGN if not idf.mentions(p)]
    if named and places:
        return re.sub(rf"\b{re.escape(named[0])}\b", rng.choice(places), question, count=1)
    return None


def generate_with_model(
    chat: ChatModel,
    chunks_by_collection: Mapping[str, Sequence[Chunk]],
    size: int = 50,
    *,
    seed: int = 26,
    cancel: CancelToken | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> TestSet:
    rng = random.Random(seed)
    total = sum(len(c) for c in chunks_by_collection.values()) or 1
    n_known = size - round(size * UNANSWERABLE_SHARE)
    questions: list[EvalQuestion] = []
    controls: list[EvalQuestion] = []
    for name, chunks in chunks_by_collection.items():
        want = max(1, round(n_known * len(chunks) / total)) if chunks else 0
        idf = _Idf(chunks)
        made = 0
        for tried, chunk in enumerate(_spread(chunks, rng)):
            if made >= want or tried >= want * ATTEMPTS_PER_QUESTION:
                break
            if cancel is not None and cancel.cancelled:
                raise Cancelled("making the test set was stopped")
            try:
                question, answer = _ask(chat, chunk.text[:PASSAGE_CHARS])
            except KimasError:
                continue  # a reply that does not fit the schema: try another passage
            evidence = _usable(chunk, question, answer)
            if evidence is None:
                continue
            made += 1
            n = len(questions) + 1
            questions.append(
                EvalQuestion(f"m{n}", question, True, name, chunk.source, evidence, answer, "model")
            )
            swapped = _swap(question, idf, rng)
            if swapped is not None:
                controls.append(
                    EvalQuestion(f"mu{len(controls) + 1}", swapped, False, origin="model control")
                )
            if progress:
                progress(len(questions), n_known)
    if not questions:
        raise KimasError("the chat model wrote no usable question (answers copied from the passages)")
    rng.shuffle(controls)
    picked = controls[: round(size * UNANSWERABLE_SHARE)]
    return TestSet(
        uuid.uuid4().hex[:12],
        time.time(),
        f"questions written by {chat.model_id}",
        tuple(chunks_by_collection),
        (*questions, *picked),
    )
