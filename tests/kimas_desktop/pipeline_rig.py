"""The pipeline test rig: two tiny collections (pets, cars) over the fake embedder and searcher, a
scripted chat model that replies by JSON schema, and the conversations the follow-up tests share."""

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from kimas_desktop.config import SourceConfig, parse_config
from kimas_desktop.pipeline import Pipeline, RetrievalResult
from kimas_desktop.protocols import OnlineSource
from kimas_desktop.trace import (
    StageRecord,
    Trace,
)
from kimas_desktop.types import Message
from local_models.fake import HashEmbedder, MemorySearcher, ScriptedChatModel, WordOverlapReranker

R = TypeVar("R", bound=StageRecord)


def _found(trace: Trace, kind: type[R]) -> R:
    record = trace.find(kind)
    assert record is not None, f"no {kind.__name__} in the trace"
    return record


def make(
    chat: ScriptedChatModel, online: Sequence[tuple[OnlineSource, SourceConfig]] = (), **cfg: Any
) -> tuple[Pipeline, MemorySearcher]:
    """The pipeline over the fakes (``cfg``: config keys beside the full preset), with the ``online``
    sources given."""
    emb = HashEmbedder()
    searcher = MemorySearcher(emb)
    searcher.add(
        "pets", ["Cats sleep sixteen hours a day.", "Dogs need daily walks in the park."], "/k/pets.md"
    )
    searcher.add(
        "cars", ["The engine oil must be changed every 10000 km.", "Tyre pressure is 2.2 bar."], "/k/car.pdf"
    )
    config = parse_config({"preset": "full", **cfg})
    return Pipeline(
        config=config,
        chat=chat,
        embedder=emb,
        reranker=WordOverlapReranker(),
        searcher=searcher,
        sources=online,
    ), searcher


MODEL_SAYS_ANSWERABLE = {"answer": json.dumps({"answer": "every 10000 km"})}  # words of car.pdf
# The answer policy asks a judging model only near the threshold; these tests widen that band to every
# score, so the model's check is asked whatever the fake embedder's evidence scores.
BAND = {"model_rescues_from": 0.0, "model_doubts_below": 1.0}
MODEL_FINDS_NOTHING = json.dumps({"answer": ""})


def by_schema(replies: Mapping[str, str], answer: str):  # type: ignore[no-untyped-def]
    """Reply by the JSON schema's first required key; stream ``answer`` for free text. Unless a test says
    otherwise, the model's answerability check copies the car manual's answer (answer_check.py)."""

    def reply(messages: Sequence[Message], schema: Mapping[str, Any] | None) -> str:
        if schema is None:
            return answer
        return {**MODEL_SAYS_ANSWERABLE, **replies}[schema["required"][0]]

    return reply


def asked_schemas(chat: ScriptedChatModel) -> list[str]:
    return [schema["required"][0] for _, schema in chat.calls if schema is not None]


def rex_asked_after_an_answer(
    judged: Mapping[str, str], top_n: int, *others: tuple[str, list[str]]
) -> Callable[[tuple[str, ...]], RetrievalResult]:
    """``pets`` with pets.md holding ``REX`` and the ``others`` (file, passages); "When did Rex leave?"
    asked after an answer naming the given files, the model judging the turn as ``judged`` says."""
    chat = ScriptedChatModel(by_schema({"needs_history": json.dumps(judged)}, ""))
    pipe, searcher = make(chat, context={"rewrite": "llm"}, rerank={"top_n": top_n})
    searcher.add("pets", [REX], "/k/pets.md")
    for source, texts in others:
        searcher.add("pets", texts, source)

    def ask(sources: tuple[str, ...]) -> RetrievalResult:
        history = [
            Message("user", "Tell me about our dogs"),
            Message("assistant", "Dogs need walks.", sources),
        ]
        return pipe.retrieve("When did Rex leave?", history)

    return ask


REX = "Rex left home in May."  # in /k/pets.md, the file the conversation's answer came from


VET = ("/k/vet.md", ["When did the vet Rex leave the clinic?", "Rex the vet did leave when it closed."])


DOGS = {"sources": '{"sources": [1]}', "answer": json.dumps({"answer": "daily walks"})}


CAR = "How often must the engine oil be changed?"
